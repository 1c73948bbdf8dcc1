// @ts-check
// A run paused before a model step (step mode): the request it is about to send, and
// Continue / Stop.
/** @import {Local, Model, Trace} from "./types.js" */
import { h } from "./dom.js";

/** The choice, beside the tools on offer, of a model step that calls none. */
export const TEXT_ANSWER = "(a text answer)";

/**
 * A prediction told against what the model did: "✓ right: add" or "✗ you said add; it
 * chose (a text answer)".
 * @param {string} guess
 * @param {string[]} answer the tools the step called, or a text answer
 * @returns {{right: boolean, text: string}}
 */
export function revealed(guess, answer) {
  const right = answer.includes(guess);
  return {
    right,
    text: right ? `✓ right: ${guess}` : `✗ you said ${guess}; it chose ${answer.join(", ")}`,
  };
}

/**
 * The top-level assistant messages of the run's thread, in order.
 * @param {Trace} trace
 */
function steps(trace) {
  return (trace.messages?.[trace.root] || []).filter((m) => m.role === "assistant" && !m.depth);
}

/**
 * What a model step did, as a student predicts it: the tools it called, or a text answer.
 * @param {Trace} trace
 * @param {import("./types.js").TraceMessage} message
 * @returns {string[]}
 */
function chosen(trace, message) {
  const names = message.calls.map((id) => trace.cards?.[id]?.name).filter((n) => !!n);
  return names.length ? /** @type {string[]} */ (names) : [TEXT_ANSWER];
}

/**
 * A prediction made at a pause, scored once the step it was about is stored: the last
 * reveal and the score so far, or nothing when no prediction was made.
 * @param {Trace} trace
 * @param {Local} local
 * @returns {HTMLElement | null}
 */
export function predictionScore(trace, local) {
  const asked = local.stepPrediction;
  if (!asked) return null;
  const made = steps(trace)[asked.after];
  if (asked.choice !== null && made) {
    const told = revealed(asked.choice, chosen(trace, made));
    asked.scored.push(told.right);
    asked.reveal = told.text;
    asked.choice = null;
  }
  if (!asked.reveal) return null;
  const right = asked.scored.filter((r) => r).length;
  return h(
    "div",
    { class: "tl-quiz", "data-testid": "step-reveal" },
    h(
      "span",
      { class: asked.reveal.startsWith("✓") ? "tl-guess-right" : "tl-guess-wrong" },
      asked.reveal,
    ),
    h("span", { class: "tl-meta" }, `score ${right} / ${asked.scored.length}`),
  );
}

/**
 * Before a paused model step: which tool (or a text answer) the student thinks it will
 * choose; Continue then reveals it.
 * @param {Trace} trace
 * @param {Local} local
 * @returns {HTMLElement | null}
 */
function predictRow(trace, local) {
  const offered = trace.run?.next_tools;
  if (!offered) return null;
  const after = steps(trace).length;
  /** @type {HTMLButtonElement[]} */
  const choices = [];
  // The pick shows at once (and stays through a redraw): Continue then tells if it was right.
  const made = local.stepPrediction?.after === after ? local.stepPrediction.choice : null;
  const said = h("span", { class: "tl-meta", "data-testid": "step-picked" }, picked(made));
  const pick = (/** @type {string} */ choice, /** @type {HTMLButtonElement} */ button) => {
    const asked = local.stepPrediction || { choice: null, after, scored: [], reveal: null };
    local.stepPrediction = { ...asked, choice, after };
    for (const b of choices) b.setAttribute("aria-pressed", String(b === button));
    said.textContent = picked(choice);
  };
  for (const choice of [...offered, TEXT_ANSWER]) {
    const button = /** @type {HTMLButtonElement} */ (
      h(
        "button",
        {
          class: "tl-decide",
          "data-testid": "step-choice",
          "aria-pressed": String(choice === made),
        },
        choice,
      )
    );
    button.addEventListener("click", () => pick(choice, button));
    choices.push(button);
  }
  return h(
    "div",
    { class: "tl-quiz", "data-testid": "step-predict" },
    h("span", { class: "tl-meta" }, "predict: what will the model do? "),
    ...choices,
    said,
  );
}

/**
 * What the student picked, as the pause says it until Continue reveals the step.
 * @param {string | null} choice
 */
function picked(choice) {
  return choice === null ? "" : ` your pick: ${choice} — Continue shows what it does`;
}

/**
 * The pause of a run that stopped before a model step: what the model is about to be sent,
 * then Continue (the kernel sends that step and goes on, pausing where the step mode says) and
 * Stop (the thread stays as it is). Without a kernel (a reopened notebook) it says where the
 * run stands, with no buttons. Null for a run that did not pause so.
 * @param {Model} model
 * @param {Trace} trace
 * @param {Local} local
 * @returns {HTMLElement | null}
 */
export function pausePanel(model, trace, local) {
  const run = trace.run || {};
  if (run.stop_reason !== "waiting: model step") return null;
  const offline = !!model.get("offline");
  const ask = h(
    "span",
    { class: "tl-ask", "data-testid": "pause-ask" },
    "‖ paused before a model step",
  );
  const request = run.next_request
    ? h(
        "details",
        { class: "tl-request", "data-testid": "next-request", open: "" },
        h("summary", {}, "what the model is about to be sent"),
        h("pre", {}, run.next_request),
      )
    : null;
  if (offline)
    return h("div", { class: "tl-decision tl-pause", "data-testid": "model-pause" }, ask, request);
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  /** @param {"continue" | "stop"} action */
  const send = (action) => {
    for (const b of buttons) b.disabled = true;
    // At once, before the kernel answers: the click was taken and nothing more can be sent.
    ask.textContent = action === "continue" ? "‖ sending the step…" : "‖ stopping…";
    model.send({ op: "step", thread: trace.root, action });
  };
  const button = (/** @type {string} */ label, /** @type {"continue" | "stop"} */ action) => {
    const b = /** @type {HTMLButtonElement} */ (
      h(
        "button",
        {
          class: `tl-decide tl-${action}`,
          "data-testid": `step-${action}`,
          onclick: () => send(action),
        },
        label,
      )
    );
    buttons.push(b);
    return b;
  };
  return h(
    "div",
    { class: "tl-decision tl-pause", "data-testid": "model-pause" },
    ask,
    request,
    predictRow(trace, local),
    h("div", { class: "tl-decide-row" }, button("Continue", "continue"), button("Stop", "stop")),
  );
}
