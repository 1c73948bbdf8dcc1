// @ts-check
// The subagent tree: the thread and its descendants, with status and progress.
/** @import {Trace, TraceThread} from "./types.js" */
import { h } from "./dom.js";
import { costText } from "./text.js";

/**
 * The thread and its descendants; clicking a node selects it.
 * @param {Trace} trace
 * @param {string} selected
 * @param {(id: string) => void} select
 */
export function tree(trace, selected, select) {
  /** @type {Record<string, TraceThread[]>} */
  const kids = {};
  for (const t of trace.threads) {
    const key = t.parent || "";
    kids[key] = kids[key] || [];
    kids[key].push(t);
  }
  /**
   * What a thread's subtree is doing: its descendants' progress rolled up ("2 below:
   * writing a.html"), so a collapsed or distant parent still says what goes on under it.
   * @param {TraceThread} t
   * @returns {string}
   */
  const below = (t) => {
    /** @type {string[]} */
    const busy = [];
    const walk = (/** @type {TraceThread} */ at) => {
      for (const child of kids[at.id] || []) {
        if (child.progress) busy.push(child.progress);
        walk(child);
      }
    };
    walk(t);
    return busy.length ? `${busy.length} below: ${busy[0]}` : "";
  };
  /** @param {TraceThread} t @returns {HTMLElement} */
  const node = (t) =>
    h(
      "li",
      {},
      h(
        "button",
        {
          class: `tl-node${t.id === selected ? " tl-selected" : ""}`,
          "data-testid": "tree-node",
          "data-thread": t.id,
          onclick: () => select(t.id),
        },
        h("b", {}, t.name || t.agent || t.id),
        // A related thread (the origin of a branch, a branch) is told by its name and its
        // id, which opens it; a status of its own is not shown.
        t.relation
          ? h("span", { class: "tl-meta", "data-testid": "related-id", title: t.id }, shortId(t.id))
          : h("span", { class: `tl-status tl-${t.status}` }, t.status),
        t.progress ? h("span", { class: "tl-progress" }, t.progress) : null,
        below(t)
          ? h("span", { class: "tl-progress tl-below", "data-testid": "progress-below" }, below(t))
          : null,
        costText(t.cost_usd)
          ? h(
              "span",
              { class: "tl-meta", "data-testid": "thread-cost" },
              ` ${costText(t.cost_usd)}`,
            )
          : null,
      ),
      kids[t.id] ? h("ul", {}, kids[t.id].map(node)) : null,
    );
  return h("ul", { class: "tl-tree", "data-testid": "subagent-tree" }, (kids[""] || []).map(node));
}

/**
 * A thread's id short enough for the tree ("thr_3f2a1b0c…"); the whole of it is the node's
 * tooltip.
 * @param {string} id
 */
function shortId(id) {
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}
