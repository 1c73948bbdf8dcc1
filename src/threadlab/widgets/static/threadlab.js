// @ts-check
// threadlab views: the inspector (subagent tree, conversation with tool cards, file browser)
// and the thread list. Plain DOM, no bundler; state comes from the Python model.

/**
 * The synced state the Python side draws from (`TraceState.snapshot()`).
 * @typedef {{id: string, parent: string | null, agent: string, name: string, status: string,
 *   progress: string | null, relation?: string, cost_usd?: number | null}} TraceThread
 * @typedef {{id: string, role: string, text: string, chars: number, depth: number,
 *   side: string | null, calls: string[], attachments: string[],
 *   usage: Record<string, number> | null, subagent: string | null,
 *   cost_usd?: number | null, reasoning?: string, thread?: string, at?: number}} TraceMessage
 * @typedef {{type: string, data: unknown, at?: number}} CardEvent
 * @typedef {{id: string, thread: string, name: string, depth: number, progress: string | null,
 *   status: string, duration_ms: number | null, result: string | null, result_chars: number,
 *   args_chars: number, args: string, label: string, events: CardEvent[],
 *   started_at: number | null, finished_at?: number | null, traceback: string | null,
 *   approval: Approval | null}} Card
 * @typedef {{state: "asked" | "approved" | "rejected", arguments?: string | null,
 *   edited?: boolean, by?: string, reason?: string | null}} Approval
 * @typedef {{path: string, size: number}} FileEntry
 * @typedef {{status?: string, text?: string | null, error?: string | null,
 *   usage?: Record<string, number> | null, cost_usd?: number | null}} RunSummary
 * @typedef {{root: string, threads: TraceThread[], messages: Record<string, TraceMessage[]>,
 *   cards: Record<string, Card>, files: Record<string, FileEntry[]>,
 *   drafts: Record<string, string>, run: RunSummary}} Trace
 * @typedef {{op: "preview", thread: string, path: string, error?: string, image?: string,
 *   text?: string, size?: number, truncated?: boolean}} Preview
 * @typedef {{id: string, agent: string, origin: string | null, notebook?: string | null,
 *   created_at: number,
 *   status: string, messages: number, children: number}} ThreadRow
 * @typedef {{case: string, model: string, repeat: number, thread: string | null,
 *   status: string, passed: boolean, scores: Record<string, unknown>, ms: number,
 *   tokens: number, cost_usd: number | null, error: string | null,
 *   note: string | null}} EvalCell
 * @typedef {{get(name: string): any, set(name: string, value: unknown): void,
 *   save_changes(): void, send(content: ViewMessage): void,
 *   on(event: string, callback: (...args: any[]) => void): void}} Model
 * @typedef {{el: HTMLElement, sig: string}} Keyed
 * @typedef {{root: HTMLElement, status: HTMLElement, usage: HTMLElement, code: HTMLElement,
 *   left: HTMLElement, center: HTMLElement, right: HTMLElement, error: HTMLElement,
 *   timelineHead: HTMLElement, timelineBody: HTMLElement}} Skeleton
 * @typedef {{selected: string | null, fetched: Record<string, string>, preview: Preview | null,
 *   redraw: () => void, ui: Skeleton | null, cards: Map<string, Keyed>,
 *   messages: Map<string, Keyed>, previewEl: Keyed | null,
 *   forks: Map<string, {el: HTMLElement, error: HTMLElement}>,
 *   decisions: Map<string, {el: HTMLElement, error: HTMLElement, sent: () => void}>,
 *   requests: Record<string, string>, listQuery: string, listShown: number,
 *   evalFailures: boolean, evalDifferences: boolean,
 *   previewSource: boolean, memory: Memory,
 *   clock: Record<string, {seen: number, started: number | null}>}} Local
 * @typedef {{open: Set<string>, selected: string | null}} Memory
 * @typedef {{thread: string, at: string, kind: "call" | "message", result?: string | null,
 *   args?: string, text?: string}} ForkPoint
 */

/**
 * The messages on the widget's comm, as the kernel declares them (`widgets/_messages.py`; a
 * test holds both lists to the same ops and fields). From the view to the kernel:
 * @typedef {{op: "fetch_result", thread: string, call: string}
 *   | {op: "fetch_request", thread: string, message: string}
 *   | {op: "preview", thread: string, path: string}
 *   | {op: "select", thread: string}
 *   | {op: "ready"}
 *   | {op: "fork", thread: string, at: string, result?: unknown,
 *       arguments?: Record<string, unknown>, message?: string}
 *   | {op: "decide", thread: string, call: string, approved: boolean,
 *       arguments?: Record<string, unknown>, reason?: string}
 *   | {op: "open", thread: string}} ViewMessage
 * From the kernel to the view:
 * @typedef {{op: "result", call: string, text: string}
 *   | {op: "request", message: string, text: string}
 *   | Preview
 *   | {op: "fork_error", thread: string, at: string, error: string}
 *   | {op: "decide_error", thread: string, call: string, error: string}
 *   | {op: "patch", threads?: TraceThread[], cards?: Record<string, Card>,
 *       files?: Record<string, FileEntry[]>, messages?: Record<string, TraceMessage[]>,
 *       drafts?: Record<string, string | null>, run?: RunSummary}} KernelMessage
 * A decision taken in a card:
 * @typedef {{approved: boolean, arguments?: Record<string, unknown>, reason?: string}} Decision
 */

/**
 * Build an element: `class`, `on<event>` handlers and other attributes, then children.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node | string | number | null | undefined | false | Array<any>)} children
 * @returns {HTMLElement}
 */
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const FINAL = new Set(["success", "error", "interrupted"]);

/** Rows of the thread list shown at a time (and added by "show more"). */
const PAGE = 50;

/** @type {Record<string, string>} */
const MARK = {
  success: "✓",
  error: "✗",
  interrupted: "✗",
  running: "⟳",
  queued: "⋯",
  streaming: "…",
  waiting: "‖",
};

/** @type {Record<string, string>} */
const DECIDERS = { approver: "by the runtime's approver", api: "through the API", view: "here" };

/**
 * What a card says of its call's decision ("approved with edited arguments (here)").
 * @param {Approval} a
 * @returns {string}
 */
function decisionText(a) {
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
function clockOf(local, c) {
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
function elapsed(since) {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/**
 * A "progress" event's position, if it says one: {"step": 3, "of": 12} (also done/total,
 * current/total) or {"fraction": 0.25} (or a bare number between 0 and 1).
 * @param {CardEvent} e
 * @returns {{value: number, max: number, label: string} | null}
 */
function progressOf(e) {
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
function latestProgress(events) {
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
function readable(data) {
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
function errorLine(c) {
  const lines = (c.traceback || c.result || "").trim().split("\n");
  const line = c.traceback ? lines[lines.length - 1] : lines[0];
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/**
 * Parsed JSON when `text` is a JSON object or array; undefined for anything else.
 * @param {string} text
 * @returns {object | undefined}
 */
function jsonObject(text) {
  if (!/^\s*[[{]/.test(text)) return undefined;
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

/** Children of one JSON node drawn at a time (a 200-row list opens its first rows). */
const JSON_ROWS = 50;

/**
 * A JSON value as a tree: an object or array is a `<details>` that says its size and opens
 * to its entries (the first level open); anything else is one line.
 * @param {unknown} value
 * @param {string | null} key
 * @param {number} depth
 * @returns {HTMLElement}
 */
function jsonTree(value, key, depth = 0) {
  const label = key === null ? null : h("span", { class: "tl-json-key" }, `${key}: `);
  if (!value || typeof value !== "object")
    return h("div", { class: "tl-json-leaf" }, label, JSON.stringify(value));
  const entries = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : Object.entries(value);
  const size = Array.isArray(value) ? `[${entries.length} items]` : `{${entries.length} keys}`;
  const node = h(
    "details",
    { class: "tl-json", "data-testid": "json-node" },
    h("summary", {}, label, h("span", { class: "tl-meta" }, size)),
  );
  /** @param {number} upTo */
  const fill = (upTo) => {
    const rows = entries.slice(0, upTo).map(([k, item]) => jsonTree(item, k, depth + 1));
    const rest = entries.length - upTo;
    const more =
      rest > 0
        ? h(
            "button",
            { class: "tl-more", onclick: () => fill(upTo + JSON_ROWS * 4) },
            `${rest} more`,
          )
        : null;
    node.replaceChildren(
      node.firstChild || "",
      h("div", { class: "tl-json-children" }, rows, more),
    );
  };
  fill(JSON_ROWS);
  /** @type {HTMLDetailsElement} */ (node).open = depth === 0;
  return node;
}

/**
 * A call's arguments to read: `name: value` per line, a multi-line string as an indented
 * block with its line breaks, a nested value as a JSON tree.
 * @param {string} text the arguments as JSON
 * @returns {Array<HTMLElement | string>}
 */
function readableArgs(text) {
  const value = jsonObject(text);
  if (!value || Array.isArray(value)) return [text];
  return Object.entries(value).map(([key, item]) => {
    if (item && typeof item === "object") return jsonTree(item, key);
    if (typeof item !== "string") return h("div", {}, `${key}: ${JSON.stringify(item)}`);
    if (!item.includes("\n")) return h("div", {}, `${key}: ${item}`);
    const block = item
      .split("\n")
      .map((line) => `  ${line}`)
      .join("\n");
    return h("div", {}, `${key}: |\n${block}`);
  });
}

/**
 * A result: a JSON object or array as a tree, anything else as text.
 * @param {string} result
 */
function resultBox(result) {
  const value = jsonObject(result);
  return value
    ? h("div", { class: "tl-result", "data-testid": "tool-result" }, jsonTree(value, null))
    : h("pre", { class: "tl-result", "data-testid": "tool-result" }, result);
}

/** Past this many characters a value's box is capped, with "show all" to lift the cap. */
const CAPPED_CHARS = 800;

/**
 * A box for a long value: capped in height, with a "show all" toggle when it is long.
 * @param {HTMLElement} box
 * @param {number} chars how long the value is
 * @returns {HTMLElement[]}
 */
function capped(box, chars) {
  if (chars <= CAPPED_CHARS) return [box];
  const toggle = h(
    "button",
    {
      class: "tl-more",
      "data-testid": "show-all",
      onclick: () => {
        const all = box.classList.toggle("tl-all");
        toggle.textContent = all ? "show less" : "show all";
      },
    },
    "show all",
  );
  return [box, toggle];
}

/**
 * A small "copy" button for the text `what()` gives (the arguments as JSON, the result).
 * @param {() => string} what
 */
function copyButton(what) {
  const button = /** @type {HTMLButtonElement} */ (
    h("button", {
      class: "tl-copy",
      "data-testid": "copy",
      title: "copy to the clipboard",
      onclick: (/** @type {Event} */ e) => {
        e.preventDefault();
        navigator.clipboard?.writeText(what()).then(
          () => {
            button.textContent = "copied";
          },
          () => {
            button.textContent = "copy failed";
          },
        );
      },
    })
  );
  button.textContent = "copy";
  return button;
}

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
  const clock = clockOf(local, c);
  const active = c.status === "streaming" || c.status === "running" || c.status === "queued";
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
      c.status === "streaming" ? ` · ${c.args_chars.toLocaleString("en")} chars of arguments` : "",
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
            "arguments ",
            copyButton(() => c.args),
          ),
          ...capped(
            h("div", { class: "tl-args", "data-testid": "tool-args" }, readableArgs(c.args)),
            c.args.length,
          ),
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
  const sig = JSON.stringify([c, fetched[c.id] ?? null]);
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
function costText(cost) {
  if (cost === null) return "cost unknown";
  if (!cost) return "";
  return `$${cost < 1 ? cost.toFixed(4) : cost.toFixed(2)}`;
}

/**
 * Token counts in words ("120 in / 35 out tokens"); "" when there are none.
 * @param {Record<string, number> | null | undefined} usage
 * @returns {string}
 */
function usageText(usage) {
  if (!usage) return "";
  const parts = USAGE_WORDS.filter(([key]) => key in usage).map(
    ([key, word]) => `${usage[key].toLocaleString("en")} ${word}`,
  );
  return parts.length ? `${parts.join(" / ")} tokens` : "";
}

/**
 * One message's line, kept per message id (its text does not change once stored). A report a
 * subagent delivered reads as that child's, with its name and status, not as the human's.
 * @param {Model} model
 * @param {TraceMessage} m
 * @param {Trace} trace
 * @param {Local} local
 */
function messageLine(model, m, trace, local) {
  const child = m.subagent ? trace.threads.find((t) => t.id === m.subagent) : undefined;
  const asked = local.requests[m.id];
  const sig = JSON.stringify([m, child?.name, child?.status, asked ?? null]);
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
    },
    who,
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

/** @type {Record<string, string>} */
const FORK_MODES = {
  result: "a different result",
  arguments: "other arguments",
  message: "a different message",
};

/**
 * "fork from here" under a tool card or a user message: an editor for the call's result or
 * arguments, or the message's text, checked as JSON before anything is sent; the branch then
 * runs in this view. Kept per point, so what the user typed survives the view's updates.
 * @param {Model} model
 * @param {Local} local
 * @param {ForkPoint} point
 */
function forkControl(model, local, point) {
  // Per thread and point: a branch keeps its messages' and calls' ids.
  const key = `${point.thread} ${point.at}`;
  const kept = local.forks.get(key);
  if (kept) return kept.el;
  /** @type {Record<string, string>} */
  const initial = {
    result: JSON.stringify(point.result ?? ""),
    arguments: point.args || "{}",
    message: point.text || "",
  };
  const modes = point.kind === "call" ? ["result", "arguments"] : ["message"];
  const error = h("div", { class: "tl-error", "data-testid": "fork-error" });
  const editor = /** @type {HTMLTextAreaElement} */ (
    h("textarea", { class: "tl-fork-editor", "data-testid": "fork-editor", rows: "3" })
  );
  editor.value = initial[modes[0]];
  const mode = /** @type {HTMLSelectElement} */ (
    h(
      "select",
      {
        "data-testid": "fork-mode",
        onchange: () => {
          editor.value = initial[mode.value];
          error.textContent = "";
        },
      },
      modes.map((m) => h("option", { value: m }, FORK_MODES[m])),
    )
  );
  const submit = () => {
    const chosen = mode.value;
    /** @type {unknown} */
    let value = editor.value;
    if (chosen !== "message") {
      try {
        value = JSON.parse(editor.value);
      } catch (e) {
        error.textContent = `not JSON: ${e instanceof Error ? e.message : e}`;
        return;
      }
      if (chosen === "arguments" && (typeof value !== "object" || !value || Array.isArray(value))) {
        error.textContent = "the arguments must be a JSON object";
        return;
      }
    }
    error.textContent = "";
    const at = { op: /** @type {const} */ ("fork"), thread: point.thread, at: point.at };
    if (chosen === "message") model.send({ ...at, message: String(value) });
    else if (chosen === "arguments")
      model.send({ ...at, arguments: /** @type {Record<string, unknown>} */ (value) });
    else model.send({ ...at, result: value });
  };
  const form = h(
    "div",
    { class: "tl-fork-form", "data-testid": "fork-form" },
    mode,
    editor,
    h(
      "button",
      { class: "tl-fork-run", "data-testid": "fork-run", onclick: submit },
      "run the branch",
    ),
    error,
  );
  form.hidden = true;
  const el = h(
    "div",
    { class: "tl-fork-point", "data-at": point.at },
    h(
      "button",
      {
        class: "tl-fork",
        "data-testid": "fork-here",
        title: "a new thread from this point, with your change; this one stays as it is",
        onclick: () => {
          form.hidden = !form.hidden;
        },
      },
      "fork from here",
    ),
    form,
  );
  local.forks.set(key, { el, error });
  return el;
}

/**
 * Approve / Edit arguments / Reject under a call that waits for a decision. Edited arguments
 * are checked as a JSON object here, then against the tool's schema by the kernel before
 * anything is recorded (a refusal comes back into this form). Kept per call, so what the user
 * typed survives the view's updates.
 * @param {Model} model
 * @param {Local} local
 * @param {Card} c
 */
function decisionControl(model, local, c) {
  const key = `${c.thread} ${c.id}`;
  const kept = local.decisions.get(key);
  if (kept) return kept.el;
  const error = h("div", { class: "tl-error", "data-testid": "decide-error" });
  const editor = /** @type {HTMLTextAreaElement} */ (
    h("textarea", { class: "tl-fork-editor", "data-testid": "decide-editor", rows: "4" })
  );
  editor.value = c.approval?.arguments ?? "{}";
  const reason = /** @type {HTMLInputElement} */ (
    h("input", {
      class: "tl-reason",
      "data-testid": "reject-reason",
      placeholder: "reason (optional)",
      "aria-label": "reason for rejecting",
    })
  );
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  /** @param {boolean} on */
  const enable = (on) => {
    for (const b of buttons) b.disabled = !on;
  };
  /** @param {Decision} decision */
  const send = (decision) => {
    error.textContent = "";
    enable(false);
    model.send({ op: "decide", thread: c.thread, call: c.id, ...decision });
  };
  const editForm = h(
    "div",
    { class: "tl-fork-form", "data-testid": "decide-form" },
    editor,
    h(
      "button",
      {
        class: "tl-fork-run",
        "data-testid": "approve-edited",
        onclick: () => {
          /** @type {unknown} */
          let value;
          try {
            value = JSON.parse(editor.value);
          } catch (e) {
            error.textContent = `not JSON: ${e instanceof Error ? e.message : e}`;
            return;
          }
          if (typeof value !== "object" || !value || Array.isArray(value)) {
            error.textContent = "the arguments must be a JSON object";
            return;
          }
          send({ approved: true, arguments: /** @type {Record<string, unknown>} */ (value) });
        },
      },
      "approve with these arguments",
    ),
  );
  editForm.hidden = true;
  const button = (
    /** @type {string} */ label,
    /** @type {string} */ id,
    /** @type {() => void} */ onclick,
  ) => {
    const b = /** @type {HTMLButtonElement} */ (
      h("button", { class: `tl-decide tl-${id}`, "data-testid": id, onclick }, label)
    );
    buttons.push(b);
    return b;
  };
  const el = h(
    "div",
    { class: "tl-decision", "data-testid": "decision-bar", "data-call": c.id },
    h("span", { class: "tl-ask" }, `‖ ${c.name} waits for your decision`),
    h(
      "div",
      { class: "tl-decide-row" },
      button("Approve", "approve", () => send({ approved: true })),
      c.approval?.arguments
        ? button("Edit arguments", "edit-arguments", () => {
            editForm.hidden = !editForm.hidden;
          })
        : null,
      button("Reject", "reject", () => send({ approved: false, reason: reason.value })),
      reason,
    ),
    editForm,
    error,
  );
  buttons.push(/** @type {HTMLButtonElement} */ (editForm.querySelector("button")));
  local.decisions.set(key, { el, error, sent: () => enable(true) });
  return el;
}

/**
 * @param {string} text
 * @returns {string}
 */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Markdown's inline marks in one escaped line: code, bold, italics, links (http(s) only).
 * @param {string} line
 * @returns {string}
 */
function markdownInline(line) {
  return escapeHtml(line)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*])\*([^*]+)\*/g, "$1<em>$2</em>")
    .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2">$1</a>');
}

/**
 * Markdown as HTML, for the sandboxed frame (where no script runs and nothing is fetched,
 * whatever this makes): headings, paragraphs, lists, quotes, fenced code, inline marks.
 * Everything the file says is escaped first; only these marks become tags.
 * @param {string} text
 * @returns {string}
 */
function markdownHtml(text) {
  const out = [];
  /** @type {string | null} */
  let list = null;
  let fence = false;
  const closeList = () => {
    if (list) out.push(`</${list}>`);
    list = null;
  };
  for (const line of text.split("\n")) {
    if (/^```/.test(line)) {
      closeList();
      out.push(fence ? "</code></pre>" : "<pre><code>");
      fence = !fence;
      continue;
    }
    if (fence) {
      out.push(`${escapeHtml(line)}\n`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*(?:([-*+])|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      const kind = item[1] ? "ul" : "ol";
      if (list !== kind) {
        closeList();
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${markdownInline(item[2])}</li>`);
      continue;
    }
    closeList();
    if (heading)
      out.push(`<h${heading[1].length}>${markdownInline(heading[2])}</h${heading[1].length}>`);
    else if (/^>\s?/.test(line))
      out.push(`<blockquote>${markdownInline(line.replace(/^>\s?/, ""))}</blockquote>`);
    else if (line.trim()) out.push(`<p>${markdownInline(line)}</p>`);
  }
  closeList();
  if (fence) out.push("</code></pre>");
  return `<div style="font-family:system-ui,sans-serif">${out.join("")}</div>`;
}

/** What a rendered HTML file may use: its own styles and inline images, nothing else. */
const SANDBOX_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:";

/**
 * A previewed file: an image as an image; HTML rendered in a sandboxed frame (no scripts,
 * no network, no access to the page) with a toggle to its source; any other text as text.
 * A download link takes what was previewed; the pane can be resized.
 * @param {Preview} preview
 * @param {Local} local
 * @returns {HTMLElement}
 */
function previewPane(preview, local) {
  if (preview.error) return h("div", { class: "tl-error" }, preview.error);
  const name = preview.path.split("/").pop() || "file";
  const href = preview.image
    ? preview.image
    : URL.createObjectURL(new Blob([preview.text || ""], { type: "text/plain" }));
  const download = h(
    "a",
    { class: "tl-download", "data-testid": "file-download", href, download: name },
    preview.truncated ? "download (the first 256 KB)" : "download",
  );
  const markdown = /\.(md|markdown)$/i.test(preview.path) && !preview.image;
  const html = (markdown || /\.html?$/i.test(preview.path)) && !preview.image;
  const toggle = html
    ? h(
        "button",
        {
          class: "tl-copy",
          "data-testid": "preview-source",
          onclick: () => {
            local.previewSource = !local.previewSource;
            local.redraw();
          },
        },
        local.previewSource ? "rendered" : "source",
      )
    : null;
  let body;
  if (preview.image) body = h("img", { src: preview.image, alt: preview.path, class: "tl-image" });
  else if (html && !local.previewSource) {
    const frame = /** @type {HTMLIFrameElement} */ (
      h("iframe", { class: "tl-frame", "data-testid": "file-frame", sandbox: "", title: name })
    );
    const page = markdown ? markdownHtml(preview.text || "") : preview.text || "";
    frame.srcdoc = `<meta http-equiv="Content-Security-Policy" content="${SANDBOX_CSP}">${page}`;
    body = frame;
  } else body = h("pre", { class: "tl-preview", "data-testid": "file-preview" }, preview.text);
  return h(
    "div",
    { class: "tl-preview-pane", "data-testid": "preview-pane" },
    h("div", {}, toggle, " ", download),
    body,
  );
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
function conversation(model, trace, threadId, local) {
  const out = [];
  const placed = new Set();
  // A finished thread can be forked at any top-level call or user message.
  const forkable = !model.get("live") && !model.get("offline") && trace.run?.status !== "running";
  /** @param {Card} c */
  const placeCard = (c) => {
    placed.add(c.id);
    out.push(
      h("div", { style: `margin-left:${c.depth * 16}px` }, card(model, c, local.fetched, local)),
    );
    if (c.status === "waiting" && c.approval?.state === "asked" && !model.get("offline"))
      out.push(decisionControl(model, local, c));
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
  for (const m of trace.messages[threadId] || []) {
    if (m.role === "tool" || (m.depth > 0 && m.role !== "assistant")) continue;
    // An assistant step that only called tools still shows what it cost.
    if (m.text || (m.role === "assistant" && (m.usage || m.reasoning)))
      out.push(messageLine(model, m, trace, local));
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

/**
 * The thread and its descendants; clicking a node selects it.
 * @param {Trace} trace
 * @param {string} selected
 * @param {(id: string) => void} select
 */
function tree(trace, selected, select) {
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
        h("span", { class: `tl-status tl-${t.status}` }, t.status),
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
 * The selected thread's files, and the preview the user asked for (kept while it is the same
 * file at the same size, so its scroll position survives updates).
 * @param {Model} model
 * @param {Trace} trace
 * @param {string} threadId
 * @param {Local} local
 */
function files(model, trace, threadId, local) {
  const list = trace.files?.[threadId] || [];
  const preview = local.preview && local.preview.thread === threadId ? local.preview : null;
  const rows = list.map((f) =>
    h(
      "li",
      {},
      h(
        "button",
        {
          class: `tl-file${preview?.path === f.path ? " tl-selected" : ""}`,
          "data-testid": "file",
          "data-path": f.path,
          onclick: () => model.send({ op: "preview", thread: threadId, path: f.path }),
        },
        f.path,
      ),
      h("span", { class: "tl-meta" }, ` ${f.size.toLocaleString("en")} B`),
    ),
  );
  let shown = null;
  if (preview) {
    const sig = JSON.stringify([preview, local.previewSource]);
    if (local.previewEl?.sig !== sig) {
      local.previewEl = { el: previewPane(preview, local), sig };
    }
    shown = local.previewEl?.el;
  }
  return [
    h("div", { class: "tl-heading" }, `files (${list.length})`),
    rows.length
      ? h("ul", { class: "tl-file-list" }, rows)
      : h("div", { class: "tl-meta" }, "no files"),
    shown,
  ];
}

/**
 * The inspector's frame, made once per output: later updates fill it, so the panes keep their
 * scroll positions and the cards their open state.
 * @param {HTMLElement} el
 * @returns {Skeleton}
 */
function skeleton(el) {
  const ui = {
    status: h("span", { class: "tl-status", "data-testid": "run-status" }),
    usage: h("span", { class: "tl-meta", "data-testid": "run-usage" }),
    code: h("code", {}),
    left: h("div", { class: "tl-left" }),
    center: h("div", { class: "tl-center", "data-testid": "conversation" }),
    right: h("div", { class: "tl-right tl-files", "data-testid": "file-browser" }),
    error: h("div", { class: "tl-error" }),
    timelineHead: h("span", {}),
    timelineBody: h("div", { class: "tl-lanes" }),
  };
  const root = h(
    "div",
    { class: "tl-inspector", "data-testid": "inspector" },
    h(
      "div",
      { class: "tl-header" },
      h("b", {}, "threadlab"),
      " ",
      ui.code,
      " ",
      ui.status,
      ui.usage,
    ),
    h(
      "details",
      { class: "tl-timeline", "data-testid": "timeline" },
      h("summary", {}, ui.timelineHead),
      ui.timelineBody,
    ),
    h("div", { class: "tl-panes" }, ui.left, ui.center, ui.right),
    ui.error,
  );
  el.replaceChildren(root);
  return { root, ...ui };
}

/**
 * @typedef {{kind: "step" | "call", start: number, end: number, label: string,
 *   detail: string}} Span
 */

/**
 * @param {number} seconds
 * @returns {string}
 */
function duration(seconds) {
  return seconds < 1 ? `${Math.round(seconds * 1000)} ms` : `${seconds.toFixed(1)} s`;
}

/**
 * What each thread did when: its model steps (from the message before a step to the step's
 * own message) and its tool calls (their runs), with latency, tokens and cost.
 * @param {Trace} trace
 * @param {TraceThread} t
 * @returns {Span[]}
 */
function spansOf(trace, t) {
  /** @type {Span[]} */
  const spans = [];
  /** @type {Record<number, number>} the last message's time, by depth (a prompt tool's own) */
  const last = {};
  for (const m of trace.messages[t.id] || []) {
    if (typeof m.at !== "number") continue;
    const from = last[m.depth];
    if (m.role === "assistant" && from !== undefined) {
      const spent = [m.usage ? usageText(m.usage) : "", costText(m.cost_usd)].filter((x) => x);
      spans.push({
        kind: "step",
        start: from,
        end: m.at,
        label: "model",
        detail: [`model step · ${duration(m.at - from)}`, ...spent].join(" · "),
      });
    }
    last[m.depth] = m.at;
  }
  for (const c of Object.values(trace.cards)) {
    if (c.thread !== t.id || typeof c.finished_at !== "number" || c.duration_ms === null) continue;
    const took = c.duration_ms / 1000;
    spans.push({
      kind: "call",
      start: c.finished_at - took,
      end: c.finished_at,
      label: c.name,
      detail: `${c.name}${c.label ? ` ${c.label}` : ""} · ${duration(took)} · ${c.status}`,
    });
  }
  return spans;
}

/**
 * The run on a time axis, a lane per thread (subagents under their parent): a bar per model
 * step and per tool call, its latency, tokens and cost in its tooltip and its lane's line.
 * @param {Trace} trace
 * @returns {{head: string, lanes: HTMLElement[]}}
 */
function timeline(trace) {
  /** @type {Array<{t: TraceThread, depth: number, spans: Span[]}>} */
  const rows = [];
  const own = trace.threads.filter((t) => !t.relation);
  /** @param {string | null} parent @param {number} depth */
  const walk = (parent, depth) => {
    for (const t of own.filter((x) => (x.parent || null) === parent)) {
      rows.push({ t, depth, spans: spansOf(trace, t) });
      walk(t.id, depth + 1);
    }
  };
  walk(null, 0);
  const all = rows.flatMap((r) => r.spans);
  if (!all.length) return { head: "timeline", lanes: [] };
  const t0 = Math.min(...all.map((x) => x.start));
  const total = Math.max(...all.map((x) => x.end)) - t0 || 1;
  const steps = all.filter((x) => x.kind === "step");
  const calls = all.filter((x) => x.kind === "call");
  /** @param {Span[]} spans */
  const sum = (spans) => spans.reduce((acc, x) => acc + (x.end - x.start), 0);
  const head =
    `timeline · ${duration(total)} · ${steps.length} model steps (${duration(sum(steps))})` +
    ` · ${calls.length} calls (${duration(sum(calls))})`;
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
              title: x.detail,
              style:
                `left:${(((x.start - t0) / total) * 100).toFixed(2)}%;` +
                `width:${Math.max(((x.end - x.start) / total) * 100, 0.5).toFixed(2)}%`,
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
      h("div", { class: "tl-lane-track" }, h("span", {}, "0"), h("span", {}, duration(total))),
    ),
  );
  return { head, lanes };
}

/**
 * The whole inspector: header, tree, conversation and files.
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Trace} trace
 * @param {Local} local
 */
function inspector(model, el, trace, local) {
  const selected = local.selected || trace.root;
  /** @param {string} id */
  const select = (id) => {
    local.selected = id;
    local.memory.selected = id;
    // Told as a message, not a synced change: a save would send the view's whole trace back.
    model.send({ op: "select", thread: id });
    local.redraw();
  };
  if (!local.ui || local.ui.root.parentNode !== el) local.ui = skeleton(el);
  const ui = local.ui;
  const run = trace.run || {};
  ui.code.textContent = trace.root;
  ui.status.className = `tl-status tl-${run.status}`;
  ui.status.textContent = run.status || "";
  const spent = [run.usage ? usageText(run.usage) : "", costText(run.cost_usd)].filter((p) => p);
  ui.usage.textContent = spent.length ? ` ${spent.join(" · ")}` : "";
  ui.left.replaceChildren(
    h("div", { class: "tl-heading" }, "threads"),
    tree(trace, selected, select),
  );
  ui.center.replaceChildren(...conversation(model, trace, selected, local));
  ui.right.replaceChildren(
    ...files(model, trace, selected, local).filter(/** @returns {x is HTMLElement} */ (x) => !!x),
  );
  const spans = timeline(trace);
  ui.timelineHead.textContent = spans.head;
  ui.timelineBody.replaceChildren(...spans.lanes);
  ui.error.textContent = run.error || "";
  // A run that waits for a decision did not fail: what it waits for reads as a note.
  ui.error.className = run.status === "waiting" ? "tl-meta" : "tl-error";
}

/**
 * Merge a live patch (what changed since the last message) into the view's copy of the trace.
 * @param {Trace} trace
 * @param {any} patch
 */
export function applyPatch(trace, patch) {
  for (const t of patch.threads || []) {
    const at = trace.threads.findIndex((x) => x.id === t.id);
    if (at >= 0) trace.threads[at] = t;
    else trace.threads.push(t);
  }
  for (const [id, c] of Object.entries(patch.cards || {})) put(trace.cards, id, c);
  for (const [tid, f] of Object.entries(patch.files || {})) put(trace.files, tid, f);
  for (const [tid, added] of Object.entries(patch.messages || {})) {
    const had = Object.hasOwn(trace.messages, tid) ? trace.messages[tid] : [];
    put(trace.messages, tid, had.concat(added));
  }
  for (const [tid, text] of Object.entries(patch.drafts || {})) {
    if (text === null) delete trace.drafts[tid];
    else put(trace.drafts, tid, text);
  }
  if (patch.run) trace.run = patch.run;
}

/**
 * Set an own property, whatever the key: a tool call's id is the model's choice, and one
 * called "__proto__" must be a card like any other, not the object's prototype.
 * @param {Record<string, any>} object
 * @param {string} key
 * @param {unknown} value
 */
function put(object, key, value) {
  Object.defineProperty(object, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

/**
 * Persisted threads, newest first, with the opened one's inspector below.
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Local} local
 */
function threadList(model, el, local) {
  /** @type {ThreadRow[]} */
  const rows = model.get("rows") || [];
  const opened = model.get("opened") || {};
  const query = local.listQuery.trim().toLowerCase();
  const matching = query
    ? rows.filter((r) =>
        [r.id, r.agent, r.notebook || r.origin || "", r.status].some((f) =>
          f.toLowerCase().includes(query),
        ),
      )
    : rows;
  const shown = matching.slice(0, local.listShown);
  const search = /** @type {HTMLInputElement} */ (
    h("input", {
      class: "tl-reason",
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
        h("td", {}, h("code", {}, r.id)),
        h("td", {}, r.agent),
        h("td", { title: r.origin || "" }, r.notebook || r.origin || ""),
        h("td", { class: "tl-date" }, new Date(r.created_at * 1000).toLocaleString()),
        h("td", {}, r.status),
        h("td", {}, r.messages),
        h("td", {}, r.children),
        h(
          "td",
          {},
          h(
            "button",
            {
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

/**
 * An evaluation: a progress bar with the time left while it runs, filters, and a table of
 * cases down and models across; each cell is a run (clicking it opens its thread below).
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Local} local
 */
function evalTable(model, el, local) {
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

/** What a view asks of the kernel, answered when no kernel is there to ask. */
const NO_KERNEL =
  "not kept in the notebook: the kernel that made this view is gone (%threadlab open the thread to see it)";

/**
 * A view drawn from a saved output's data alone (a reopened notebook whose kernel is gone):
 * the same drawing as the live view, on a model that never reaches a kernel. What only the
 * kernel has (a full result, a file's content, what a step was sent) says so when asked;
 * forks and decisions are not offered.
 * @param {HTMLElement} el
 * @param {Record<string, unknown>} state
 */
export function renderOffline(el, state) {
  /** @type {Record<string, unknown>} */
  const values = { ...state, offline: true, live: false };
  /** @type {Record<string, Array<(...args: any[]) => void>>} */
  const handlers = {};
  /** @type {Model} */
  const model = {
    get: (name) => values[name],
    set: (name, value) => {
      values[name] = value;
    },
    save_changes: () => {},
    on: (event, callback) => {
      handlers[event] = [...(handlers[event] || []), callback];
    },
    send: (/** @type {any} */ msg) => {
      const reply =
        msg.op === "fetch_result"
          ? { op: "result", call: msg.call, text: NO_KERNEL }
          : msg.op === "fetch_request"
            ? { op: "request", message: msg.message, text: NO_KERNEL }
            : msg.op === "preview"
              ? { op: "preview", thread: msg.thread, path: msg.path, error: NO_KERNEL }
              : null;
      if (reply) for (const callback of handlers["msg:custom"] || []) callback(reply);
    },
  };
  return view.render({ model, el });
}

/**
 * What a person opened in each view (by the view's key): kept across the redraw that comes
 * when the view's output is updated (at a run's end), so an opened card stays open.
 * @type {Map<string, Memory>}
 */
const MEMORY = new Map();

const view = {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    const key = model.get("key") || "";
    const memory = MEMORY.get(key) || { open: new Set(), selected: null };
    if (key) MEMORY.set(key, memory);
    /** @type {Local} */
    const local = {
      memory,
      selected: memory.selected || model.get("selected") || null,
      fetched: {},
      preview: null,
      redraw: () => {},
      ui: null,
      cards: new Map(),
      messages: new Map(),
      previewEl: null,
      forks: new Map(),
      decisions: new Map(),
      requests: {},
      previewSource: false,
      listQuery: "",
      listShown: PAGE,
      evalFailures: false,
      evalDifferences: false,
      clock: {},
    };
    local.redraw = () => {
      if (model.get("view") === "threads") threadList(model, el, local);
      else if (model.get("view") === "eval") evalTable(model, el, local);
      else inspector(model, el, model.get("trace") || {}, local);
    };
    model.on("msg:custom", (/** @type {KernelMessage} */ msg) => {
      if (msg.op === "result") local.fetched[msg.call] = msg.text;
      if (msg.op === "preview") local.preview = msg;
      if (msg.op === "request") local.requests[msg.message] = msg.text;
      if (msg.op === "fork_error") {
        const point = local.forks.get(`${msg.thread} ${msg.at}`);
        if (point) point.error.textContent = msg.error;
      }
      if (msg.op === "decide_error") {
        const asked = local.decisions.get(`${msg.thread} ${msg.call}`);
        if (asked) {
          asked.error.textContent = msg.error;
          asked.sent();
        }
      }
      if (msg.op === "patch") {
        // Merged into the model's own trace, in place (never saved back to the kernel): the
        // notebook's saved widget state is the whole, current trace, and a patch costs what
        // it carries, not what the run has done so far. The redraw below shows it.
        const trace = model.get("trace");
        if (trace?.root) applyPatch(trace, msg);
      }
      local.redraw();
    });
    for (const name of ["trace", "rows", "opened", "live", "finished"])
      model.on(`change:${name}`, local.redraw);
    // The kernel chose the thread to show (a branch made here, or one opened from the tree).
    model.on("change:selected", () => {
      local.selected = model.get("selected") || null;
      memory.selected = local.selected;
      local.redraw();
    });
    local.redraw();
    // On screen: it can take decisions, and a live view that missed patches sent before it
    // listened gets the whole trace once.
    if (model.get("view") === "inspector") model.send({ op: "ready" });
    // The elapsed counters of running calls tick between updates.
    const ticker = setInterval(() => {
      for (const span of el.querySelectorAll(".tl-elapsed"))
        span.textContent = elapsed(Number(span.getAttribute("data-since")));
    }, 200);
    // An evaluation's time left counts down between rows.
    const eta = setInterval(() => {
      if (model.get("view") === "eval" && !model.get("finished")) local.redraw();
    }, 1000);
    return () => {
      clearInterval(ticker);
      clearInterval(eta);
    };
  },
};

export default view;
