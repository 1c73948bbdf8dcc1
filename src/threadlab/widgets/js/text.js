// @ts-check
// How values read in a view: statuses, progress, pace, durations, usage and cost.
/** @import {Approval, Card, CardEvent, Local, TraceMessage} from "./types.js" */

export const FINAL = new Set(["success", "error", "interrupted"]);

// One formatter for every count: `toLocaleString` makes a new one per call (a fraction of a
// millisecond each: a list of files took longer to number than to draw).
const NUMBERS = new Intl.NumberFormat("en");

/**
 * A count with its thousands marked: "12,345".
 * @param {number} n
 * @returns {string}
 */
export function countText(n) {
  return NUMBERS.format(n);
}

/**
 * A count and what it counts, singular for one: "1 call", "12 calls", "1,200 model steps".
 * @param {number} n
 * @param {string} noun
 * @param {string} [plural] when it is not the noun and an "s"
 * @returns {string}
 */
export function counted(n, noun, plural = `${noun}s`) {
  return `${countText(n)} ${n === 1 ? noun : plural}`;
}

/** @type {Record<string, string>} */
export const MARK = {
  success: "✓",
  error: "✗",
  interrupted: "✗",
  running: "⟳",
  queued: "⋯",
  streaming: "…",
  waiting: "‖",
};

/** @type {Record<string, string>} */
const DECIDERS = {
  approver: "by the runtime's approver",
  api: "through the API",
  view: "in the view",
};

/**
 * What a card says of its call's decision ("approved with edited arguments (in the view)").
 * @param {Approval} a
 * @returns {string}
 */
export function decisionText(a) {
  if (a.state === "asked") return "waits for your decision";
  const edited = a.edited ? ` with edited arguments ${a.arguments}` : "";
  const why = a.state === "rejected" && a.reason ? `: ${a.reason}` : "";
  return `${a.state}${edited}${why} (${DECIDERS[a.by || "api"] || a.by})`;
}

/**
 * When the browser first saw a call, and when it started running: the elapsed counters count
 * from these (browser time, so a kernel on another clock does not skew them).
 * @param {Local} local
 * @param {Card} c
 */
export function clockOf(local, c) {
  const now = Date.now();
  if (!local.clock[c.id]) local.clock[c.id] = { seen: now, started: null };
  const clock = local.clock[c.id];
  if (c.status === "running" && clock.started === null) clock.started = now;
  return clock;
}

/**
 * Seconds since `since` (ms), as the counters show them.
 * @param {number} since
 */
export function elapsed(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/**
 * A "progress" event's position, if it says one: {"step": 3, "of": 12} (also done/total,
 * current/total) or {"fraction": 0.25} (or a bare number between 0 and 1).
 * @param {CardEvent} e
 * @returns {{value: number, max: number, label: string} | null}
 */
export function progressOf(e) {
  if (e.type !== "progress") return null;
  const d = /** @type {any} */ (e.data);
  if (typeof d === "number" && d >= 0 && d <= 1)
    return { value: d, max: 1, label: `${Math.round(d * 100)}%` };
  if (!d || typeof d !== "object") return null;
  const step = d.step ?? d.done ?? d.current;
  const of = d.of ?? d.total;
  if (typeof step === "number" && typeof of === "number" && of > 0)
    return { value: Math.min(step, of), max: of, label: `${step} / ${of}` };
  const fraction = d.fraction ?? d.progress;
  if (typeof fraction === "number" && fraction >= 0 && fraction <= 1)
    return { value: fraction, max: 1, label: `${Math.round(fraction * 100)}%` };
  return null;
}

/**
 * The last position a call's progress events gave, like a tqdm bar shows it.
 * @param {CardEvent[]} events
 */
export function latestProgress(events) {
  for (let i = events.length - 1; i >= 0; i--) {
    const found = progressOf(events[i]);
    if (found) return { ...found, label: found.label + pace(events, found) };
  }
  return null;
}

/**
 * Rate and time left of an unfinished progress, from its first and latest events' times
 * (" · 1.5/s · ETA 4s", like tqdm); "" when there is nothing to tell yet.
 * @param {CardEvent[]} events
 * @param {{value: number, max: number}} now
 * @returns {string}
 */
function pace(events, now) {
  const timed = events
    .map((e) => ({ at: e.at, found: progressOf(e) }))
    .filter((e) => e.found && typeof e.at === "number");
  if (timed.length < 2 || now.value >= now.max) return "";
  const first = timed[0];
  const last = timed[timed.length - 1];
  const seconds = /** @type {number} */ (last.at) - /** @type {number} */ (first.at);
  const done = /** @type {any} */ (last.found).value - /** @type {any} */ (first.found).value;
  if (seconds <= 0 || done <= 0) return "";
  const rate = done / seconds;
  const left = Math.max(1, Math.round((now.max - now.value) / rate));
  const shown = now.max === 1 ? `${Math.round(rate * 100)}%/s` : `${rate.toFixed(1)}/s`;
  return ` · ${shown} · ETA ${left < 60 ? `${left}s` : `${Math.ceil(left / 60)} min`}`;
}

/**
 * A custom event's data as a line a person reads: "key: value, key: value", not JSON.
 * @param {unknown} data
 * @returns {string}
 */
export function readable(data) {
  if (data === null || data === undefined) return "";
  if (typeof data !== "object") return String(data);
  if (Array.isArray(data)) return data.map(readable).join(", ");
  return Object.entries(data)
    .map(([key, value]) => `${key}: ${typeof value === "object" ? JSON.stringify(value) : value}`)
    .join(", ");
}

/**
 * A failed call's error in one line: the traceback's exception when it has one, else the
 * error's first line, cut at 120 characters.
 * @param {Card} c
 * @returns {string}
 */
export function errorLine(c) {
  const lines = (c.traceback || c.result || "").trim().split("\n");
  const line = c.traceback ? lines[lines.length - 1] : lines[0];
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

const USAGE_WORDS = [
  ["input_tokens", "in"],
  ["output_tokens", "out"],
  ["cached_tokens", "cached"],
];

/**
 * A cost in words ("$0.0032", "cost unknown" for null); "" when nothing was spent.
 * @param {number | null | undefined} cost
 * @returns {string}
 */
export function costText(cost) {
  if (cost === null) return "cost unknown";
  if (!cost) return "";
  return `$${cost < 1 ? cost.toFixed(4) : cost.toFixed(2)}`;
}

/**
 * Token counts in words ("120 in / 35 out tokens"); "" when there are none.
 * @param {Record<string, number> | null | undefined} usage
 * @returns {string}
 */
export function usageText(usage) {
  if (!usage) return "";
  const parts = USAGE_WORDS.filter(([key]) => key in usage).map(
    ([key, word]) => `${countText(usage[key])} ${word}`,
  );
  return parts.length ? `${parts.join(" / ")} tokens` : "";
}

/** What a view asks of the kernel, answered when no kernel is there to ask. */
export const NO_KERNEL =
  "not kept in the notebook: the kernel that made this view is gone (%threadlab open the thread to see it)";

/**
 * How a replay's model steps were answered, for a thread that replays another's recording:
 * [replayed from the recording, answered by a model]; null for a thread that replays nothing.
 * @param {TraceMessage[]} messages
 * @returns {[number, number] | null}
 */
export function replayCounts(messages) {
  const steps = messages.filter((m) => m.role === "assistant" && m.depth === 0);
  const replayed = steps.filter((m) => m.model === "replay").length;
  return replayed ? [replayed, steps.length - replayed] : null;
}
