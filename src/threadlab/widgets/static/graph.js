// src/threadlab/widgets/js/dom.js
function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== void 0 && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === void 0 || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// src/threadlab/widgets/js/graph.js
var SVG = "http://www.w3.org/2000/svg";
var KINDS = /* @__PURE__ */ new Set(["agent", "prompt", "tool", "mcp_server", "missing"]);
var KIND_WORDS = (
  /** @type {Record<string, string>} */
  {
    agent: "agent",
    prompt: "prompt",
    tool: "function tool",
    mcp_server: "MCP server",
    missing: "not defined"
  }
);
var PATH = /^[MC0-9., -]+$/;
function svg(tag, attrs, ...children) {
  const node = (
    /** @type {SVGElement} */
    document.createElementNS(SVG, tag)
  );
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  node.append(...children);
  return node;
}
var num = (value) => Number.isFinite(Number(value)) ? Number(value) : 0;
function edgeOf(edge) {
  const path = PATH.test(String(edge.path)) ? String(edge.path) : "";
  const x = num(edge.label_x);
  const anchor = ["start", "middle", "end"].includes(edge.label_anchor) ? edge.label_anchor : "middle";
  const label = svg("text", {
    class: "tl-g-small",
    x,
    y: num(edge.label_y),
    "text-anchor": anchor
  });
  (edge.label_lines || []).forEach((line, i) => {
    label.append(svg("tspan", { x, dy: i ? 13 : 0 }, String(line)));
  });
  return [
    svg("path", {
      d: path,
      class: edge.dashed ? "tl-g-edge tl-g-dashed" : "tl-g-edge",
      "marker-end": "url(#tl-g-arrow)"
    }),
    label
  ];
}
function nodeOf(node, chosen, choose) {
  const kind = KINDS.has(node.kind) ? node.kind : "missing";
  const x = num(node.x);
  const y = num(node.y);
  const group = svg(
    "g",
    {
      class: `tl-g-node tl-g-${kind}${chosen ? " tl-g-chosen" : ""}`,
      "data-node": String(node.id),
      "data-testid": "graph-node",
      tabindex: 0,
      role: "button",
      "aria-label": `${KIND_WORDS[kind]} ${node.name}`
    },
    svg("rect", { x, y, width: num(node.width), height: num(node.height), rx: 5 }),
    // The name and lines as the kernel fitted them to the node (a graph saved before it did
    // has only the lines as written).
    svg("text", { x: x + 8, y: y + 17, class: "tl-g-name" }, String(node.drawn_name || node.name)),
    ...(node.drawn_lines || node.lines || []).map(
      (line, i) => svg("text", { x: x + 8, y: y + 32 + 15 * i, class: "tl-g-small" }, String(line))
    )
  );
  group.addEventListener("click", () => choose(String(node.id)));
  group.addEventListener("keydown", (e) => {
    if (
      /** @type {KeyboardEvent} */
      e.key === "Enter"
    ) choose(String(node.id));
  });
  return group;
}
function graphView(model, el, local) {
  const graph = model.get("graph") || {};
  const nodes = graph.nodes || [];
  const chosen = nodes.find((n) => n.id === local.selected) || null;
  const choose = (id) => {
    local.selected = id;
    local.memory.selected = id;
    local.redraw();
  };
  const width = num(graph.width);
  const height = num(graph.height);
  const picture = svg(
    "svg",
    {
      class: "tl-g",
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-label": "definitions"
    },
    svg(
      "defs",
      {},
      svg(
        "marker",
        {
          id: "tl-g-arrow",
          viewBox: "0 0 10 10",
          refX: 10,
          refY: 5,
          markerWidth: 7,
          markerHeight: 7,
          orient: "auto-start-reverse"
        },
        svg("path", { d: "M0,0 L10,5 L0,10 z", class: "tl-g-head" })
      )
    ),
    ...(graph.edges || []).flatMap(edgeOf),
    ...nodes.map((n) => nodeOf(n, n === chosen, choose))
  );
  const pane = h(
    "div",
    { class: "tl-g-definition", "data-testid": "graph-definition" },
    chosen ? [
      h("b", {}, chosen.name),
      ` · ${KIND_WORDS[KINDS.has(chosen.kind) ? chosen.kind : "missing"]}`,
      h("pre", {}, chosen.definition)
    ] : h("span", { class: "tl-meta" }, "click a definition to read it")
  );
  el.replaceChildren(
    h(
      "div",
      { class: "tl-graph", "data-testid": "graph" },
      h("div", { class: "tl-g-picture" }, picture),
      pane
    )
  );
}

// src/threadlab/widgets/js/patch.js
function applyPatch(trace, patch) {
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
function put(object, key, value) {
  Object.defineProperty(object, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true
  });
}

// src/threadlab/widgets/js/synced.js
var parsed = /* @__PURE__ */ new WeakMap();
function synced(model, name) {
  const text = model.get(name);
  if (typeof text !== "string") return text;
  const cache = parsed.get(model) || /* @__PURE__ */ new Map();
  parsed.set(model, cache);
  const hit = cache.get(name);
  if (hit && hit.text === text) return hit.value;
  const value = JSON.parse(text);
  cache.set(name, { text, value });
  return value;
}

// src/threadlab/widgets/js/text.js
var NUMBERS = new Intl.NumberFormat("en");
function elapsed(since) {
  return `${((Date.now() - since) / 1e3).toFixed(1)} s`;
}

// src/threadlab/widgets/js/thread_list.js
var PAGE = 50;
var WHEN = new Intl.DateTimeFormat(void 0, {
  year: "numeric",
  month: "numeric",
  day: "numeric",
  hour: "numeric",
  minute: "numeric",
  second: "numeric"
});

// src/threadlab/widgets/js/mount.js
var MEMORY = /* @__PURE__ */ new Map();
function mount(model, el, draw, options = {}) {
  {
    const key = model.get("key") || "";
    const memory = MEMORY.get(key) || { open: /* @__PURE__ */ new Set(), selected: null };
    if (key) MEMORY.set(key, memory);
    const local = {
      memory,
      selected: memory.selected || model.get("selected") || null,
      fetched: {},
      fetchedArgs: {},
      preview: null,
      redraw: () => {
      },
      ui: null,
      cards: /* @__PURE__ */ new Map(),
      messages: /* @__PURE__ */ new Map(),
      previewEl: null,
      forks: /* @__PURE__ */ new Map(),
      decisions: /* @__PURE__ */ new Map(),
      requests: {},
      previewSource: false,
      listQuery: "",
      listShown: PAGE,
      evalFailures: false,
      evalDifferences: false,
      clock: {},
      secret: null
    };
    local.redraw = () => draw(model, el, local);
    model.on("msg:custom", (msg) => {
      if (msg.op === "result") local.fetched[msg.call] = msg.text;
      if (msg.op === "arguments") local.fetchedArgs[msg.call] = msg.text;
      if (msg.op === "preview") local.preview = msg;
      if (msg.op === "request") local.requests[msg.message] = msg.text;
      if (msg.op === "secret") local.secret = { token: msg.token, config: msg.config };
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
        const trace = synced(model, "trace");
        if (trace?.root) applyPatch(trace, msg);
      }
      local.redraw();
    });
    model.on("change:points", () => {
      if ((synced(model, "points") || []).length) return;
      local.playing = false;
      local.selected = model.get("selected") || null;
    });
    for (const name of [
      "trace",
      "rows",
      "opened",
      "live",
      "finished",
      "points",
      "narrating",
      "told"
    ])
      model.on(`change:${name}`, local.redraw);
    model.on("change:selected", () => {
      local.selected = model.get("selected") || null;
      memory.selected = local.selected;
      local.redraw();
    });
    local.redraw();
    if (options.ready) model.send({ op: "ready" });
    const ticker = setInterval(() => {
      for (const span of el.querySelectorAll(".tl-elapsed"))
        span.textContent = elapsed(Number(span.getAttribute("data-since")));
    }, 200);
    const ticking = options.ticking;
    const countdown = ticking ? setInterval(() => {
      if (ticking(model)) local.redraw();
    }, 1e3) : null;
    return () => {
      clearInterval(ticker);
      if (countdown !== null) clearInterval(countdown);
    };
  }
}

// src/threadlab/widgets/js/graph_view.js
var graph_view_default = {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    return mount(model, el, graphView);
  }
};
export {
  graph_view_default as default
};
