// One thread of the Threads panel's list: its row, drawn once and brought up to date in
// place (a poll changes a status or a time, never the element a person has selected).
/** @import {Listed} from "./threads_api.js" */

const COMPACT = new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 });
const WHOLE = new Intl.NumberFormat("en");

/**
 * A thread's id short enough for a row or a tab ("thr_3f2a1b0c"); the whole of it is the
 * row's tooltip.
 * @param {string} id
 */
export function shortId(id) {
  return id.length > 12 ? id.slice(0, 12) : id;
}

/**
 * How long ago `at` was, in a few words ("just now", "5 min ago", "3 h ago", "2 d ago"), a
 * date past a week.
 * @param {number} at seconds since the epoch
 * @param {number} now seconds since the epoch
 */
export function ago(at, now) {
  const seconds = Math.max(0, now - at);
  if (seconds < 45) return "just now";
  if (seconds < 3600) return `${Math.max(1, Math.round(seconds / 60))} min ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)} h ago`;
  if (seconds < 7 * 86400) return `${Math.round(seconds / 86400)} d ago`;
  return new Date(at * 1000).toLocaleDateString();
}

/**
 * A duration in a few characters: "0.4 s", "12 s", "3 min 5 s", "1 h 2 min".
 * @param {number} seconds
 */
export function durationText(seconds) {
  if (seconds < 10) return `${seconds.toFixed(1)} s`;
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  return `${Math.floor(whole / 3600)} h ${Math.floor((whole % 3600) / 60)} min`;
}

/**
 * The tokens a thread's model steps reported, in and out together; 0 when none.
 * @param {Record<string, number>} usage
 */
export function tokens(usage) {
  return (usage.input_tokens || 0) + (usage.output_tokens || 0);
}

/**
 * The words of a row's second line: where it came from (and the thread it is a branch of),
 * what it spent, how long it ran.
 * @param {Listed} t
 * @returns {Array<[string, string, string]>} [part, text, tooltip]
 */
function facts(t) {
  /** @type {Array<[string, string, string]>} */
  // A notebook's thread names its notebook (its file name; the whole path on hover).
  const notebook = t.origin === "notebook" && t.made_in ? t.made_in.split("/").pop() : "";
  const parts = [["origin", notebook || t.origin || "script", t.made_in || ""]];
  if (t.forked_from) {
    parts.push(["branch", `branch of ${shortId(t.forked_from)}`, `forked from ${t.forked_from}`]);
  }
  const used = tokens(t.usage || {});
  if (used) {
    const kinds = Object.entries(t.usage).map(([k, n]) => `${WHOLE.format(n)} ${k}`);
    parts.push(["tokens", `${COMPACT.format(used)} tokens`, kinds.join(", ")]);
  }
  if (t.cost_usd !== null && t.cost_usd !== undefined) {
    const cost = t.cost_usd;
    const text = cost === 0 ? "$0" : `$${cost < 1 ? cost.toFixed(4) : cost.toFixed(2)}`;
    parts.push(["cost", text, "what its model steps cost, from known prices"]);
  }
  if (t.duration_s) parts.push(["duration", durationText(t.duration_s), "how long its runs ran"]);
  return parts;
}

/**
 * A row's element for `t`, empty: `updateRow` fills it.
 * @param {Listed} t
 */
export function newRow(t) {
  const row = document.createElement("li");
  row.className = "tl-threads-row";
  row.setAttribute("role", "option");
  row.dataset.testid = "threads-row";
  row.dataset.thread = t.id;
  row.id = `tl-threads-row-${t.id}`;
  row.innerHTML =
    '<div class="tl-threads-line"><span class="tl-threads-target"></span>' +
    '<span class="tl-threads-status"></span><time class="tl-threads-when"></time></div>' +
    '<div class="tl-threads-facts"></div>';
  return row;
}

/**
 * Bring `row` up to date with `t` as of `now`, touching only what changed.
 * @param {HTMLElement} row
 * @param {Listed} t
 * @param {number} now seconds since the epoch
 */
export function updateRow(row, t, now) {
  const [line, factsEl] = /** @type {HTMLElement[]} */ ([...row.children]);
  const [target, status, when] = /** @type {HTMLElement[]} */ ([...line.children]);
  set(target, t.target);
  set(status, t.status);
  const kind = t.status.replace(/\s+/g, "-");
  if (status.dataset.status !== kind) {
    status.dataset.status = kind;
    status.className = `tl-threads-status tl-status tl-${kind}`;
  }
  row.dataset.status = t.status;
  const active = t.updated_at || t.created_at;
  set(when, ago(active, now));
  const created = new Date(t.created_at * 1000).toLocaleString();
  const last = new Date(active * 1000).toLocaleString();
  setAttr(when, "title", `created ${created}; last active ${last}`);
  setAttr(row, "title", `${t.target} · ${t.id}`);
  const parts = facts(t);
  const wanted = [...parts.map((p) => p.join(":")), `id:${shortId(t.id)}`];
  if (factsEl.dataset.drawn !== wanted.join("|")) {
    factsEl.dataset.drawn = wanted.join("|");
    factsEl.replaceChildren(
      ...parts.map(([part, text, tip]) => fact(part, text, tip)),
      fact("id", shortId(t.id), t.id),
    );
  }
}

/**
 * @param {string} part
 * @param {string} text
 * @param {string} tip
 */
function fact(part, text, tip) {
  const span = document.createElement("span");
  span.className = `tl-threads-fact tl-threads-${part}`;
  span.textContent = text;
  if (tip) span.title = tip;
  return span;
}

/**
 * @param {HTMLElement} el
 * @param {string} text
 */
function set(el, text) {
  if (el.textContent !== text) el.textContent = text;
}

/**
 * @param {HTMLElement} el
 * @param {string} name
 * @param {string} value
 */
function setAttr(el, name, value) {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}
