// @ts-check
// Approve / Edit / Reject in the card of a call that waits for a decision.
/** @import {Card, Decision, Local, Model} from "./types.js" */
import { controlOf, h } from "./dom.js";

/**
 * Approve / Edit arguments / Reject under a call that waits for a decision. Edited arguments
 * are checked as a JSON object here, then against the tool's schema by the kernel before
 * anything is recorded (a refusal comes back into this form). Kept per call, so what the user
 * typed survives the view's updates.
 * @param {Model} model
 * @param {Local} local
 * @param {Card} c
 */
export function decisionControl(model, local, c) {
  const key = `${c.thread} ${c.id}`;
  const kept = local.decisions.get(key);
  if (kept) return kept.el;
  const error = h("div", { class: "tl-error", "data-testid": "decide-error" });
  const editor = /** @type {HTMLTextAreaElement} */ (
    h("textarea", { class: "tl-fork-editor", "data-testid": "decide-editor", rows: "4" })
  );
  editor.value = c.approval?.arguments ?? "{}";
  const reason = /** @type {HTMLInputElement} */ (
    h("input", {
      class: "tl-reason",
      "data-testid": "reject-reason",
      placeholder: "reason (optional)",
      "aria-label": "reason for rejecting",
    })
  );
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  const ask = h("span", { class: "tl-ask", "data-testid": "decision-ask" });
  const question = `‖ ${c.name} waits for your decision`;
  ask.textContent = question;
  /** @param {boolean} on */
  const enable = (on) => {
    for (const b of buttons) b.disabled = !on;
    // At once, before the kernel answers: the click was taken and nothing more can be sent.
    ask.textContent = on ? question : `‖ ${c.name}: deciding…`;
  };
  /** @param {Decision} decision */
  const send = (decision) => {
    error.textContent = "";
    enable(false);
    // Once decided, the buttons go: the keyboard stays on the call's card.
    local.focusAfter = `${controlOf("tool-card", { "data-call": c.id })} > summary`;
    model.send({ op: "decide", thread: c.thread, call: c.id, ...decision });
  };
  const editForm = h(
    "div",
    { class: "tl-fork-form", "data-testid": "decide-form" },
    editor,
    h(
      "button",
      {
        class: "tl-fork-run",
        "data-testid": "approve-edited",
        onclick: () => {
          /** @type {unknown} */
          let value;
          try {
            value = JSON.parse(editor.value);
          } catch (e) {
            error.textContent = `not JSON: ${e instanceof Error ? e.message : e}`;
            return;
          }
          if (typeof value !== "object" || !value || Array.isArray(value)) {
            error.textContent = "the arguments must be a JSON object";
            return;
          }
          send({ approved: true, arguments: /** @type {Record<string, unknown>} */ (value) });
        },
      },
      "approve with these arguments",
    ),
  );
  editForm.hidden = true;
  const button = (
    /** @type {string} */ label,
    /** @type {string} */ id,
    /** @type {() => void} */ onclick,
  ) => {
    const b = /** @type {HTMLButtonElement} */ (
      h("button", { class: `tl-decide tl-${id}`, "data-testid": id, onclick }, label)
    );
    buttons.push(b);
    return b;
  };
  const el = h(
    "div",
    { class: "tl-decision", "data-testid": "decision-bar", "data-call": c.id },
    ask,
    h(
      "div",
      { class: "tl-decide-row" },
      button("Approve", "approve", () => send({ approved: true })),
      c.approval?.arguments
        ? button("Edit arguments", "edit-arguments", () => {
            editForm.hidden = !editForm.hidden;
          })
        : null,
      button("Reject", "reject", () => send({ approved: false, reason: reason.value })),
      reason,
    ),
    editForm,
    error,
  );
  buttons.push(/** @type {HTMLButtonElement} */ (editForm.querySelector("button")));
  local.decisions.set(key, {
    el,
    error,
    sent: () => {
      local.focusAfter = null; // refused: the buttons stay, and so does the keyboard
      enable(true);
    },
  });
  return el;
}
