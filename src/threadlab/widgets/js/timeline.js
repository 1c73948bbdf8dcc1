// @ts-check
// The timeline: each model step and tool call of the run, as spans in time.
/** @import {Card, Trace, TraceThread} from "./types.js" */
import { h } from "./dom.js";
import { costText, counted, usageText } from "./text.js";

/**
 * @typedef {{kind: "step" | "call", start: number, end: number, label: string,
 *   detail: () => string}} Span (its detail is written only for a span drawn)
 */

/**
 * @param {number} seconds
 * @returns {string}
 */
function duration(seconds) {
  if (seconds < 1) return `${Math.round(seconds * 1000)} ms`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 48 * 60
    ? `${Math.floor(minutes / 60)} h ${minutes % 60} min`
    : `${Math.round(minutes / (24 * 60))} days`;
}

/**
 * What each thread did when: its model steps (from the message before a step to the step's
 * own message) and its tool calls (their runs), with latency, tokens and cost.
 * @param {Trace} trace
 * @param {TraceThread} t
 * @param {Card[]} calls its calls
 * @returns {Span[]}
 */
function spansOf(trace, t, calls) {
  /** @type {Span[]} */
  const spans = [];
  /** @type {Record<number, number>} the last message's time, by depth (a prompt tool's own) */
  const last = {};
  for (const m of trace.messages[t.id] || []) {
    if (typeof m.at !== "number") continue;
    // A step starts after the message before it, and not before its run started (a run
    // paused before the step, for a person, was nobody's time).
    const before = last[m.depth];
    const from =
      before !== undefined && typeof m.since === "number" ? Math.max(before, m.since) : before;
    if (m.role === "assistant" && from !== undefined) {
      const at = m.at;
      spans.push({
        kind: "step",
        start: from,
        end: at,
        label: "model",
        detail: () =>
          [
            `model step · ${duration(at - from)}`,
            m.usage ? usageText(m.usage) : "",
            costText(m.cost_usd),
          ]
            .filter((x) => x)
            .join(" · "),
      });
    }
    last[m.depth] = m.at;
  }
  for (const c of calls) {
    if (typeof c.finished_at !== "number" || c.duration_ms === null) continue;
    const took = c.duration_ms / 1000;
    spans.push({
      kind: "call",
      start: c.finished_at - took,
      end: c.finished_at,
      label: c.name,
      detail: () => `${c.name}${c.label ? ` ${c.label}` : ""} · ${duration(took)} · ${c.status}`,
    });
  }
  return spans;
}

/** A stretch with nothing running longer than this is idle: left out of the axis. */
export const IDLE_S = 1;

/**
 * The run's time axis with its idle stretches left out (between runs, a branch's history and
 * its own run, a wait for a person's decision): where each moment is drawn, the time drawn,
 * the time left out and where each stretch left out was.
 * @param {Span[]} spans
 */
function axisOf(spans) {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const t0 = sorted[0].start;
  /** @type {Array<{from: number, to: number}>} idle stretches, in order */
  const idle = [];
  let reached = sorted[0].end;
  for (const x of sorted) {
    if (x.start - reached > IDLE_S) idle.push({ from: reached, to: x.start });
    reached = Math.max(reached, x.end);
  }
  /** @param {number} t @returns {number} seconds from the start, idle stretches left out */
  const at = (t) => {
    let left = 0;
    for (const gap of idle) {
      if (t <= gap.from) break;
      left += Math.min(t, gap.to) - gap.from;
    }
    return t - t0 - left;
  };
  const leftOut = idle.reduce((acc, gap) => acc + (gap.to - gap.from), 0);
  return { at, total: at(reached), leftOut, breaks: idle.map((gap) => at(gap.from)) };
}

/**
 * Each thread's spans, subagents under their parent.
 * @param {Trace} trace
 * @returns {Array<{t: TraceThread, depth: number, spans: Span[]}>}
 */
function lanesOf(trace) {
  /** @type {Array<{t: TraceThread, depth: number, spans: Span[]}>} */
  const rows = [];
  const own = trace.threads.filter((t) => !t.relation);
  const ids = new Set(own.map((t) => t.id));
  /** @type {Map<string, Card[]>} */
  const calls = new Map();
  for (const c of Object.values(trace.cards)) {
    const listed = calls.get(c.thread);
    if (listed) listed.push(c);
    else calls.set(c.thread, [c]);
  }
  // A lane's parent is a thread of the run: a branch's root hangs under its origin's node in
  // the tree, which is not the run's (it has lanes of its own only when opened).
  /** @param {TraceThread} t */
  const parentOf = (t) => (t.parent && ids.has(t.parent) ? t.parent : null);
  /** @param {string | null} parent @param {number} depth */
  const walk = (parent, depth) => {
    for (const t of own.filter((x) => parentOf(x) === parent)) {
      rows.push({ t, depth, spans: spansOf(trace, t, calls.get(t.id) || []) });
      walk(t.id, depth + 1);
    }
  };
  walk(null, 0);
  return rows;
}

/**
 * The run on a time axis, a lane per thread (subagents under their parent): a bar per model
 * step and per tool call, its latency, tokens and cost in its tooltip and its lane's line. A
 * stretch where nothing ran is left out of the axis and said in the head: a branch run today
 * from a history of last week reads its steps' time, not the week between.
 * @param {Trace} trace
 * @param {boolean} [drawn] whether its lanes are on screen: a closed timeline has only its
 *   head to show, and a player redraws it at every step
 * @returns {{head: string, lanes: HTMLElement[]}}
 */
export function timeline(trace, drawn = true) {
  // A trace drawn from its last messages (a long history in the player) is counted whole:
  // the head and the time axis are the thread's, the lanes show what is drawn.
  const whole = lanesOf(trace.uncut ? { ...trace, ...trace.uncut } : trace);
  const all = whole.flatMap((r) => r.spans);
  if (!all.length) return { head: "timeline", lanes: [] };
  const axis = axisOf(all);
  const total = axis.total || 1;
  const steps = all.filter((x) => x.kind === "step");
  const calls = all.filter((x) => x.kind === "call");
  /** @param {Span[]} spans */
  const sum = (spans) => spans.reduce((acc, x) => acc + (x.end - x.start), 0);
  const idle = axis.leftOut ? ` (${duration(axis.leftOut)} idle, not drawn)` : "";
  const head =
    `timeline · ${duration(axis.total)}${idle} · ${counted(steps.length, "model step")}` +
    ` (${duration(sum(steps))}) · ${counted(calls.length, "call")} (${duration(sum(calls))})`;
  if (!drawn) return { head, lanes: [] };
  const rows = trace.uncut ? lanesOf(trace) : whole;
  const lanes = rows.map(({ t, depth, spans }) =>
    h(
      "div",
      { class: "tl-lane", "data-testid": "timeline-lane", "data-thread": t.id },
      h(
        "div",
        { class: "tl-lane-name", style: `padding-left:${Math.min(depth, 8) * 10}px` },
        t.name || t.agent || t.id,
      ),
      h(
        "div",
        { class: "tl-lane-track" },
        spans.map((x) =>
          h(
            "span",
            {
              class: `tl-span tl-span-${x.kind}`,
              "data-testid": `timeline-${x.kind}`,
              title: x.detail(),
              style:
                `left:${((axis.at(x.start) / total) * 100).toFixed(2)}%;` +
                `width:${Math.max(((axis.at(x.end) - axis.at(x.start)) / total) * 100, 0.5).toFixed(2)}%`,
            },
            x.label,
          ),
        ),
      ),
    ),
  );
  lanes.push(
    h(
      "div",
      { class: "tl-lane tl-axis" },
      h("div", { class: "tl-lane-name" }, ""),
      h(
        "div",
        { class: "tl-lane-track" },
        h("span", {}, "0"),
        // Where an idle stretch was left out.
        axis.breaks.map((x) =>
          h("i", {
            class: "tl-break",
            "data-testid": "timeline-break",
            title: "idle, not drawn",
            style: `left:${((x / total) * 100).toFixed(2)}%`,
          }),
        ),
        h("span", {}, duration(axis.total)),
      ),
    ),
  );
  return { head, lanes };
}
