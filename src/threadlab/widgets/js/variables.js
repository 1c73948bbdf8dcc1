// @ts-check
// The variables at a point of the player: each thread's, as the kernel put them on the points
// where they changed (a secret only ever as `[secret:NAME]`: its value never leaves the
// kernel), read as of the point, the shown thread's first and then its parents'.
/** @import {Model, Trace} from "./types.js" */
/** @import {Point} from "./player.js" */
import { h } from "./dom.js";

/**
 * Each thread's variables as of point `at`: those on the thread's latest point at or before
 * it that carries them (its first point does, and each one where they changed). A secret is
 * only ever `[secret:NAME]` there: its value never leaves the kernel.
 * @param {Point[]} points
 * @param {number} at
 * @returns {Record<string, Record<string, string>>}
 */
export function envAt(points, at) {
  /** @type {Record<string, Record<string, string>>} */
  const env = {};
  const last = Math.min(at, points.length - 1);
  for (let i = 0; i <= last; i++) {
    const p = points[i];
    if (p.env) env[p.thread] = p.env;
  }
  return env;
}

/**
 * The variables of thread `id` (of `envAt`), then those of each thread above it: each
 * thread's own, under its name.
 * @param {Record<string, Record<string, string>>} envs
 * @param {Trace} trace
 * @param {string} id
 * @returns {Array<{thread: string, name: string, values: [string, string][]}>}
 */
export function variablesOf(envs, trace, id) {
  const byId = new Map(trace.threads.map((t) => [t.id, t]));
  const out = [];
  const seen = new Set();
  for (let t = byId.get(id); t && envs[t.id] && !seen.has(t.id); t = byId.get(t.parent || "")) {
    seen.add(t.id);
    out.push({ thread: t.id, name: t.name || t.agent || t.id, values: Object.entries(envs[t.id]) });
  }
  return out;
}

/** The most of a variable's value the player shows (all of it is in its tooltip). */
const SHOWN_VALUE = 120;

/**
 * The variables line: the shown thread's variables at the point, and its parents'.
 * @param {Model} model
 * @param {Point[]} points
 * @param {number} at
 * @param {Trace} trace
 * @param {string} id the thread shown
 * @returns {Node[]}
 */
export function variablesLine(model, points, at, trace, id) {
  // Every told history carries its root's variables on its first point.
  if (!points[0]?.env)
    return model.get("narrating")
      ? [h("span", { class: "tl-meta" }, "(the variables are on their way: a moment…)")]
      : [];
  const value = (/** @type {string} */ text) =>
    h(
      "code",
      {
        class: /^\[secret:[^\]]+\]$/.test(text) ? "tl-secret" : "tl-value",
        title: text.length > SHOWN_VALUE ? text.slice(0, 4000) : null,
      },
      text.length > SHOWN_VALUE ? `${text.slice(0, SHOWN_VALUE)}…` : text,
    );
  // The shown thread's own (none is worth saying), then those of the threads above it that
  // have any.
  const groups = variablesOf(envAt(points, at), trace, id).filter(
    (group, i) => i === 0 || group.values.length,
  );
  if (!groups.some((group) => group.values.length))
    return [
      h("span", { class: "tl-meta", "data-testid": "no-variables" }, "no variables at this point"),
    ];
  return [
    h("span", { class: "tl-heading" }, "variables then"),
    ...groups.map(({ thread, name, values }) =>
      h(
        "span",
        { class: "tl-env-group", "data-thread": thread },
        h("b", {}, name),
        ...(values.length
          ? values.map(([key, text]) =>
              h(
                "span",
                {
                  class: "tl-variable",
                  "data-testid": "player-variable",
                  "data-thread": thread,
                  "data-name": key,
                },
                h("code", {}, key),
                " = ",
                value(text),
              ),
            )
          : [h("span", { class: "tl-meta" }, "no variables")]),
      ),
    ),
  ];
}
