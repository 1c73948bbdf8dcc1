// @ts-check
// The thread list: the store's threads, newest first, one opened below.
/** @import {Local, Model, ThreadRow} from "./types.js" */
import { h } from "./dom.js";
import { inspector } from "./inspector.js";
import { NO_KERNEL } from "./text.js";

/** Rows of the thread list shown at a time (and added by "show more"). */
export const PAGE = 50;

// What `Date.prototype.toLocaleString()` writes (the person's locale, date and time), from
// one formatter: that method makes a new one per call, and the list redraws at each key
// typed into its search.
const WHEN = new Intl.DateTimeFormat(undefined, {
  year: "numeric",
  month: "numeric",
  day: "numeric",
  hour: "numeric",
  minute: "numeric",
  second: "numeric",
});

/**
 * Persisted threads, newest first, with the opened one's inspector below.
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Local} local
 */
export function threadList(model, el, local) {
  /** @type {ThreadRow[]} */
  const rows = model.get("rows") || [];
  const opened = model.get("opened") || {};
  const query = local.listQuery.trim().toLowerCase();
  const matching = query
    ? rows.filter((r) =>
        [r.id, r.agent, r.notebook || r.origin || "", r.status, r.forked_from || ""].some((f) =>
          f.toLowerCase().includes(query),
        ),
      )
    : rows;
  const shown = matching.slice(0, local.listShown);
  const search = /** @type {HTMLInputElement} */ (
    h("input", {
      class: "tl-reason tl-search",
      "data-testid": "thread-search",
      placeholder: "search by id, agent, notebook or status",
      "aria-label": "search threads",
      oninput: () => {
        local.listQuery = search.value;
        local.listShown = PAGE;
        local.redraw();
        const again = /** @type {HTMLInputElement | null} */ (
          el.querySelector("[data-testid=thread-search]")
        );
        again?.focus();
        again?.setSelectionRange(again.value.length, again.value.length);
      },
    })
  );
  search.value = local.listQuery;
  const table = h(
    "table",
    { class: "tl-list", "data-testid": "thread-list" },
    h(
      "tr",
      {},
      ["thread", "agent", "notebook", "created", "status", "messages", "subagents", ""].map((c) =>
        h("th", {}, c),
      ),
    ),
    shown.map((r) =>
      h(
        "tr",
        {
          class: r.id === opened.root ? "tl-opened" : "",
          "data-testid": "thread-row",
          "data-thread": r.id,
        },
        h(
          "td",
          {},
          h("code", {}, r.id),
          // A branch says which thread it came from: found by that thread's id too.
          r.forked_from
            ? h(
                "div",
                { class: "tl-branch-of", "data-testid": "branch-of" },
                "branch of ",
                h("code", {}, r.forked_from),
              )
            : null,
        ),
        h("td", {}, r.agent),
        h("td", { title: r.origin || "" }, r.notebook || r.origin || ""),
        h("td", { class: "tl-date" }, WHEN.format(new Date(r.created_at * 1000))),
        h("td", {}, r.status),
        h("td", {}, r.messages),
        h("td", {}, r.children),
        h(
          "td",
          {},
          h(
            "button",
            {
              class: "tl-open",
              "data-testid": "open-thread",
              disabled: model.get("offline") ? "" : null,
              title: model.get("offline") ? NO_KERNEL : null,
              onclick: () => model.send({ op: "open", thread: r.id }),
            },
            "open",
          ),
        ),
      ),
    ),
  );
  const more =
    matching.length > shown.length
      ? h(
          "button",
          {
            class: "tl-more",
            "data-testid": "more-threads",
            onclick: () => {
              local.listShown += PAGE;
              local.redraw();
            },
          },
          `show ${Math.min(PAGE, matching.length - shown.length)} more of ${matching.length}`,
        )
      : null;
  const holder = h("div", {});
  el.replaceChildren(h("div", {}, search, table, more, holder));
  if (opened.root) inspector(model, holder, opened, local);
}
