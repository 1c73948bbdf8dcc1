// @ts-check
// "Fork from here" on a card or a user message: the form that asks the kernel for a branch.
/** @import {ForkPoint, Local, Model} from "./types.js" */
import { h } from "./dom.js";

/** @type {Record<string, string>} */
const FORK_MODES = {
  result: "a different result",
  arguments: "other arguments",
  message: "a different message",
};

/**
 * A result as the JSON value it is: a tool's JSON result as its own text (not encoded again,
 * as a string of JSON), any other text as a JSON string.
 * @param {string} text
 */
function asJson(text) {
  try {
    JSON.parse(text);
    return text;
  } catch {
    return JSON.stringify(text);
  }
}

/**
 * "fork from here" under a tool card or a user message: an editor for the call's result or
 * arguments, or the message's text, checked as JSON before anything is sent; the branch then
 * runs in this view. Kept per point, so what the user typed survives the view's updates.
 * @param {Model} model
 * @param {Local} local
 * @param {ForkPoint} point
 */
export function forkControl(model, local, point) {
  // Per thread and point: a branch keeps its messages' and calls' ids.
  const key = `${point.thread} ${point.at}`;
  const kept = local.forks.get(key);
  if (kept) return kept.el;
  /** @type {Record<string, string>} */
  const initial = {
    result: asJson(point.result ?? ""),
    arguments: point.args || "{}",
    message: point.text || "",
  };
  const modes = point.kind === "call" ? ["result", "arguments"] : ["message"];
  const error = h("div", { class: "tl-error", "data-testid": "fork-error" });
  const editor = /** @type {HTMLTextAreaElement} */ (
    h("textarea", { class: "tl-fork-editor", "data-testid": "fork-editor", rows: "3" })
  );
  editor.value = initial[modes[0]];
  const mode = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      {
        "data-testid": "fork-mode",
        onchange: () => {
          editor.value = initial[mode.value];
          error.textContent = "";
        },
      },
      modes.map((m) => h("option", { value: m }, FORK_MODES[m])),
    )
  );
  const submit = () => {
    const chosen = mode.value;
    /** @type {unknown} */
    let value = editor.value;
    if (chosen !== "message") {
      try {
        value = JSON.parse(editor.value);
      } catch (e) {
        error.textContent = `not JSON: ${e instanceof Error ? e.message : e}`;
        return;
      }
      if (chosen === "arguments" && (typeof value !== "object" || !value || Array.isArray(value))) {
        error.textContent = "the arguments must be a JSON object";
        return;
      }
    }
    error.textContent = "";
    const at = { op: /** @type {const} */ ("fork"), thread: point.thread, at: point.at };
    if (chosen === "message") model.send({ ...at, message: String(value) });
    else if (chosen === "arguments")
      model.send({ ...at, arguments: /** @type {Record<string, unknown>} */ (value) });
    else model.send({ ...at, result: value });
  };
  const form = h(
    "div",
    { class: "tl-fork-form", "data-testid": "fork-form" },
    mode,
    editor,
    h(
      "button",
      { class: "tl-fork-run", "data-testid": "fork-run", onclick: submit },
      "run the branch",
    ),
    error,
  );
  form.hidden = true;
  const el = h(
    "div",
    { class: "tl-fork-point", "data-at": point.at },
    h(
      "button",
      {
        class: "tl-fork",
        "data-testid": "fork-here",
        title: "a new thread from this point, with your change; this one stays as it is",
        onclick: () => {
          form.hidden = !form.hidden;
        },
      },
      "fork from here",
    ),
    form,
  );
  local.forks.set(key, { el, error });
  return el;
}
