// threadlab views: the inspector (subagent tree, conversation with tool cards, file browser)
// and the thread list. Plain DOM, no bundler; state comes from the Python model.

/**
 * The synced state the Python side draws from (`TraceState.snapshot()`).
 * @typedef {{id: string, parent: string | null, agent: string, name: string, status: string,
 *   progress: string | null}} TraceThread
 * @typedef {{id: string, role: string, text: string, chars: number, depth: number,
 *   side: string | null, calls: string[], attachments: string[],
 *   usage: Record<string, number> | null}} TraceMessage
 * @typedef {{type: string, data: unknown}} CardEvent
 * @typedef {{id: string, thread: string, name: string, depth: number, progress: string | null,
 *   status: string, duration_ms: number | null, result: string | null, result_chars: number,
 *   args_chars: number, events: CardEvent[], started_at: number | null}} Card
 * @typedef {{path: string, size: number}} FileEntry
 * @typedef {{status?: string, text?: string | null, error?: string | null,
 *   usage?: Record<string, number> | null}} RunSummary
 * @typedef {{root: string, threads: TraceThread[], messages: Record<string, TraceMessage[]>,
 *   cards: Record<string, Card>, files: Record<string, FileEntry[]>,
 *   drafts: Record<string, string>, run: RunSummary}} Trace
 * @typedef {{op: "preview", thread: string, path: string, error?: string, image?: string,
 *   text?: string, size?: number, truncated?: boolean}} Preview
 * @typedef {{id: string, agent: string, created_at: number, status: string, messages: number,
 *   children: number}} ThreadRow
 * @typedef {{get(name: string): any, set(name: string, value: unknown): void,
 *   save_changes(): void, send(content: object): void,
 *   on(event: string, callback: (...args: any[]) => void): void}} Model
 * @typedef {{selected: string | null, fetched: Record<string, string>, preview: Preview | null,
 *   redraw: () => void}} Local
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

const MARK = { success: "✓", error: "✗", running: "⟳", streaming: "…" };

/**
 * One tool call: status, progress, result (the rest on demand) and its custom events.
 * @param {Model} model
 * @param {Card} c
 * @param {Record<string, string>} fetched full results already asked for, by call id
 */
function card(model, c, fetched) {
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
  const events = (c.events || []).map((e) =>
    h("li", {}, h("code", {}, e.type), " ", JSON.stringify(e.data)),
  );
  return h(
    "details",
    {
      class: `tl-card tl-${c.status}`,
      "data-testid": "tool-card",
      "data-status": c.status,
      "data-call": c.id,
    },
    h(
      "summary",
      {},
      h("span", { class: "tl-mark" }, MARK[c.status] || "•"),
      h("b", { class: "tl-name" }, c.name),
      c.progress
        ? h("span", { class: "tl-progress", "data-testid": "tool-progress" }, c.progress)
        : null,
      h(
        "span",
        { class: "tl-meta" },
        c.status,
        c.duration_ms !== null ? ` · ${Math.round(c.duration_ms)} ms` : "",
        c.status === "streaming" ? ` · ${c.args_chars} chars of arguments` : "",
      ),
    ),
    result ? h("pre", { class: "tl-result" }, result) : null,
    more,
    events.length ? h("ul", { class: "tl-events", "data-testid": "tool-events" }, events) : null,
  );
}

const USAGE_WORDS = [
  ["input_tokens", "in"],
  ["output_tokens", "out"],
  ["cached_tokens", "cached"],
];

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
 * A thread's messages, with a card under each assistant message per tool call.
 * @param {Model} model
 * @param {Trace} trace
 * @param {string} threadId
 * @param {Record<string, string>} fetched
 * @returns {HTMLElement[]}
 */
function conversation(model, trace, threadId, fetched) {
  const out = [];
  for (const m of trace.messages[threadId] || []) {
    if (m.role === "tool" || (m.depth > 0 && m.role !== "assistant")) continue;
    // An assistant step that only called tools still shows what it cost.
    if ((m.text || (m.role === "assistant" && m.usage)) && m.role !== "tool") {
      const who = m.role + (m.side ? ` (${m.side})` : "");
      out.push(
        h(
          "div",
          { class: `tl-msg tl-${m.role}`, style: `margin-left:${m.depth * 16}px` },
          h("b", {}, who),
          " ",
          m.text,
          m.attachments.length
            ? h("span", { class: "tl-meta" }, ` 📎 ${m.attachments.join(", ")}`)
            : null,
          m.usage ? h("span", { class: "tl-meta" }, ` · ${usageText(m.usage)}`) : null,
        ),
      );
    }
    for (const id of m.calls) {
      const c = trace.cards[id];
      if (c)
        out.push(h("div", { style: `margin-left:${m.depth * 16}px` }, card(model, c, fetched)));
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
      ),
      kids[t.id] ? h("ul", {}, kids[t.id].map(node)) : null,
    );
  return h("ul", { class: "tl-tree", "data-testid": "subagent-tree" }, (kids[""] || []).map(node));
}

/**
 * The selected thread's files, and the preview the user asked for.
 * @param {Model} model
 * @param {Trace} trace
 * @param {string} threadId
 * @param {Preview | null} preview
 */
function files(model, trace, threadId, preview) {
  const list = trace.files?.[threadId] || [];
  const rows = list.map((f) =>
    h(
      "li",
      {},
      h(
        "button",
        {
          class: "tl-file",
          "data-testid": "file",
          "data-path": f.path,
          onclick: () => model.send({ op: "preview", thread: threadId, path: f.path }),
        },
        f.path,
      ),
      h("span", { class: "tl-meta" }, ` ${f.size} B`),
    ),
  );
  let shown = null;
  if (preview && preview.thread === threadId) {
    shown = preview.error
      ? h("div", { class: "tl-error" }, preview.error)
      : preview.image
        ? h("img", { src: preview.image, alt: preview.path, class: "tl-image" })
        : h("pre", { class: "tl-preview", "data-testid": "file-preview" }, preview.text);
  }
  return h(
    "div",
    { class: "tl-files", "data-testid": "file-browser" },
    h("div", { class: "tl-heading" }, `files (${list.length})`),
    rows.length ? h("ul", {}, rows) : h("div", { class: "tl-meta" }, "no files"),
    shown,
  );
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
    model.set("selected", id);
    model.save_changes();
    local.redraw();
  };
  const run = trace.run || {};
  el.replaceChildren(
    h(
      "div",
      { class: "tl-inspector", "data-testid": "inspector" },
      h(
        "div",
        { class: "tl-header" },
        h("b", {}, "threadlab"),
        " ",
        h("code", {}, trace.root),
        " ",
        h(
          "span",
          { class: `tl-status tl-${run.status}`, "data-testid": "run-status" },
          run.status || "",
        ),
        run.usage
          ? h("span", { class: "tl-meta", "data-testid": "run-usage" }, ` ${usageText(run.usage)}`)
          : null,
      ),
      h(
        "div",
        { class: "tl-panes" },
        h(
          "div",
          { class: "tl-left" },
          h("div", { class: "tl-heading" }, "threads"),
          tree(trace, selected, select),
        ),
        h(
          "div",
          { class: "tl-center", "data-testid": "conversation" },
          conversation(model, trace, selected, local.fetched),
        ),
        h("div", { class: "tl-right" }, files(model, trace, selected, local.preview)),
      ),
      run.error ? h("div", { class: "tl-error" }, run.error) : null,
    ),
  );
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
  const table = h(
    "table",
    { class: "tl-list", "data-testid": "thread-list" },
    h(
      "tr",
      {},
      ["thread", "agent", "created", "status", "messages", "subagents", ""].map((c) =>
        h("th", {}, c),
      ),
    ),
    rows.map((r) =>
      h(
        "tr",
        {},
        h("td", {}, h("code", {}, r.id)),
        h("td", {}, r.agent),
        h("td", {}, new Date(r.created_at * 1000).toLocaleString()),
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
              onclick: () => model.send({ op: "open", thread: r.id }),
            },
            "open",
          ),
        ),
      ),
    ),
  );
  const holder = h("div", {});
  el.replaceChildren(h("div", {}, table, holder));
  if (opened.root) inspector(model, holder, opened, local);
}

export default {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    /** @type {Local} */
    const local = {
      selected: model.get("selected") || null,
      fetched: {},
      preview: null,
      redraw: () => {},
    };
    local.redraw = () => {
      if (model.get("view") === "threads") threadList(model, el, local);
      else inspector(model, el, model.get("trace") || {}, local);
    };
    model.on("msg:custom", (/** @type {any} */ msg) => {
      if (msg.op === "result") local.fetched[msg.call] = msg.text;
      if (msg.op === "preview") local.preview = msg;
      local.redraw();
    });
    for (const name of ["trace", "rows", "opened", "live"])
      model.on(`change:${name}`, local.redraw);
    local.redraw();
  },
};
