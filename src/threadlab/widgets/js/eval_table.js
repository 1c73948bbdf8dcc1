// @ts-check
// An evaluation's table: cases down, models across, a run in each cell.
/** @import {EvalCell, Local, Model} from "./types.js" */
import { h } from "./dom.js";
import { inspector } from "./inspector.js";
import { NO_KERNEL } from "./text.js";

/**
 * An evaluation: a progress bar with the time left while it runs, filters, and a table of
 * cases down and models across; each cell is a run (clicking it opens its thread below).
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Local} local
 */
export function evalTable(model, el, local) {
  /** @type {EvalCell[]} */
  const rows = model.get("rows") || [];
  /** @type {string[]} */
  const models = model.get("models") || [];
  /** @type {string[]} */
  const cases = model.get("cases") || [];
  const total = model.get("total") || rows.length;
  const finished = model.get("finished");
  const opened = model.get("opened") || {};
  const byCase = new Map(cases.map((c) => [c, rows.filter((r) => r.case === c)]));
  const differs = (/** @type {EvalCell[]} */ runs) =>
    new Set(runs.map((r) => `${r.status} ${r.passed} ${JSON.stringify(r.scores)}`)).size > 1;
  const shownCases = cases.filter((c) => {
    const runs = byCase.get(c) || [];
    if (local.evalFailures && !runs.some((r) => !r.passed)) return false;
    if (local.evalDifferences && !differs(runs)) return false;
    return true;
  });
  const passed = rows.filter((r) => r.passed).length;
  const elapsedS = Date.now() / 1000 - (model.get("started_at") || 0);
  const left =
    !finished && rows.length > 0 ? (elapsedS / rows.length) * (total - rows.length) : null;
  const progress = h(
    "div",
    { class: "tl-bar", "data-testid": "eval-progress" },
    h("progress", { max: String(total), value: String(rows.length) }),
    h(
      "span",
      {},
      `${rows.length} / ${total} runs, ${passed} passed` +
        (finished ? "" : left === null ? " · starting" : ` · about ${Math.ceil(left)} s left`),
    ),
  );
  const filter = (
    /** @type {string} */ label,
    /** @type {"evalFailures" | "evalDifferences"} */ key,
  ) => {
    const box = /** @type {HTMLInputElement} */ (
      h("input", {
        type: "checkbox",
        "data-testid": `eval-${key}`,
        onchange: () => {
          local[key] = box.checked;
          local.redraw();
        },
      })
    );
    box.checked = local[key];
    return h("label", { class: "tl-eval-filter" }, box, ` ${label}`);
  };
  const cellOf = (/** @type {EvalCell} */ r) =>
    h(
      "button",
      {
        class: `tl-eval-run ${r.passed ? "tl-eval-pass" : "tl-eval-fail"}${
          r.thread && r.thread === opened.root ? " tl-opened" : ""
        }`,
        "data-testid": "eval-cell",
        "data-thread": r.thread || "",
        disabled: !r.thread || model.get("offline") ? "" : null,
        title: [
          Object.entries(r.scores)
            .map(([k, v]) => `${k}: ${v}`)
            .join("\n"),
          `${r.status} · ${r.ms} ms · ${r.tokens} tokens` +
            (r.cost_usd === null ? " · cost unknown" : ` · $${r.cost_usd.toFixed(4)}`),
          r.error || "",
          r.note || "",
          model.get("offline") ? NO_KERNEL : "",
        ]
          .filter(Boolean)
          .join("\n"),
        onclick: () => r.thread && model.send({ op: "open", thread: r.thread }),
      },
      `${r.passed ? "✓" : "✗"} ${r.status === "completed" ? "" : `${r.status} `}${r.ms} ms`,
    );
  const table = h(
    "table",
    { class: "tl-list tl-eval", "data-testid": "eval-table" },
    h(
      "tr",
      {},
      h("th", {}, "case"),
      models.map((m) => h("th", {}, m)),
    ),
    shownCases.map((c) =>
      h(
        "tr",
        { "data-case": c },
        h("th", {}, c),
        models.map((m) => {
          const runs = (byCase.get(c) || []).filter((r) => r.model === m);
          return h(
            "td",
            {},
            runs.length ? runs.map(cellOf) : h("span", { class: "tl-muted" }, "…"),
          );
        }),
      ),
    ),
  );
  const holder = h("div", {});
  el.replaceChildren(
    h(
      "div",
      { class: "tl-eval-view" },
      h("div", { class: "tl-heading" }, `eval ${model.get("name")}: ${model.get("target")}`),
      progress,
      h(
        "div",
        {},
        filter("failures only", "evalFailures"),
        filter("where the models differ", "evalDifferences"),
      ),
      table,
      holder,
    ),
  );
  if (opened.root) inspector(model, holder, opened, local);
}
