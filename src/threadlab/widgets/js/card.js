// @ts-check
// A tool call's card: its summary line, then arguments, progress, events and result.
/** @import {Card, Local, Model} from "./types.js" */
import { capped, copyButton, h } from "./dom.js";
import {
  clockOf,
  countText,
  decisionText,
  elapsed,
  errorLine,
  latestProgress,
  MARK,
  progressOf,
  readable,
} from "./text.js";
import { readableArgs, resultBox } from "./values.js";

/**
 * The summary line and body of one tool call.
 * @param {Model} model
 * @param {Card} c
 * @param {Record<string, string>} fetched
 * @param {Local} local
 * @returns {HTMLElement[]}
 */
function cardParts(model, c, fetched, local) {
  const full = fetched[c.id];
  const result = full !== undefined ? full : c.result || "";
  const fullArgs = local.fetchedArgs?.[c.id];
  const args = fullArgs ?? c.args;
  const more =
    full === undefined && c.result_chars > (c.result || "").length
      ? h(
          "button",
          {
            class: "tl-more",
            onclick: () => model.send({ op: "fetch_result", thread: c.thread, call: c.id }),
          },
          `load all ${c.result_chars} characters`,
        )
      : null;
  const progress = latestProgress(c.events || []);
  const events = (c.events || [])
    .filter((e) => progressOf(e) === null)
    .map((e) => h("li", {}, h("b", {}, e.type), " ", readable(e.data)));
  // A call told more than a card keeps: the latest are shown, the rest counted.
  if (c.events_dropped)
    events.unshift(
      h(
        "li",
        { class: "tl-meta", "data-testid": "tool-events-dropped" },
        `… ${c.events_dropped} earlier events not kept`,
      ),
    );
  const clock = clockOf(local, c);
  const active =
    !c.past && (c.status === "streaming" || c.status === "running" || c.status === "queued");
  const since = c.status === "running" ? clock.started || clock.seen : clock.seen;
  const summary = h(
    "summary",
    {},
    h("span", { class: "tl-mark" }, MARK[c.status] || "•"),
    h("b", { class: "tl-name" }, c.name),
    c.label ? h("span", { class: "tl-label", "data-testid": "tool-label" }, c.label) : null,
    c.progress
      ? h("span", { class: "tl-progress", "data-testid": "tool-progress" }, c.progress)
      : null,
    // A failed call says why in its closed card: the error's last line (the exception).
    c.status === "error" && c.result
      ? h("span", { class: "tl-error-line", "data-testid": "tool-error-line" }, errorLine(c))
      : null,
    h(
      "span",
      { class: "tl-meta", "data-testid": "tool-meta" },
      c.status,
      c.status === "streaming" ? ` · ${countText(c.args_chars)} chars of arguments` : "",
      c.duration_ms !== null && !active ? ` · ${Math.round(c.duration_ms)} ms` : "",
      active ? " · " : "",
      active
        ? h("span", { class: "tl-elapsed", "data-since": String(since) }, elapsed(since))
        : null,
    ),
  );
  return [
    summary,
    c.approval && c.approval.state !== "asked"
      ? h("div", { class: "tl-decided", "data-testid": "decision" }, decisionText(c.approval))
      : null,
    c.args
      ? h(
          "div",
          { class: "tl-args-box" },
          h(
            "div",
            { class: "tl-heading" },
            c.proposed ? "arguments (as run) " : "arguments ",
            copyButton(() => args),
          ),
          ...capped(
            h("div", { class: "tl-args", "data-testid": "tool-args" }, readableArgs(args)),
            args.length,
          ),
          // Long strings are folded in the synced state: the whole arguments when asked for.
          c.args_folded && fullArgs === undefined
            ? h(
                "button",
                {
                  class: "tl-more",
                  "data-testid": "load-arguments",
                  onclick: () =>
                    model.send({ op: "fetch_arguments", thread: c.thread, call: c.id }),
                },
                "show all arguments",
              )
            : null,
        )
      : null,
    // Edited before it ran: what ran is above, what the model proposed is kept here.
    c.proposed
      ? h(
          "div",
          { class: "tl-edited-from", "data-testid": "edited-from" },
          h("div", { class: "tl-heading" }, "edited from the model's proposal"),
          ...capped(h("div", { class: "tl-args" }, readableArgs(c.proposed)), c.proposed.length),
        )
      : null,
    result
      ? h(
          "div",
          { class: "tl-heading" },
          "result ",
          copyButton(() => result),
        )
      : null,
    ...(result ? capped(resultBox(result), result.length) : []),
    more,
    c.traceback ? h("div", { class: "tl-heading" }, "traceback") : null,
    c.traceback
      ? h("pre", { class: "tl-traceback", "data-testid": "tool-traceback" }, c.traceback)
      : null,
    progress
      ? h(
          "div",
          { class: "tl-bar", "data-testid": "tool-progress-bar" },
          h("progress", { value: String(progress.value), max: String(progress.max) }),
          h("span", { class: "tl-meta" }, progress.label),
        )
      : null,
    events.length ? h("ul", { class: "tl-events", "data-testid": "tool-events" }, events) : null,
  ].filter((part) => part !== null);
}

/**
 * One tool call's card. The element is kept per call and updated in place, so a card the
 * user opened stays open (and keeps its scroll) while updates stream in.
 * @param {Model} model
 * @param {Card} c
 * @param {Record<string, string>} fetched full results already asked for, by call id
 * @param {Local} local
 */
export function card(model, c, fetched, local) {
  const sig = JSON.stringify([c, fetched[c.id] ?? null, local.fetchedArgs?.[c.id] ?? null]);
  const kept = local.cards.get(c.id);
  if (kept && kept.sig === sig) return kept.el;
  let el = kept?.el;
  if (!el) {
    const opened = local.memory.open;
    el = h("details", { class: "tl-card", "data-testid": "tool-card", "data-call": c.id });
    /** @type {HTMLDetailsElement} */ (el).open = opened.has(c.id);
    el.addEventListener("toggle", (e) => {
      if (e.target !== e.currentTarget) return; // a part inside the card
      if (/** @type {HTMLDetailsElement} */ (el).open) opened.add(c.id);
      else opened.delete(c.id);
    });
  }
  el.className = `tl-card tl-${c.status}`;
  el.setAttribute("data-status", c.status);
  const [head, ...rest] = cardParts(model, c, fetched, local);
  // The summary element stays while updates stream in (its parts are swapped inside it, and
  // take no pointer events): a click that lands between two updates still opens the card.
  const summary = el.firstElementChild;
  if (summary?.tagName === "SUMMARY" && head?.tagName === "SUMMARY") {
    summary.replaceChildren(...head.childNodes);
    el.replaceChildren(summary, ...rest);
  } else {
    el.replaceChildren(...[head, ...rest].filter((part) => part !== undefined));
  }
  local.cards.set(c.id, { el, sig });
  return el;
}
