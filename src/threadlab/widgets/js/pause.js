// @ts-check
// A run paused before a model step (step mode): the request it is about to send, and
// Continue / Stop.
/** @import {Model, Trace} from "./types.js" */
import { h } from "./dom.js";

/**
 * The pause of a run that stopped before a model step: what the model is about to be sent,
 * then Continue (the kernel sends that step and goes on, pausing where the step mode says) and
 * Stop (the thread stays as it is). Without a kernel (a reopened notebook) it says where the
 * run stands, with no buttons. Null for a run that did not pause so.
 * @param {Model} model
 * @param {Trace} trace
 * @returns {HTMLElement | null}
 */
export function pausePanel(model, trace) {
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
    h("div", { class: "tl-decide-row" }, button("Continue", "continue"), button("Stop", "stop")),
  );
}
