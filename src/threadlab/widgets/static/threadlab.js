// threadlab views: the inspector (subagent tree, conversation with tool cards, file browser)
// and the thread list. Plain DOM, no bundler; state comes from the Python model.

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

function card(model, c, fetched) {
  const full = fetched[c.id];
  const result = full !== undefined ? full : c.result || "";
  const more =
    full === undefined && c.result_chars > (c.result || "").length
      ? h("button", { class: "tl-more", onclick: () => model.send({ kind: "fetch_result", thread: c.thread, call: c.id }) }, `load all ${c.result_chars} characters`)
      : null;
  const events = (c.events || []).map((e) => h("li", {}, h("code", {}, e.type), " ", JSON.stringify(e.data)));
  return h(
    "details",
    { class: `tl-card tl-${c.status}`, "data-testid": "tool-card", "data-status": c.status, "data-call": c.id },
    h(
      "summary",
      {},
      h("span", { class: "tl-mark" }, MARK[c.status] || "•"),
      h("b", { class: "tl-name" }, c.name),
      c.progress ? h("span", { class: "tl-progress", "data-testid": "tool-progress" }, c.progress) : null,
      h("span", { class: "tl-meta" }, c.status, c.duration_ms !== null ? ` · ${Math.round(c.duration_ms)} ms` : "", c.status === "streaming" ? ` · ${c.args_chars} chars of arguments` : ""),
    ),
    result ? h("pre", { class: "tl-result" }, result) : null,
    more,
    events.length ? h("ul", { class: "tl-events", "data-testid": "tool-events" }, events) : null,
  );
}

function conversation(model, trace, threadId, fetched) {
  const out = [];
  for (const m of trace.messages[threadId] || []) {
    if (m.role === "tool" || (m.depth > 0 && m.role !== "assistant")) continue;
    if (m.text && m.role !== "tool") {
      const who = m.role + (m.side ? ` (${m.side})` : "");
      out.push(h("div", { class: `tl-msg tl-${m.role}`, style: `margin-left:${m.depth * 16}px` }, h("b", {}, who), " ", m.text, m.attachments.length ? h("span", { class: "tl-meta" }, ` 📎 ${m.attachments.join(", ")}`) : null));
    }
    for (const id of m.calls) {
      const c = trace.cards[id];
      if (c) out.push(h("div", { style: `margin-left:${m.depth * 16}px` }, card(model, c, fetched)));
    }
  }
  const draft = (trace.drafts || {})[threadId];
  if (draft) out.push(h("div", { class: "tl-msg tl-assistant tl-draft", "data-testid": "draft" }, h("b", {}, "assistant"), " ", draft));
  return out;
}

function tree(trace, selected, select) {
  const kids = {};
  for (const t of trace.threads) (kids[t.parent || ""] ||= []).push(t);
  const node = (t) =>
    h(
      "li",
      {},
      h(
        "button",
        { class: `tl-node${t.id === selected ? " tl-selected" : ""}`, "data-testid": "tree-node", "data-thread": t.id, onclick: () => select(t.id) },
        h("b", {}, t.name || t.agent || t.id),
        h("span", { class: `tl-status tl-${t.status}` }, t.status),
        t.progress ? h("span", { class: "tl-progress" }, t.progress) : null,
      ),
      kids[t.id] ? h("ul", {}, kids[t.id].map(node)) : null,
    );
  return h("ul", { class: "tl-tree", "data-testid": "subagent-tree" }, (kids[""] || []).map(node));
}

function files(model, trace, threadId, preview) {
  const list = (trace.files || {})[threadId] || [];
  const rows = list.map((f) =>
    h("li", {}, h("button", { class: "tl-file", "data-testid": "file", "data-path": f.path, onclick: () => model.send({ kind: "preview", thread: threadId, path: f.path }) }, f.path), h("span", { class: "tl-meta" }, ` ${f.size} B`)),
  );
  let shown = null;
  if (preview && preview.thread === threadId) {
    shown = preview.error
      ? h("div", { class: "tl-error" }, preview.error)
      : preview.image
        ? h("img", { src: preview.image, alt: preview.path, class: "tl-image" })
        : h("pre", { class: "tl-preview", "data-testid": "file-preview" }, preview.text);
  }
  return h("div", { class: "tl-files", "data-testid": "file-browser" }, h("div", { class: "tl-heading" }, `files (${list.length})`), rows.length ? h("ul", {}, rows) : h("div", { class: "tl-meta" }, "no files"), shown);
}

function inspector(model, el, trace, local) {
  const selected = local.selected || trace.root;
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
      h("div", { class: "tl-header" }, h("b", {}, "threadlab"), " ", h("code", {}, trace.root), " ", h("span", { class: `tl-status tl-${run.status}`, "data-testid": "run-status" }, run.status || "")),
      h(
        "div",
        { class: "tl-panes" },
        h("div", { class: "tl-left" }, h("div", { class: "tl-heading" }, "threads"), tree(trace, selected, select)),
        h("div", { class: "tl-center", "data-testid": "conversation" }, conversation(model, trace, selected, local.fetched)),
        h("div", { class: "tl-right" }, files(model, trace, selected, local.preview)),
      ),
      run.error ? h("div", { class: "tl-error" }, run.error) : null,
    ),
  );
}

function threadList(model, el, local) {
  const rows = model.get("rows") || [];
  const opened = model.get("opened") || {};
  const table = h(
    "table",
    { class: "tl-list", "data-testid": "thread-list" },
    h("tr", {}, ["thread", "agent", "created", "status", "messages", "subagents", ""].map((c) => h("th", {}, c))),
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
        h("td", {}, h("button", { "data-testid": "open-thread", onclick: () => model.send({ kind: "open", thread: r.id }) }, "open")),
      ),
    ),
  );
  const holder = h("div", {});
  el.replaceChildren(h("div", {}, table, holder));
  if (opened.root) inspector(model, holder, opened, local);
}

export default {
  render({ model, el }) {
    const local = { selected: model.get("selected") || null, fetched: {}, preview: null };
    local.redraw = () => {
      if (model.get("view") === "threads") threadList(model, el, local);
      else inspector(model, el, model.get("trace") || {}, local);
    };
    model.on("msg:custom", (msg) => {
      if (msg.kind === "result") local.fetched[msg.call] = msg.text;
      if (msg.kind === "preview") local.preview = msg;
      local.redraw();
    });
    for (const name of ["trace", "rows", "opened", "live"]) model.on(`change:${name}`, local.redraw);
    local.redraw();
  },
};
