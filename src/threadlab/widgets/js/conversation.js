// @ts-check
// One thread's conversation: its messages, with a card per tool call.
/** @import {Card, Local, Model, Trace, TraceMessage} from "./types.js" */
import { appFrame } from "./app_frame.js";
import { card } from "./card.js";
import { decisionControl } from "./decision.js";
import { h, keepChildren } from "./dom.js";
import { elicitationForm } from "./elicitation.js";
import { forkControl } from "./fork.js";
import { costText, FINAL, replayCounts, usageText } from "./text.js";

/**
 * One message's line, kept per message id (its text does not change once stored). A report a
 * subagent delivered reads as that child's, with its name and status, not as the human's.
 * @param {Model} model
 * @param {TraceMessage} m
 * @param {Trace} trace
 * @param {Local} local
 * @param {boolean} [replaying] the thread replays a recording: say how each step was answered
 */
function messageLine(model, m, trace, local, replaying = false) {
  const child = m.subagent ? trace.threads.find((t) => t.id === m.subagent) : undefined;
  const asked = local.requests[m.id];
  const sig = JSON.stringify([m, child?.name, child?.status, asked ?? null, replaying]);
  const kept = local.messages.get(m.id);
  if (kept && kept.sig === sig) return kept.el;
  const who = m.subagent
    ? [
        h("b", {}, `report from ${child?.name || m.subagent}`),
        child ? h("span", { class: `tl-status tl-${child.status}` }, child.status) : null,
      ]
    : h("b", {}, m.role + (m.side ? ` (${m.side})` : ""));
  const el = h(
    "div",
    {
      class: `tl-msg tl-${m.subagent ? "report" : m.role}`,
      style: `margin-left:${m.depth * 16}px`,
      "data-testid": m.subagent ? "subagent-report" : null,
      "data-message": m.id,
    },
    who,
    replaying && m.role === "assistant" && m.depth === 0
      ? h(
          "span",
          {
            class: `tl-origin tl-${m.model === "replay" ? "replayed" : "called"}`,
            "data-testid": "step-origin",
          },
          m.model === "replay" ? "replayed" : "model call",
        )
      : null,
    " ",
    m.text,
    m.attachments.length
      ? h("span", { class: "tl-meta" }, ` · attached: ${m.attachments.join(", ")}`)
      : null,
    m.usage ? h("span", { class: "tl-meta" }, ` · ${usageText(m.usage)}`) : null,
    m.role === "assistant" && costText(m.cost_usd)
      ? h("span", { class: "tl-meta", "data-testid": "step-cost" }, ` · ${costText(m.cost_usd)}`)
      : null,
    m.reasoning
      ? h(
          "details",
          { class: "tl-thinking", "data-testid": "thinking" },
          h("summary", {}, "thinking"),
          h("pre", {}, m.reasoning),
        )
      : null,
    m.role === "assistant" ? requestPart(model, m, local) : null,
  );
  // Redrawn (a request arrived, a child's status changed): what the user opened stays open.
  for (const open of kept?.el.querySelectorAll("details[open]") || []) {
    const again = el.querySelector(`details[data-testid="${open.getAttribute("data-testid")}"]`);
    if (again) /** @type {HTMLDetailsElement} */ (again).open = true;
  }
  local.messages.set(m.id, { el, sig });
  return el;
}

/**
 * A model step's "request": what it was sent, asked of the kernel when first opened.
 * @param {Model} model
 * @param {TraceMessage} m
 * @param {Local} local
 */
function requestPart(model, m, local) {
  const text = local.requests[m.id];
  const part = h(
    "details",
    {
      class: "tl-request",
      "data-testid": "step-request",
      ontoggle: (/** @type {Event} */ e) => {
        const open = /** @type {HTMLDetailsElement} */ (e.currentTarget).open;
        if (open && m.thread && local.requests[m.id] === undefined)
          model.send({ op: "fetch_request", thread: m.thread, message: m.id });
      },
    },
    h("summary", {}, "request"),
    h("pre", {}, text ?? "loading…"),
  );
  return part;
}

/**
 * A call's row: its card, and under it the app of a tool with a UI. The row is kept per call,
 * so the app's frame stays where it is while the view redraws.
 * @param {Model} model
 * @param {Card} c
 * @param {Local} local
 * @param {Record<string, string>} [pages] the trace's app pages, by key
 */
function cardRow(model, c, local, pages = {}) {
  const key = `row ${c.id}`;
  const row = local.cards.get(key)?.el ?? h("div", {});
  row.style.marginLeft = `${c.depth * 16}px`;
  const app = appFrame(model, c, local, pages);
  keepChildren(
    row,
    app ? [card(model, c, local.fetched, local), app] : [card(model, c, local.fetched, local)],
  );
  local.cards.set(key, { el: row, sig: "" });
  return row;
}

/**
 * A thread's messages, with a card under each assistant message per tool call, then what is
 * still streaming: the text so far and the calls whose arguments are arriving.
 * @param {Model} model
 * @param {Trace} trace
 * @param {string} threadId
 * @param {Local} local
 * @returns {HTMLElement[]}
 */
export function conversation(model, trace, threadId, local) {
  const out = [];
  const placed = new Set();
  // A finished thread can be forked at any top-level call or user message.
  const forkable = !model.get("live") && !model.get("offline") && trace.run?.status !== "running";
  /** @param {Card} c */
  const placeCard = (c) => {
    placed.add(c.id);
    out.push(cardRow(model, c, local, trace.apps));
    // A list's opened thread is for reading: a decision is taken where the thread is open.
    const decides = !model.get("offline") && model.get("decides") !== false;
    if (c.status === "waiting" && c.approval?.state === "asked" && decides)
      out.push(decisionControl(model, local, c));
    // A server's form while the call waits for it (a live run: the question is not stored).
    if (c.elicitation?.state === "asked" && model.get("live") && !model.get("offline"))
      out.push(elicitationForm(model, local, c));
    if (forkable && c.depth === 0 && FINAL.has(c.status))
      out.push(
        forkControl(model, local, {
          thread: threadId,
          at: c.id,
          kind: "call",
          result: local.fetched[c.id] ?? c.result,
          args: c.args,
        }),
      );
  };
  const replaying = replayCounts(trace.messages[threadId] || []) !== null;
  const earlier = trace.earlier?.[threadId];
  if (earlier)
    out.push(
      h(
        "div",
        { class: "tl-meta tl-earlier", "data-testid": "earlier" },
        `… ${earlier} earlier ${earlier === 1 ? "message" : "messages"} (step back to see them)`,
      ),
    );
  for (const m of trace.messages[threadId] || []) {
    if (m.role === "tool" || (m.depth > 0 && m.role !== "assistant")) continue;
    // An assistant step that only called tools still shows what it cost (in a replay, how
    // it was answered).
    const shown = m.usage || m.reasoning || (replaying && m.depth === 0);
    if (m.text || (m.role === "assistant" && shown))
      out.push(messageLine(model, m, trace, local, replaying));
    if (forkable && m.role === "user" && m.depth === 0 && !m.subagent)
      out.push(
        forkControl(model, local, { thread: threadId, at: m.id, kind: "message", text: m.text }),
      );
    for (const id of m.calls) {
      const c = trace.cards[id];
      if (c) placeCard(c);
    }
  }
  const draft = trace.drafts?.[threadId];
  if (draft)
    out.push(
      h(
        "div",
        { class: "tl-msg tl-assistant tl-draft", "data-testid": "draft" },
        h("b", {}, "assistant"),
        " ",
        draft,
      ),
    );
  // Calls of a message still streaming: no message lists them yet, but they are under way.
  for (const c of Object.values(trace.cards || {}))
    if (c.thread === threadId && !placed.has(c.id)) placeCard(c);
  return out;
}
