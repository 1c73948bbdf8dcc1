// @ts-check
// The instructor's view of a class: per member, their latest thread of the exercise, where
// it stands and its grade; one opened below (its inspector, which steps through it).
/** @import {ClassRow, Local, Model} from "./types.js" */
import { h } from "./dom.js";
import { inspector } from "./inspector.js";
import { NO_KERNEL } from "./text.js";

/**
 * A row's grade in a few characters: "3 / 4", or "" when the view grades nothing.
 * @param {ClassRow} r
 */
function grade(r) {
  return r.score === null || r.max_score === null ? "" : `${r.score} / ${r.max_score}`;
}

/**
 * The class, one member a row, with the opened member's thread below.
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Local} local
 */
export function classView(model, el, local) {
  /** @type {ClassRow[]} */
  const rows = model.get("rows") || [];
  const opened = model.get("opened") || {};
  const exercise = model.get("exercise") || "";
  const offline = Boolean(model.get("offline"));
  // Checks given: the grade columns show, with each row's grade or why it has none.
  const graded = Boolean(model.get("graded")) || rows.some((r) => r.max_score !== null);
  const columns = ["member", "thread", "status", "calls", "where it stands"];
  if (graded) columns.push("grade", "feedback");
  columns.push("");
  const heading = h(
    "p",
    { class: "tl-class-head", "data-testid": "class-heading" },
    `${rows.length} member${rows.length === 1 ? "" : "s"}`,
    exercise ? ` · exercise ${exercise}` : " · every target",
    model.get("live") ? " · updates while they run" : "",
  );
  const table = h(
    "table",
    { class: "tl-list", "data-testid": "class-list" },
    h(
      "tr",
      {},
      columns.map((c) => h("th", {}, c)),
    ),
    rows.map((r) =>
      h(
        "tr",
        {
          class: r.thread && r.thread === opened.root ? "tl-opened" : "",
          "data-testid": "class-row",
          "data-member": r.member,
        },
        h("td", {}, r.member),
        h("td", {}, r.thread ? h("code", {}, r.thread) : "—"),
        h("td", {}, r.status),
        h("td", {}, r.calls),
        h("td", { class: "tl-where" }, r.where),
        graded ? h("td", { "data-testid": "class-grade" }, grade(r)) : null,
        graded ? h("td", { class: "tl-where" }, r.feedback) : null,
        h(
          "td",
          {},
          r.thread
            ? h(
                "button",
                {
                  class: "tl-open",
                  "data-testid": "open-member",
                  "aria-label": `open ${r.member}'s thread`,
                  disabled: offline ? "" : null,
                  title: offline ? NO_KERNEL : null,
                  onclick: () => model.send({ op: "open", thread: r.thread || "" }),
                },
                "open",
              )
            : null,
        ),
      ),
    ),
  );
  /** @type {string[]} */
  const known = model.get("exercises") || [];
  const none =
    !rows.length && exercise
      ? h(
          "p",
          { class: "tl-meta", "data-testid": "class-none" },
          `no member has a thread of ${exercise}`,
          known.length ? ` (the members' threads are of: ${known.join(", ")})` : "",
        )
      : null;
  const holder = h("div", {});
  const whose = rows.find((r) => r.thread && r.thread === opened.root);
  const title = whose
    ? h(
        "p",
        { class: "tl-class-head", tabindex: "-1", "data-testid": "class-opened" },
        `${whose.member}'s thread`,
      )
    : null;
  el.replaceChildren(h("div", {}, heading, table, none, title, holder));
  if (opened.root) inspector(model, holder, opened, local);
  // Newly opened (a click, or Enter on "open"): it comes into sight, the focus with it.
  if (title && local.memory.shownMember !== opened.root) {
    local.memory.shownMember = opened.root;
    title.scrollIntoView?.({ block: "nearest" });
    title.focus({ preventScroll: true });
  }
}
