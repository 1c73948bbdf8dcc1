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
function copyButton(what) {
  const button = (
    /** @type {HTMLButtonElement} */
    h("button", {
      class: "tl-copy",
      "data-testid": "copy",
      title: "copy to the clipboard",
      onclick: (e) => {
        e.preventDefault();
        navigator.clipboard?.writeText(what()).then(
          () => {
            button.textContent = "copied";
          },
          () => {
            button.textContent = "copy failed";
          }
        );
      }
    })
  );
  button.textContent = "copy";
  return button;
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

// src/threadlab/widgets/js/served.js
function servedEndpoint(model, el, local) {
  const tools = model.get("tools") || [];
  const secret = local.secret;
  const guarded = Boolean(model.get("guarded"));
  const token = !guarded ? h("div", { class: "tl-meta" }, "served without a token (--no-token)") : secret ? h(
    "div",
    {},
    h("span", { class: "tl-heading" }, "bearer token "),
    copyButton(() => secret.token),
    h("pre", { class: "tl-args", "data-testid": "served-token" }, secret.token),
    h("span", { class: "tl-heading" }, "client configuration "),
    copyButton(() => secret.config),
    h("pre", { class: "tl-args", "data-testid": "served-config" }, secret.config)
  ) : h(
    "div",
    { class: "tl-meta", "data-testid": "served-token-gone" },
    "bearer token: shown only while the kernel that serves it runs, never kept in the notebook (service.token in that kernel)"
  );
  el.replaceChildren(
    h(
      "div",
      { class: "threadlab tl-served", "data-testid": "served-endpoint" },
      h("div", {}, h("b", {}, "MCP endpoint "), h("code", {}, String(model.get("url") || ""))),
      h(
        "div",
        { class: "tl-meta" },
        tools.length ? `serving ${tools.join(", ")}` : "no tools yet",
        " · each call is a thread: %threadlab threads --all"
      ),
      token
    )
  );
}

// src/threadlab/widgets/js/served_view.js
var served_view_default = {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    return mount(model, el, servedEndpoint, { ready: true });
  }
};
export {
  served_view_default as default
};
