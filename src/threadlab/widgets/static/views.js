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
function keepChildren(parent, nodes) {
  const move = (
    /** @type {any} */
    parent.moveBefore
  );
  nodes.forEach((node, i) => {
    const at = parent.childNodes[i] ?? null;
    if (at === node) return;
    if (move && node.parentNode === parent) move.call(parent, node, at);
    else parent.insertBefore(node, at);
  });
  while (parent.childNodes.length > nodes.length) parent.lastChild?.remove();
}
var CAPPED_CHARS = 800;
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
      }
    },
    "show all"
  );
  return [box, toggle];
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
function controlOf(testid, about = {}) {
  const parts = Object.entries(about).map(([name, value]) => `[${name}="${cssString(value)}"]`);
  return `[data-testid="${testid}"]${parts.join("")}`;
}
function cssString(value) {
  return value.replace(
    /["\\]|[\n\r\f\0]/g,
    (c) => c === '"' || c === "\\" ? `\\${c}` : `\\${(c === "\0" ? 65533 : c.charCodeAt(0)).toString(16)} `
  );
}

// src/threadlab/widgets/js/text.js
var FINAL = /* @__PURE__ */ new Set(["success", "error", "interrupted"]);
var NUMBERS = new Intl.NumberFormat("en");
function countText(n) {
  return NUMBERS.format(n);
}
function counted(n, noun, plural = `${noun}s`) {
  return `${countText(n)} ${n === 1 ? noun : plural}`;
}
var MARK = {
  success: "✓",
  error: "✗",
  interrupted: "✗",
  running: "⟳",
  queued: "⋯",
  streaming: "…",
  waiting: "‖"
};
var DECIDERS = {
  approver: "by the runtime's approver",
  api: "through the API",
  view: "in the view"
};
function decisionText(a) {
  if (a.state === "asked") return "waits for your decision";
  const edited = a.edited ? ` with edited arguments ${a.arguments}` : "";
  const why = a.state === "rejected" && a.reason ? `: ${a.reason}` : "";
  return `${a.state}${edited}${why} (${DECIDERS[a.by || "api"] || a.by})`;
}
function clockOf(local, c) {
  const now = Date.now();
  if (!local.clock[c.id]) local.clock[c.id] = { seen: now, started: null };
  const clock = local.clock[c.id];
  if (c.status === "running" && clock.started === null) clock.started = now;
  return clock;
}
function elapsed(since) {
  return `${((Date.now() - since) / 1e3).toFixed(1)} s`;
}
function progressOf(e) {
  if (e.type !== "progress") return null;
  const d = (
    /** @type {any} */
    e.data
  );
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
function latestProgress(events) {
  for (let i = events.length - 1; i >= 0; i--) {
    const found2 = progressOf(events[i]);
    if (found2) return { ...found2, label: found2.label + pace(events, found2) };
  }
  return null;
}
function pace(events, now) {
  const timed = events.map((e) => ({ at: e.at, found: progressOf(e) })).filter((e) => e.found && typeof e.at === "number");
  if (timed.length < 2 || now.value >= now.max) return "";
  const first = timed[0];
  const last = timed[timed.length - 1];
  const seconds = (
    /** @type {number} */
    last.at - /** @type {number} */
    first.at
  );
  const done = (
    /** @type {any} */
    last.found.value - /** @type {any} */
    first.found.value
  );
  if (seconds <= 0 || done <= 0) return "";
  const rate = done / seconds;
  const left = Math.max(1, Math.round((now.max - now.value) / rate));
  const shown = now.max === 1 ? `${Math.round(rate * 100)}%/s` : `${rate.toFixed(1)}/s`;
  return ` · ${shown} · ETA ${left < 60 ? `${left}s` : `${Math.ceil(left / 60)} min`}`;
}
function readable(data) {
  if (data === null || data === void 0) return "";
  if (typeof data !== "object") return String(data);
  if (Array.isArray(data)) return data.map(readable).join(", ");
  return Object.entries(data).map(([key, value]) => `${key}: ${typeof value === "object" ? JSON.stringify(value) : value}`).join(", ");
}
function errorLine(c) {
  const lines = (c.traceback || c.result || "").trim().split("\n");
  const line = c.traceback ? lines[lines.length - 1] : lines[0];
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
var USAGE_WORDS = [
  ["input_tokens", "in"],
  ["output_tokens", "out"],
  ["cached_tokens", "cached"]
];
function costText(cost) {
  if (cost === null) return "cost unknown";
  if (!cost) return "";
  return `$${cost < 1 ? cost.toFixed(4) : cost.toFixed(2)}`;
}
function usageText(usage) {
  if (!usage) return "";
  const parts = USAGE_WORDS.filter(([key]) => key in usage).map(
    ([key, word]) => `${countText(usage[key])} ${word}`
  );
  return parts.length ? `${parts.join(" / ")} tokens` : "";
}
var NO_KERNEL = "not kept in the notebook: the kernel that made this view is gone (%threadlab open the thread to see it)";
function replayCounts(messages) {
  const steps2 = messages.filter((m) => m.role === "assistant" && m.depth === 0);
  const replayed = steps2.filter((m) => m.model === "replay").length;
  return replayed ? [replayed, steps2.length - replayed] : null;
}

// src/threadlab/widgets/js/app_frame.js
var PROTOCOL_VERSIONS = ["2026-01-26", "2025-11-21"];
var MAX_MESSAGES_PER_SECOND = 100;
var MAX_CALLS_PER_MINUTE = 30;
var MIN_HEIGHT = 60;
var MAX_HEIGHT = 800;
var START_HEIGHT = 200;
var ORIGIN = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$/;
var NOT_FOUND = -32601;
var SAVED_APP = "this app is drawn from a saved output: its tool calls run only in the view of its run (run the cell again)";
var REFUSED = -32e3;
function appPolicy(csp) {
  const refused = [];
  const origins = (key) => {
    const asked = Array.isArray(csp?.[key]) ? csp[key] : [];
    const ok = asked.filter((o) => typeof o === "string" && ORIGIN.test(o));
    refused.push(...asked.filter((o) => !ok.includes(o)).map(String));
    return ok;
  };
  const resources = origins("resourceDomains");
  const connect = origins("connectDomains");
  const frames = origins("frameDomains");
  const bases = origins("baseUriDomains");
  const src = (list, own = "") => [own, ...list].filter((x) => x).join(" ") || "'none'";
  const policy = [
    "default-src 'none'",
    `script-src ${src(resources, "'unsafe-inline'")}`,
    `style-src ${src(resources, "'unsafe-inline'")}`,
    `img-src ${src(resources, "data: blob:")}`,
    `font-src ${src(resources, "data:")}`,
    `media-src ${src(resources, "data: blob:")}`,
    `connect-src ${src(connect)}`,
    `frame-src ${src(frames)}`,
    `base-uri ${src(bases)}`,
    "form-action 'none'"
  ].join("; ");
  return { policy, refused };
}
function framedPage(html, policy) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? `${doctype[0]}${meta}${html.slice(doctype[0].length)}` : `${meta}${html}`;
}
function relayPage(page, csp) {
  const own = appPolicy(csp?.frameDomains ? { frameDomains: csp.frameDomains } : {});
  const frames = /frame-src ([^;]*)/.exec(own.policy)?.[1] ?? "'none'";
  const policy = `default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; frame-src ${frames}`;
  const srcdoc = page.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  return `<!doctype html><meta http-equiv="Content-Security-Policy" content="${policy}">
<style>html,body{margin:0;height:100%;overflow:hidden}iframe{display:block;border:0;width:100%;height:100%}</style>
<script>
let loads = 0;
const app = () => document.querySelector("iframe");
document.addEventListener("load", (e) => {
  if (e.target === app() && ++loads > 1) parent.postMessage({ threadlab: "left" }, "*");
}, true);
addEventListener("message", (e) => {
  const frame = app();
  if (frame && e.source === frame.contentWindow) parent.postMessage({ threadlab: "app", data: e.data }, "*");
  else if (frame && e.source === parent) frame.contentWindow.postMessage(e.data, "*");
});
<\/script><iframe sandbox="allow-scripts" referrerpolicy="no-referrer" allow="" srcdoc="${srcdoc}"></iframe>`;
}
function theme() {
  return document.body?.dataset?.jpThemeLight === "false" ? "dark" : "light";
}
function argumentsOf(text) {
  try {
    const value = JSON.parse(text || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}
function resultOf(text, failed) {
  const result = { content: [{ type: "text", text }], isError: failed };
  try {
    const value = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value))
      result.structuredContent = value;
  } catch {
  }
  return result;
}
function appFrame(model, c, local, pages = {}) {
  if (!c.app) return null;
  let host = local.apps.get(c.id);
  if (!host || host.uri !== c.app.uri) {
    host?.stop("another call took its place");
    const page = c.app.page !== void 0 ? pages[c.app.page] : c.app.html;
    host = appHost(model, c, { ...c.app, html: page });
    local.apps.set(c.id, host);
  }
  host.update(c, local);
  return host.el;
}
function appHost(model, c, app) {
  const note = h("div", { class: "tl-app-note", "data-testid": "app-note" });
  const ask = h("div", { class: "tl-app-ask", "data-testid": "app-ask" });
  const wide = (
    /** @type {HTMLButtonElement} */
    h("button", { class: "tl-app-answer tl-app-wide-toggle", "data-testid": "app-wide" }, "wide")
  );
  const el = h(
    "div",
    { class: "tl-app", "data-testid": "tool-app", "data-call": c.id },
    h("div", { class: "tl-meta tl-app-head" }, "app · ", h("code", {}, app.uri), " ", wide),
    ask,
    note
  );
  const widen = (on) => {
    el.classList.toggle("tl-app-wide", on);
    wide.textContent = on ? "back" : "wide";
    wide.setAttribute("aria-pressed", String(on));
    if (host.initialized)
      post({
        method: "ui/notifications/host-context-changed",
        params: { displayMode: on ? "fullscreen" : "inline" }
      });
  };
  wide.addEventListener("click", () => widen(!el.classList.contains("tl-app-wide")));
  el.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && el.classList.contains("tl-app-wide")) {
      e.stopPropagation();
      widen(false);
      wide.focus();
    }
  });
  const host = {
    el,
    uri: app.uri,
    initialized: false,
    sentInput: false,
    sentResult: false,
    stopped: null,
    answer: () => {
    },
    update: () => {
    },
    stop: () => {
    }
  };
  if (app.error || typeof app.html !== "string") {
    wide.hidden = true;
    note.textContent = `The app could not be read: ${app.error || "no page"}`;
    host.stopped = note.textContent;
    return host;
  }
  const html = app.html;
  const saved = Boolean(model.get("offline"));
  const frame2 = (
    /** @type {HTMLIFrameElement} */
    h("iframe", {
      class: "tl-app-frame",
      "data-testid": "app-frame",
      title: `the app of ${c.name}`,
      // Scripts only: no same origin with the notebook, no top navigation, no popups.
      sandbox: "allow-scripts",
      referrerpolicy: "no-referrer",
      allow: "",
      style: `height:${START_HEIGHT}px`
    })
  );
  let window0 = Date.now();
  let messages = 0;
  const calls = [];
  const post = (message) => {
    if (!host.stopped) frame2.contentWindow?.postMessage({ jsonrpc: "2.0", ...message }, "*");
  };
  const reply = (id, result) => post({ id, result });
  const fail = (id, code, message) => post({ id, error: { code, message } });
  host.stop = (why) => {
    if (host.stopped) return;
    host.stopped = why;
    window.removeEventListener("message", listen);
    frame2.remove();
    note.textContent = `The app was stopped: ${why}.`;
    ask.replaceChildren();
  };
  const start = () => {
    wide.hidden = false;
    const csp = saved ? {} : app.csp;
    const { policy, refused } = appPolicy(csp);
    if (refused.length)
      note.textContent = `Not granted to the app (not origins): ${refused.join(", ")}`;
    else if (saved)
      note.textContent = "Drawn from the saved output: its own tool calls run only in the view of its run.";
    frame2.srcdoc = relayPage(framedPage(html, policy), csp);
    el.insertBefore(frame2, ask);
    window.addEventListener("message", listen);
  };
  const openLink = (id, url) => {
    let parsed2 = null;
    try {
      parsed2 = new URL(String(url));
    } catch {
      parsed2 = null;
    }
    if (!parsed2 || !["http:", "https:"].includes(parsed2.protocol))
      return reply(id, { isError: true });
    if (ask.childElementCount) return reply(id, { isError: true });
    const answer = (yes) => {
      ask.replaceChildren();
      if (yes) window.open(parsed2.href, "_blank", "noopener,noreferrer");
      reply(id, yes ? {} : { isError: true });
    };
    ask.replaceChildren(
      h("span", {}, "The app asks to open "),
      h("code", { "data-testid": "app-link" }, parsed2.href),
      h("button", { class: "tl-app-answer", onclick: () => answer(true) }, "Open"),
      h("button", { class: "tl-app-answer", onclick: () => answer(false) }, "Don't open")
    );
  };
  const callTool = (id, params) => {
    if (saved) return fail(id, REFUSED, SAVED_APP);
    const now = Date.now();
    while (calls.length && now - calls[0] > 6e4) calls.shift();
    if (calls.length >= MAX_CALLS_PER_MINUTE)
      return fail(id, REFUSED, `more than ${MAX_CALLS_PER_MINUTE} tool calls in a minute`);
    calls.push(now);
    const name = typeof params?.name === "string" ? params.name : "";
    const args = params?.arguments && typeof params.arguments === "object" ? params.arguments : {};
    model.send({
      op: "app_call",
      thread: c.thread,
      call: c.id,
      request: id,
      name,
      arguments: args
    });
  };
  host.answer = (msg) => {
    if (msg.error !== void 0) fail(msg.request, REFUSED, msg.error);
    else reply(msg.request, msg.result);
  };
  function listen(event) {
    if (event.source !== frame2.contentWindow || host.stopped) return;
    const now = Date.now();
    if (now - window0 >= 1e3) {
      window0 = now;
      messages = 0;
    }
    messages += 1;
    if (messages > MAX_MESSAGES_PER_SECOND) {
      host.stop(`it sent more than ${MAX_MESSAGES_PER_SECOND} messages in a second`);
      return;
    }
    const wrapped = event.data;
    if (wrapped?.threadlab === "left") {
      host.stop("it left its page");
      return;
    }
    const data = wrapped?.threadlab === "app" ? wrapped.data : null;
    if (!data || typeof data !== "object" || data.jsonrpc !== "2.0") return;
    const { id, method, params } = data;
    const request = typeof id === "string" || typeof id === "number" && Number.isInteger(id);
    if (typeof method !== "string") return;
    if (method === "ui/initialize" && request) {
      host.initialized = false;
      host.sentInput = false;
      host.sentResult = false;
      const asked = String(params?.protocolVersion || "");
      reply(id, {
        protocolVersion: PROTOCOL_VERSIONS.includes(asked) ? asked : PROTOCOL_VERSIONS[0],
        hostInfo: { name: "threadlab", version: "1" },
        hostCapabilities: { openLinks: {}, serverTools: {}, logging: {} },
        hostContext: {
          theme: theme(),
          displayMode: el.classList.contains("tl-app-wide") ? "fullscreen" : "inline",
          availableDisplayModes: ["inline", "fullscreen"],
          platform: "web",
          locale: typeof navigator === "undefined" ? "en" : navigator.language,
          toolInfo: { id: c.id, tool: { name: c.name, inputSchema: { type: "object" } } },
          containerDimensions: { maxHeight: MAX_HEIGHT, width: el.clientWidth || 600 }
        }
      });
    } else if (method === "ui/notifications/initialized") {
      host.initialized = true;
      host.update(c, null);
    } else if (method === "ui/notifications/size-changed") {
      const height = Number(params?.height);
      if (Number.isFinite(height))
        frame2.style.height = `${Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, height))) + 2}px`;
    } else if (method === "tools/call" && request) callTool(id, params);
    else if (method === "ui/open-link" && request) openLink(id, params?.url);
    else if (method === "ui/request-display-mode" && request) {
      const mode = params?.mode === "fullscreen" ? "fullscreen" : "inline";
      widen(mode === "fullscreen");
      reply(id, { mode });
    } else if (method === "ping" && request) reply(id, {});
    else if (method === "ui/message" && request) {
      note.textContent = "The app asked to post a message to the conversation: a thread here takes its messages from its cells.";
      fail(id, NOT_FOUND, "ui/message is not offered by this host");
    } else if (request) fail(id, NOT_FOUND, `${method} is not offered by this host`);
  }
  let shownTheme = theme();
  if (typeof MutationObserver !== "undefined" && document.body)
    new MutationObserver(() => {
      if (host.stopped || !host.initialized || theme() === shownTheme) return;
      shownTheme = theme();
      post({ method: "ui/notifications/host-context-changed", params: { theme: shownTheme } });
    }).observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });
  let seen = null;
  host.update = (card2, given) => {
    c = card2;
    if (given) seen = given;
    const local = seen;
    if (!host.initialized || host.stopped) return;
    if (!host.sentInput) {
      if (c.args_folded && local && local.fetchedArgs[c.id] === void 0) {
        model.send({ op: "fetch_arguments", thread: c.thread, call: c.id });
        return;
      }
      host.sentInput = true;
      const args = local?.fetchedArgs[c.id] ?? c.args;
      post({ method: "ui/notifications/tool-input", params: { arguments: argumentsOf(args) } });
    }
    if (!host.sentResult && FINAL.has(c.status)) {
      const full = c.app?.result ?? app.result ?? local?.fetched[c.id];
      if (full === void 0 && c.result_chars > (c.result || "").length) {
        if (local && !saved) model.send({ op: "fetch_result", thread: c.thread, call: c.id });
        return;
      }
      host.sentResult = true;
      if (c.status === "interrupted")
        post({ method: "ui/notifications/tool-cancelled", params: { reason: "interrupted" } });
      else
        post({
          method: "ui/notifications/tool-result",
          params: resultOf(full ?? c.result ?? "", c.status !== "success")
        });
    }
  };
  if (saved) {
    wide.hidden = true;
    el.insertBefore(
      h(
        "button",
        {
          class: "tl-app-answer",
          "data-testid": "app-start",
          onclick: (e) => {
            e.currentTarget.remove();
            start();
          }
        },
        "Show the app"
      ),
      ask
    );
  } else start();
  return host;
}

// src/threadlab/widgets/js/values.js
function jsonObject(text) {
  if (!/^\s*[[{]/.test(text)) return void 0;
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" ? value : void 0;
  } catch {
    return void 0;
  }
}
function objectSoFar(text) {
  if (!/^\s*\{/.test(text)) return void 0;
  const closers = [];
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") closers.push("}");
    else if (ch === "[") closers.push("]");
    else if (ch === "}" || ch === "]") closers.pop();
  }
  let head = text;
  if (inString) {
    head = `${head.replace(escaped ? /\\$/ : /\\u[0-9a-fA-F]{0,3}$/, "")}"`;
  }
  const end = closers.reverse().join("");
  const tries = [
    head,
    head.replace(/[\s,]*$/, ""),
    // a separator after the last value
    head.replace(/,?\s*"(?:[^"\\]|\\.)*"\s*:?\s*$/, ""),
    // a key without its value yet
    head.replace(/,?\s*"(?:[^"\\]|\\.)*"\s*:\s*[^"{}[\],]*$/, "")
    // a value cut short
  ];
  for (const tried of tries) {
    try {
      const value = JSON.parse(tried + end);
      if (value && typeof value === "object" && !Array.isArray(value)) return value;
    } catch {
    }
  }
  return void 0;
}
var JSON_ROWS = 50;
function jsonTree(value, key, depth = 0) {
  const label = key === null ? null : h("span", { class: "tl-json-key" }, `${key}: `);
  if (!value || typeof value !== "object")
    return h("div", { class: "tl-json-leaf" }, label, JSON.stringify(value));
  const entries = Array.isArray(value) ? value.map((item, i) => [String(i), item]) : Object.entries(value);
  const size = Array.isArray(value) ? `[${entries.length} items]` : `{${entries.length} keys}`;
  const node = h(
    "details",
    { class: "tl-json", "data-testid": "json-node" },
    h("summary", {}, label, h("span", { class: "tl-meta" }, size))
  );
  const fill = (upTo) => {
    const rows = entries.slice(0, upTo).map(([k, item]) => jsonTree(item, k, depth + 1));
    const rest = entries.length - upTo;
    const more = rest > 0 ? h(
      "button",
      { class: "tl-more", onclick: () => fill(upTo + JSON_ROWS * 4) },
      `${rest} more`
    ) : null;
    node.replaceChildren(
      node.firstChild || "",
      h("div", { class: "tl-json-children" }, rows, more)
    );
  };
  fill(JSON_ROWS);
  node.open = depth === 0;
  return node;
}
function readableArgs(text) {
  const value = jsonObject(text) ?? objectSoFar(text);
  if (!value || Array.isArray(value)) return [text];
  return Object.entries(value).map(([key, item]) => {
    if (item && typeof item === "object") return jsonTree(item, key);
    if (typeof item !== "string") return h("div", {}, `${key}: ${JSON.stringify(item)}`);
    if (!item.includes("\n")) return h("div", {}, `${key}: ${item}`);
    const block = item.split("\n").map((line) => `  ${line}`).join("\n");
    return h("div", {}, `${key}: |
${block}`);
  });
}
function resultBox(result) {
  const value = jsonObject(result);
  return value ? h("div", { class: "tl-result", "data-testid": "tool-result" }, jsonTree(value, null)) : h("pre", { class: "tl-result", "data-testid": "tool-result" }, result);
}

// src/threadlab/widgets/js/card.js
function cardParts(model, c, fetched, local) {
  const full = fetched[c.id];
  const result = full !== void 0 ? full : c.result || "";
  const fullArgs = local.fetchedArgs?.[c.id];
  const args = fullArgs ?? c.args;
  const more = full === void 0 && c.result_chars > (c.result || "").length ? h(
    "button",
    {
      class: "tl-more",
      onclick: () => model.send({ op: "fetch_result", thread: c.thread, call: c.id })
    },
    `load all ${c.result_chars} characters`
  ) : null;
  const progress = latestProgress(c.events || []);
  const events = (c.events || []).filter((e) => progressOf(e) === null).map((e) => h("li", {}, h("b", {}, e.type), " ", readable(e.data)));
  if (c.events_dropped)
    events.unshift(
      h(
        "li",
        { class: "tl-meta", "data-testid": "tool-events-dropped" },
        `… ${c.events_dropped} earlier events not kept`
      )
    );
  const clock = clockOf(local, c);
  const active = !c.past && (c.status === "streaming" || c.status === "running" || c.status === "queued");
  const since = c.status === "running" ? clock.started || clock.seen : clock.seen;
  const summary = h(
    "summary",
    {},
    h("span", { class: "tl-mark" }, MARK[c.status] || "•"),
    h("b", { class: "tl-name" }, c.name),
    c.label ? h("span", { class: "tl-label", "data-testid": "tool-label" }, c.label) : null,
    c.progress ? h("span", { class: "tl-progress", "data-testid": "tool-progress" }, c.progress) : null,
    // A failed call says why in its closed card: the error's last line (the exception).
    c.status === "error" && c.result ? h("span", { class: "tl-error-line", "data-testid": "tool-error-line" }, errorLine(c)) : null,
    h(
      "span",
      { class: "tl-meta", "data-testid": "tool-meta" },
      c.status,
      c.status === "streaming" ? ` · ${countText(c.args_chars)} chars of arguments` : "",
      c.duration_ms !== null && !active ? ` · ${Math.round(c.duration_ms)} ms` : "",
      active ? " · " : "",
      active ? h("span", { class: "tl-elapsed", "data-since": String(since) }, elapsed(since)) : null
    )
  );
  return [
    summary,
    c.approval && c.approval.state !== "asked" ? h("div", { class: "tl-decided", "data-testid": "decision" }, decisionText(c.approval)) : null,
    c.args ? h(
      "div",
      { class: "tl-args-box" },
      h(
        "div",
        { class: "tl-heading" },
        c.proposed ? "arguments (as run) " : "arguments ",
        copyButton(() => args)
      ),
      ...capped(
        h("div", { class: "tl-args", "data-testid": "tool-args" }, readableArgs(args)),
        args.length
      ),
      // Long strings are folded in the synced state: the whole arguments when asked for.
      c.args_folded && fullArgs === void 0 ? h(
        "button",
        {
          class: "tl-more",
          "data-testid": "load-arguments",
          onclick: () => model.send({ op: "fetch_arguments", thread: c.thread, call: c.id })
        },
        "show all arguments"
      ) : null
    ) : null,
    // Edited before it ran: what ran is above, what the model proposed is kept here.
    c.proposed ? h(
      "div",
      { class: "tl-edited-from", "data-testid": "edited-from" },
      h("div", { class: "tl-heading" }, "edited from the model's proposal"),
      ...capped(h("div", { class: "tl-args" }, readableArgs(c.proposed)), c.proposed.length)
    ) : null,
    result ? h(
      "div",
      { class: "tl-heading" },
      "result ",
      copyButton(() => result)
    ) : null,
    ...result ? capped(resultBox(result), result.length) : [],
    more,
    c.traceback ? h("div", { class: "tl-heading" }, "traceback") : null,
    c.traceback ? h("pre", { class: "tl-traceback", "data-testid": "tool-traceback" }, c.traceback) : null,
    progress ? h(
      "div",
      { class: "tl-bar", "data-testid": "tool-progress-bar" },
      h("progress", { value: String(progress.value), max: String(progress.max) }),
      h("span", { class: "tl-meta" }, progress.label)
    ) : null,
    events.length ? h("ul", { class: "tl-events", "data-testid": "tool-events" }, events) : null
  ].filter((part) => part !== null);
}
function card(model, c, fetched, local) {
  const sig = JSON.stringify([c, fetched[c.id] ?? null, local.fetchedArgs?.[c.id] ?? null]);
  const kept = local.cards.get(c.id);
  if (kept && kept.sig === sig) return kept.el;
  let el = kept?.el;
  if (!el) {
    const opened = local.memory.open;
    el = h("details", { class: "tl-card", "data-testid": "tool-card", "data-call": c.id });
    el.open = opened.has(c.id);
    el.addEventListener("toggle", (e) => {
      if (e.target !== e.currentTarget) return;
      if (
        /** @type {HTMLDetailsElement} */
        el.open
      ) opened.add(c.id);
      else opened.delete(c.id);
    });
  }
  el.className = `tl-card tl-${c.status}`;
  el.setAttribute("data-status", c.status);
  const [head, ...rest] = cardParts(model, c, fetched, local);
  const summary = el.firstElementChild;
  if (summary?.tagName === "SUMMARY" && head?.tagName === "SUMMARY") {
    summary.replaceChildren(...head.childNodes);
    el.replaceChildren(summary, ...rest);
  } else {
    el.replaceChildren(...[head, ...rest].filter((part) => part !== void 0));
  }
  local.cards.set(c.id, { el, sig });
  return el;
}

// src/threadlab/widgets/js/decision.js
function decisionControl(model, local, c) {
  const key = `${c.thread} ${c.id}`;
  const kept = local.decisions.get(key);
  if (kept) return kept.el;
  const error = h("div", { class: "tl-error", "data-testid": "decide-error" });
  const editor = (
    /** @type {HTMLTextAreaElement} */
    h("textarea", { class: "tl-fork-editor", "data-testid": "decide-editor", rows: "4" })
  );
  editor.value = c.approval?.arguments ?? "{}";
  const reason = (
    /** @type {HTMLInputElement} */
    h("input", {
      class: "tl-reason",
      "data-testid": "reject-reason",
      placeholder: "reason (optional)",
      "aria-label": "reason for rejecting"
    })
  );
  const buttons = [];
  const ask = h("span", { class: "tl-ask", "data-testid": "decision-ask" });
  const question = `‖ ${c.name} waits for your decision`;
  ask.textContent = question;
  const enable = (on) => {
    for (const b of buttons) b.disabled = !on;
    ask.textContent = on ? question : `‖ ${c.name}: deciding…`;
  };
  const send = (decision) => {
    error.textContent = "";
    enable(false);
    local.focusAfter = `${controlOf("tool-card", { "data-call": c.id })} > summary`;
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
          send({ approved: true, arguments: (
            /** @type {Record<string, unknown>} */
            value
          ) });
        }
      },
      "approve with these arguments"
    )
  );
  editForm.hidden = true;
  const button = (label, id, onclick) => {
    const b = (
      /** @type {HTMLButtonElement} */
      h("button", { class: `tl-decide tl-${id}`, "data-testid": id, onclick }, label)
    );
    buttons.push(b);
    return b;
  };
  const el = h(
    "div",
    { class: "tl-decision", "data-testid": "decision-bar", "data-call": c.id },
    ask,
    h(
      "div",
      { class: "tl-decide-row" },
      button("Approve", "approve", () => send({ approved: true })),
      c.approval?.arguments ? button("Edit arguments", "edit-arguments", () => {
        editForm.hidden = !editForm.hidden;
      }) : null,
      button("Reject", "reject", () => send({ approved: false, reason: reason.value })),
      reason
    ),
    editForm,
    error
  );
  buttons.push(
    /** @type {HTMLButtonElement} */
    editForm.querySelector("button")
  );
  local.decisions.set(key, {
    el,
    error,
    sent: () => {
      local.focusAfter = null;
      enable(true);
    }
  });
  return el;
}

// src/threadlab/widgets/js/elicitation.js
function choicesOf(f) {
  if (Array.isArray(f.oneOf)) return f.oneOf.map((o) => [o.const, o.title ?? String(o.const)]);
  if (Array.isArray(f.enum)) return f.enum.map((v, i) => [v, f.enumNames?.[i] ?? String(v)]);
  return null;
}
function input(name, f) {
  const label = `${f.title ?? name}`;
  const choices = choicesOf(f);
  if (f.type === "boolean") {
    const box = (
      /** @type {HTMLInputElement} */
      h("input", { type: "checkbox", "data-field": name, "aria-label": label })
    );
    box.checked = f.default === true;
    return { el: box, read: () => box.checked };
  }
  if (f.type === "array") {
    const items = f.items?.anyOf ? f.items.anyOf.map((o) => [o.const, o.title ?? String(o.const)]) : (f.items?.enum ?? []).map((v) => [v, String(v)]);
    const chosen2 = new Set(Array.isArray(f.default) ? f.default : []);
    const boxes = items.map(([value, shown]) => {
      const box = (
        /** @type {HTMLInputElement} */
        h("input", { type: "checkbox", "data-field": `${name}=${String(value)}` })
      );
      box.checked = chosen2.has(value);
      return { box, value, el: h("label", { class: "tl-choice" }, box, ` ${shown}`) };
    });
    return {
      el: h("span", {}, ...boxes.map((b) => b.el)),
      read: () => boxes.filter((b) => b.box.checked).map((b) => b.value)
    };
  }
  if (choices) {
    const select = (
      /** @type {HTMLSelectElement} */
      h(
        "select",
        { "data-field": name, "aria-label": label },
        h("option", { value: "" }, "—"),
        ...choices.map(([, shown], i) => h("option", { value: String(i) }, shown))
      )
    );
    const at = choices.findIndex(([value]) => value === f.default);
    select.value = at >= 0 ? String(at) : "";
    return {
      el: select,
      read: () => select.value === "" ? void 0 : choices[Number(select.value)][0]
    };
  }
  const numeric = f.type === "number" || f.type === "integer";
  const formats = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };
  const kind = numeric ? "number" : formats[f.format ?? ""] ?? "text";
  const field = (
    /** @type {HTMLInputElement} */
    h("input", { type: kind, class: "tl-field", "data-field": name, "aria-label": label })
  );
  if (f.type === "integer") field.step = "1";
  if (f.default !== void 0) field.value = String(f.default);
  return {
    el: field,
    read: () => {
      if (field.value === "") return void 0;
      return numeric ? Number(field.value) : field.value;
    }
  };
}
function asker(asked) {
  if (asked.server) return `${asked.server} (MCP server):`;
  return asked.tool ? `${asked.tool} (tool):` : "the server asks:";
}
function elicitationForm(model, local, c) {
  const key = `${c.thread} ${c.id} form`;
  const kept = local.decisions.get(key);
  if (kept) return kept.el;
  const asked = c.elicitation ?? { state: "asked" };
  const schema = (
    /** @type {{properties?: Record<string, Field>, required?: string[]}} */
    asked.schema ?? {}
  );
  const required = new Set(schema.required ?? []);
  const properties = schema.properties ?? {};
  const order = (asked.order ?? []).filter((name) => name in properties);
  for (const name of Object.keys(properties)) if (!order.includes(name)) order.push(name);
  const fields = order.map((name) => ({
    name,
    f: properties[name],
    ...input(name, properties[name])
  }));
  const error = h("div", { class: "tl-error", "data-testid": "form-error" });
  const buttons = [];
  const send = (action) => {
    const content = {};
    if (action === "accept") {
      for (const { name, read, f } of fields) {
        const value = read();
        if (value === void 0 || typeof value === "number" && Number.isNaN(value)) {
          if (required.has(name)) {
            error.textContent = `${f.title ?? name} is needed`;
            return;
          }
          continue;
        }
        content[name] = value;
      }
    }
    error.textContent = "";
    for (const b of buttons) b.disabled = true;
    model.send({ op: "elicit", thread: c.thread, call: c.id, action, content });
  };
  for (
    const [label, action, id, kind] of
    /** @type {const} */
    [
      ["Submit", "accept", "form-submit", "tl-approve"],
      ["Decline", "decline", "form-decline", "tl-reject"]
    ]
  ) {
    const attrs = { class: `tl-decide ${kind}`, "data-testid": id, onclick: () => send(action) };
    buttons.push(
      /** @type {HTMLButtonElement} */
      h("button", attrs, label)
    );
  }
  const el = h(
    "div",
    { class: "tl-decision tl-form", "data-testid": "elicitation-form" },
    h(
      "span",
      { class: "tl-ask", "data-testid": "form-ask" },
      h("b", {}, `‖ ${asker(asked)}`),
      ` ${asked.message ?? ""}`
    ),
    h(
      "div",
      { class: "tl-form-fields" },
      ...fields.map(
        ({ name, f, el: field }) => h(
          f.type === "array" ? "div" : "label",
          // a group of checkboxes holds labels itself
          { class: "tl-form-field", title: f.description ?? "" },
          h("span", {}, `${f.title ?? name}${required.has(name) ? " *" : ""}`),
          field
        )
      )
    ),
    h("div", { class: "tl-decide-row" }, ...buttons),
    error
  );
  local.decisions.set(key, { el, error, sent: () => {
  } });
  return el;
}

// src/threadlab/widgets/js/fork.js
var FORK_MODES = {
  result: "a different result",
  arguments: "other arguments",
  message: "a different message"
};
function asJson(text) {
  try {
    JSON.parse(text);
    return text;
  } catch {
    return JSON.stringify(text);
  }
}
function forkControl(model, local, point) {
  const key = `${point.thread} ${point.at}`;
  const kept = local.forks.get(key);
  if (kept) return kept.el;
  const initial = {
    result: asJson(point.result ?? ""),
    arguments: point.args || "{}",
    message: point.text || ""
  };
  const modes = point.kind === "call" ? ["result", "arguments"] : ["message"];
  const error = h("div", { class: "tl-error", "data-testid": "fork-error" });
  const editor = (
    /** @type {HTMLTextAreaElement} */
    h("textarea", { class: "tl-fork-editor", "data-testid": "fork-editor", rows: "3" })
  );
  editor.value = initial[modes[0]];
  const mode = (
    /** @type {HTMLSelectElement} */
    h(
      "select",
      {
        "data-testid": "fork-mode",
        onchange: () => {
          editor.value = initial[mode.value];
          error.textContent = "";
        }
      },
      modes.map((m) => h("option", { value: m }, FORK_MODES[m]))
    )
  );
  const submit = () => {
    const chosen2 = mode.value;
    let value = editor.value;
    if (chosen2 !== "message") {
      try {
        value = JSON.parse(editor.value);
      } catch (e) {
        error.textContent = `not JSON: ${e instanceof Error ? e.message : e}`;
        return;
      }
      if (chosen2 === "arguments" && (typeof value !== "object" || !value || Array.isArray(value))) {
        error.textContent = "the arguments must be a JSON object";
        return;
      }
    }
    error.textContent = "";
    const at = { op: (
      /** @type {const} */
      "fork"
    ), thread: point.thread, at: point.at };
    if (chosen2 === "message") model.send({ ...at, message: String(value) });
    else if (chosen2 === "arguments")
      model.send({ ...at, arguments: (
        /** @type {Record<string, unknown>} */
        value
      ) });
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
      "run the branch"
    ),
    error
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
        }
      },
      "fork from here"
    ),
    form
  );
  local.forks.set(key, { el, error });
  return el;
}

// src/threadlab/widgets/js/conversation.js
function messageLine(model, m, trace, local, replaying = false) {
  const child = m.subagent ? trace.threads.find((t) => t.id === m.subagent) : void 0;
  const asked = local.requests[m.id];
  const sig = JSON.stringify([m, child?.name, child?.status, asked ?? null, replaying]);
  const kept = local.messages.get(m.id);
  if (kept && kept.sig === sig) return kept.el;
  const who = m.subagent ? [
    h("b", {}, `report from ${child?.name || m.subagent}`),
    child ? h("span", { class: `tl-status tl-${child.status}` }, child.status) : null
  ] : h("b", {}, m.role + (m.side ? ` (${m.side})` : ""));
  const el = h(
    "div",
    {
      class: `tl-msg tl-${m.subagent ? "report" : m.role}`,
      style: `margin-left:${m.depth * 16}px`,
      "data-testid": m.subagent ? "subagent-report" : null,
      "data-message": m.id
    },
    who,
    replaying && m.role === "assistant" && m.depth === 0 ? h(
      "span",
      {
        class: `tl-origin tl-${m.model === "replay" ? "replayed" : "called"}`,
        "data-testid": "step-origin"
      },
      m.model === "replay" ? "replayed" : "model call"
    ) : null,
    " ",
    m.text,
    m.attachments.length ? h("span", { class: "tl-meta" }, ` · attached: ${m.attachments.join(", ")}`) : null,
    m.usage ? h("span", { class: "tl-meta" }, ` · ${usageText(m.usage)}`) : null,
    m.role === "assistant" && costText(m.cost_usd) ? h("span", { class: "tl-meta", "data-testid": "step-cost" }, ` · ${costText(m.cost_usd)}`) : null,
    m.reasoning ? h(
      "details",
      { class: "tl-thinking", "data-testid": "thinking" },
      h("summary", {}, "thinking"),
      h("pre", {}, m.reasoning)
    ) : null,
    m.role === "assistant" ? requestPart(model, m, local) : null
  );
  for (const open of kept?.el.querySelectorAll("details[open]") || []) {
    const again = el.querySelector(`details[data-testid="${open.getAttribute("data-testid")}"]`);
    if (again) again.open = true;
  }
  local.messages.set(m.id, { el, sig });
  return el;
}
function requestPart(model, m, local) {
  const text = local.requests[m.id];
  const part = h(
    "details",
    {
      class: "tl-request",
      "data-testid": "step-request",
      ontoggle: (e) => {
        const open = (
          /** @type {HTMLDetailsElement} */
          e.currentTarget.open
        );
        if (open && m.thread && local.requests[m.id] === void 0)
          model.send({ op: "fetch_request", thread: m.thread, message: m.id });
      }
    },
    h("summary", {}, "request"),
    h("pre", {}, text ?? "loading…")
  );
  return part;
}
function cardRow(model, c, local, pages = {}) {
  const key = `row ${c.id}`;
  const row = local.cards.get(key)?.el ?? h("div", {});
  row.style.marginLeft = `${c.depth * 16}px`;
  const app = appFrame(model, c, local, pages);
  keepChildren(
    row,
    app ? [card(model, c, local.fetched, local), app] : [card(model, c, local.fetched, local)]
  );
  local.cards.set(key, { el: row, sig: "" });
  return row;
}
function conversation(model, trace, threadId, local) {
  const out = [];
  const placed = /* @__PURE__ */ new Set();
  const forkable = !model.get("live") && !model.get("offline") && trace.run?.status !== "running";
  const placeCard = (c) => {
    placed.add(c.id);
    out.push(cardRow(model, c, local, trace.apps));
    const decides = !model.get("offline") && model.get("decides") !== false;
    if (c.status === "waiting" && c.approval?.state === "asked" && decides)
      out.push(decisionControl(model, local, c));
    if (c.elicitation?.state === "asked" && model.get("live") && !model.get("offline"))
      out.push(elicitationForm(model, local, c));
    if (forkable && c.depth === 0 && FINAL.has(c.status))
      out.push(
        forkControl(model, local, {
          thread: threadId,
          at: c.id,
          kind: "call",
          result: local.fetched[c.id] ?? c.result,
          args: c.args
        })
      );
  };
  const replaying = replayCounts(trace.messages[threadId] || []) !== null;
  const earlier = trace.earlier?.[threadId];
  if (earlier)
    out.push(
      h(
        "div",
        { class: "tl-meta tl-earlier", "data-testid": "earlier" },
        `… ${earlier} earlier ${earlier === 1 ? "message" : "messages"} (step back to see them)`
      )
    );
  for (const m of trace.messages[threadId] || []) {
    if (m.role === "tool" || m.depth > 0 && m.role !== "assistant") continue;
    const shown = m.usage || m.reasoning || replaying && m.depth === 0;
    if (m.text || m.role === "assistant" && shown)
      out.push(messageLine(model, m, trace, local, replaying));
    if (forkable && m.role === "user" && m.depth === 0 && !m.subagent)
      out.push(
        forkControl(model, local, { thread: threadId, at: m.id, kind: "message", text: m.text })
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
        draft
      )
    );
  for (const c of Object.values(trace.cards || {}))
    if (c.thread === threadId && !placed.has(c.id)) placeCard(c);
  return out;
}

// src/threadlab/widgets/js/preview.js
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
function markdownInline(line) {
  return escapeHtml(line).replace(/`([^`]+)`/g, "<code>$1</code>").replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>").replace(/(^|[^*])\*([^*]+)\*/g, "$1<em>$2</em>").replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2">$1</a>');
}
function markdownHtml(text) {
  const out = [];
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
      out.push(`${escapeHtml(line)}
`);
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
var SANDBOX_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:";
function previewPane(preview, local) {
  if (preview.error) return h("div", { class: "tl-error" }, preview.error);
  const name = preview.path.split("/").pop() || "file";
  const href = preview.image ? preview.image : URL.createObjectURL(new Blob([preview.text || ""], { type: "text/plain" }));
  const download = h(
    "a",
    { class: "tl-download", "data-testid": "file-download", href, download: name },
    preview.truncated ? "download (the first 256 KB)" : "download"
  );
  const markdown = /\.(md|markdown)$/i.test(preview.path) && !preview.image;
  const html = (markdown || /\.html?$/i.test(preview.path)) && !preview.image;
  const toggle = html ? h(
    "button",
    {
      class: "tl-copy",
      "data-testid": "preview-source",
      onclick: () => {
        local.previewSource = !local.previewSource;
        local.redraw();
      }
    },
    local.previewSource ? "rendered" : "source"
  ) : null;
  let body;
  if (preview.image) body = h("img", { src: preview.image, alt: preview.path, class: "tl-image" });
  else if (html && !local.previewSource) {
    const frame2 = (
      /** @type {HTMLIFrameElement} */
      h("iframe", { class: "tl-frame", "data-testid": "file-frame", sandbox: "", title: name })
    );
    const page = markdown ? markdownHtml(preview.text || "") : preview.text || "";
    frame2.srcdoc = `<meta http-equiv="Content-Security-Policy" content="${SANDBOX_CSP}">${page}`;
    body = frame2;
  } else body = h("pre", { class: "tl-preview", "data-testid": "file-preview" }, preview.text);
  return h(
    "div",
    { class: "tl-preview-pane", "data-testid": "preview-pane" },
    h("div", {}, toggle, " ", download),
    body
  );
}

// src/threadlab/widgets/js/files.js
function pathParts(path) {
  return path.split(/(?<=\/)/).flatMap((part, i) => i ? [h("wbr"), part] : [part]);
}
function askPreview(model, thread, f) {
  model.send({ op: "preview", thread, path: f.path, ...f.digest ? { digest: f.digest } : {} });
}
function files(model, trace, threadId, local) {
  const list = trace.files?.[threadId] || [];
  const preview = local.preview && local.preview.thread === threadId ? local.preview : null;
  const now = preview?.digest ? list.find((f) => f.path === preview.path) : void 0;
  if (preview && now?.digest && now.digest !== preview.digest) askPreview(model, threadId, now);
  const rows = list.map(
    (f) => h(
      "li",
      {},
      h(
        "button",
        {
          class: `tl-file${preview?.path === f.path ? " tl-selected" : ""}`,
          "data-testid": "file",
          "data-path": f.path,
          title: f.path,
          onclick: () => askPreview(model, threadId, f)
        },
        pathParts(f.path)
      ),
      h("span", { class: "tl-meta" }, ` ${countText(f.size)} B`)
    )
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
    rows.length ? h("ul", { class: "tl-file-list" }, rows) : h("div", { class: "tl-meta" }, "no files"),
    shown
  ];
}

// src/threadlab/widgets/js/pause.js
var TEXT_ANSWER = "(a text answer)";
function revealed(guess, answer) {
  const right = answer.includes(guess);
  return {
    right,
    text: right ? `✓ right: ${guess}` : `✗ you said ${guess}; it chose ${answer.join(", ")}`
  };
}
function steps(trace) {
  return (trace.messages?.[trace.root] || []).filter((m) => m.role === "assistant" && !m.depth);
}
function chosen(trace, message) {
  const names = message.calls.map((id) => trace.cards?.[id]?.name).filter((n) => !!n);
  return names.length ? (
    /** @type {string[]} */
    names
  ) : [TEXT_ANSWER];
}
function predictionScore(trace, local) {
  const asked = local.stepPrediction;
  if (!asked) return null;
  const made = steps(trace)[asked.after];
  if (asked.choice !== null && made) {
    const told = revealed(asked.choice, chosen(trace, made));
    asked.scored.push(told.right);
    asked.reveal = told.text;
    asked.choice = null;
  }
  if (!asked.reveal) return null;
  const right = asked.scored.filter((r) => r).length;
  return h(
    "div",
    { class: "tl-quiz", "data-testid": "step-reveal" },
    h(
      "span",
      { class: asked.reveal.startsWith("✓") ? "tl-guess-right" : "tl-guess-wrong" },
      asked.reveal
    ),
    h("span", { class: "tl-meta" }, `score ${right} / ${asked.scored.length}`)
  );
}
function predictRow(trace, local) {
  const offered = trace.run?.next_tools;
  if (!offered) return null;
  const after = steps(trace).length;
  const choices = [];
  const made = local.stepPrediction?.after === after ? local.stepPrediction.choice : null;
  const said = h("span", { class: "tl-meta", "data-testid": "step-picked" }, picked(made));
  const pick = (choice, button) => {
    const asked = local.stepPrediction || { choice: null, after, scored: [], reveal: null };
    local.stepPrediction = { ...asked, choice, after };
    for (const b of choices) b.setAttribute("aria-pressed", String(b === button));
    said.textContent = picked(choice);
  };
  for (const choice of [...offered, TEXT_ANSWER]) {
    const button = (
      /** @type {HTMLButtonElement} */
      h(
        "button",
        {
          class: "tl-decide",
          "data-testid": "step-choice",
          "aria-pressed": String(choice === made)
        },
        choice
      )
    );
    button.addEventListener("click", () => pick(choice, button));
    choices.push(button);
  }
  return h(
    "div",
    { class: "tl-quiz", "data-testid": "step-predict" },
    h("span", { class: "tl-meta" }, "predict: what will the model do? "),
    ...choices,
    said
  );
}
function picked(choice) {
  return choice === null ? "" : ` your pick: ${choice} — Continue shows what it does`;
}
function pausePanel(model, trace, local) {
  const run = trace.run || {};
  if (run.stop_reason !== "waiting: model step") return null;
  const offline = !!model.get("offline");
  const ask = h(
    "span",
    { class: "tl-ask", "data-testid": "pause-ask" },
    "‖ paused before a model step"
  );
  const request = run.next_request ? h(
    "details",
    { class: "tl-request", "data-testid": "next-request", open: "" },
    h("summary", {}, "what the model is about to be sent"),
    h("pre", {}, run.next_request)
  ) : null;
  if (offline)
    return h("div", { class: "tl-decision tl-pause", "data-testid": "model-pause" }, ask, request);
  const buttons = [];
  const send = (action) => {
    for (const b of buttons) b.disabled = true;
    ask.textContent = action === "continue" ? "‖ sending the step…" : "‖ stopping…";
    model.send({ op: "step", thread: trace.root, action });
  };
  const button = (label, action) => {
    const b = (
      /** @type {HTMLButtonElement} */
      h(
        "button",
        {
          class: `tl-decide tl-${action}`,
          "data-testid": `step-${action}`,
          onclick: () => send(action)
        },
        label
      )
    );
    buttons.push(b);
    return b;
  };
  return h(
    "div",
    { class: "tl-decision tl-pause", "data-testid": "model-pause" },
    ask,
    request,
    predictRow(trace, local),
    h("div", { class: "tl-decide-row" }, button("Continue", "continue"), button("Stop", "stop"))
  );
}

// src/threadlab/widgets/js/timeline.js
function duration(seconds) {
  if (seconds < 1) return `${Math.round(seconds * 1e3)} ms`;
  if (seconds < 60) return `${seconds.toFixed(1)} s`;
  const whole = Math.round(seconds);
  if (whole < 3600) return `${Math.floor(whole / 60)} min ${whole % 60} s`;
  const minutes = Math.round(seconds / 60);
  return minutes < 48 * 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${Math.round(minutes / (24 * 60))} days`;
}
function spansOf(trace, t, calls) {
  const spans = [];
  const last = {};
  for (const m of trace.messages[t.id] || []) {
    if (typeof m.at !== "number") continue;
    const before = last[m.depth];
    const from = before !== void 0 && typeof m.since === "number" ? Math.max(before, m.since) : before;
    if (m.role === "assistant" && from !== void 0) {
      const at = m.at;
      spans.push({
        kind: "step",
        start: from,
        end: at,
        label: "model",
        detail: () => [
          `model step · ${duration(at - from)}`,
          m.usage ? usageText(m.usage) : "",
          costText(m.cost_usd)
        ].filter((x) => x).join(" · ")
      });
    }
    last[m.depth] = m.at;
  }
  for (const c of calls) {
    if (typeof c.finished_at !== "number" || c.duration_ms === null) continue;
    const took = c.duration_ms / 1e3;
    spans.push({
      kind: "call",
      start: c.finished_at - took,
      end: c.finished_at,
      label: c.name,
      detail: () => `${c.name}${c.label ? ` ${c.label}` : ""} · ${duration(took)} · ${c.status}`
    });
  }
  return spans;
}
var IDLE_S = 1;
function axisOf(spans) {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const t0 = sorted[0].start;
  const idle = [];
  let reached = sorted[0].end;
  for (const x of sorted) {
    if (x.start - reached > IDLE_S) idle.push({ from: reached, to: x.start });
    reached = Math.max(reached, x.end);
  }
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
function lanesOf(trace) {
  const rows = [];
  const own = trace.threads.filter((t) => !t.relation);
  const ids = new Set(own.map((t) => t.id));
  const calls = /* @__PURE__ */ new Map();
  for (const c of Object.values(trace.cards)) {
    const listed = calls.get(c.thread);
    if (listed) listed.push(c);
    else calls.set(c.thread, [c]);
  }
  const parentOf = (t) => t.parent && ids.has(t.parent) ? t.parent : null;
  const walk = (parent, depth) => {
    for (const t of own.filter((x) => parentOf(x) === parent)) {
      rows.push({ t, depth, spans: spansOf(trace, t, calls.get(t.id) || []) });
      walk(t.id, depth + 1);
    }
  };
  walk(null, 0);
  return rows;
}
function timeline(trace, drawn = true) {
  const whole = lanesOf(trace.uncut ? { ...trace, ...trace.uncut } : trace);
  const all = whole.flatMap((r) => r.spans);
  if (!all.length) return { head: "timeline", lanes: [] };
  const axis = axisOf(all);
  const total = axis.total || 1;
  const steps2 = all.filter((x) => x.kind === "step");
  const calls = all.filter((x) => x.kind === "call");
  const sum = (spans) => spans.reduce((acc, x) => acc + (x.end - x.start), 0);
  const idle = axis.leftOut ? ` (${duration(axis.leftOut)} idle, not drawn)` : "";
  const head = `timeline · ${duration(axis.total)}${idle} · ${counted(steps2.length, "model step")} (${duration(sum(steps2))}) · ${counted(calls.length, "call")} (${duration(sum(calls))})`;
  if (!drawn) return { head, lanes: [] };
  const rows = trace.uncut ? lanesOf(trace) : whole;
  const lanes = rows.map(
    ({ t, depth, spans }) => h(
      "div",
      { class: "tl-lane", "data-testid": "timeline-lane", "data-thread": t.id },
      h(
        "div",
        { class: "tl-lane-name", style: `padding-left:${Math.min(depth, 8) * 10}px` },
        t.name || t.agent || t.id
      ),
      h(
        "div",
        { class: "tl-lane-track" },
        spans.map(
          (x) => h(
            "span",
            {
              class: `tl-span tl-span-${x.kind}`,
              "data-testid": `timeline-${x.kind}`,
              title: x.detail(),
              style: `left:${(axis.at(x.start) / total * 100).toFixed(2)}%;width:${Math.max((axis.at(x.end) - axis.at(x.start)) / total * 100, 0.5).toFixed(2)}%`
            },
            x.label
          )
        )
      )
    )
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
        axis.breaks.map(
          (x) => h("i", {
            class: "tl-break",
            "data-testid": "timeline-break",
            title: "idle, not drawn",
            style: `left:${(x / total * 100).toFixed(2)}%`
          })
        ),
        h("span", {}, duration(axis.total))
      )
    )
  );
  return { head, lanes };
}

// src/threadlab/widgets/js/tree.js
function tree(trace, selected, select) {
  const kids = {};
  for (const t of trace.threads) {
    const key = t.parent || "";
    kids[key] = kids[key] || [];
    kids[key].push(t);
  }
  const below = (t) => {
    const busy = [];
    const walk = (at) => {
      for (const child of kids[at.id] || []) {
        if (child.progress) busy.push(child.progress);
        walk(child);
      }
    };
    walk(t);
    return busy.length ? `${busy.length} below: ${busy[0]}` : "";
  };
  const node = (t) => h(
    "li",
    {},
    h(
      "button",
      {
        class: `tl-node${t.id === selected ? " tl-selected" : ""}`,
        "data-testid": "tree-node",
        "data-thread": t.id,
        onclick: () => select(t.id)
      },
      h("b", {}, t.name || t.agent || t.id),
      // A related thread (the origin of a branch, a branch) is told by its name and its
      // id, which opens it; a status of its own is not shown.
      t.relation ? h("span", { class: "tl-meta", "data-testid": "related-id", title: t.id }, shortId(t.id)) : h("span", { class: `tl-status tl-${t.status}` }, t.status),
      t.progress ? h("span", { class: "tl-progress" }, t.progress) : null,
      below(t) ? h("span", { class: "tl-progress tl-below", "data-testid": "progress-below" }, below(t)) : null,
      costText(t.cost_usd) ? h(
        "span",
        { class: "tl-meta", "data-testid": "thread-cost" },
        ` ${costText(t.cost_usd)}`
      ) : null
    ),
    kids[t.id] ? h("ul", {}, kids[t.id].map(node)) : null
  );
  return h("ul", { class: "tl-tree", "data-testid": "subagent-tree" }, (kids[""] || []).map(node));
}
function shortId(id) {
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}

// src/threadlab/widgets/js/inspector.js
function skeleton(el) {
  const ui = {
    status: h("span", { class: "tl-status", "data-testid": "run-status" }),
    usage: h("span", { class: "tl-meta", "data-testid": "run-usage" }),
    code: h("code", {}),
    play: h("button", { class: "tl-fork tl-step-through", "data-testid": "step-through" }),
    reopen: h("span", { class: "tl-meta", "data-testid": "reopen-hint" }),
    left: h("div", { class: "tl-left" }),
    center: h("div", { class: "tl-center", "data-testid": "conversation" }),
    right: h("div", { class: "tl-right tl-files", "data-testid": "file-browser" }),
    error: h("div", { class: "tl-error" }),
    pause: h("div", { "data-testid": "pause-slot" }),
    predicted: h("div", {}),
    timelineHead: h("span", {}),
    timelineBody: h("div", { class: "tl-lanes" })
  };
  const timelineBox = (
    /** @type {HTMLDetailsElement} */
    h(
      "details",
      { class: "tl-timeline", "data-testid": "timeline" },
      h("summary", {}, ui.timelineHead),
      ui.timelineBody
    )
  );
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
      " ",
      ui.play,
      ui.reopen
    ),
    timelineBox,
    ui.pause,
    ui.predicted,
    h("div", { class: "tl-panes" }, ui.left, ui.center, ui.right),
    ui.error
  );
  el.replaceChildren(root);
  return { root, timeline: timelineBox, ...ui };
}
function forgetShown(local) {
  local.fetched = {};
  local.fetchedArgs = {};
  local.requests = {};
  local.clock = {};
  local.cards.clear();
  local.messages.clear();
  local.forks.clear();
  local.decisions.clear();
  local.apps.clear();
}
function inspector(model, el, trace, local) {
  if (local.shownRoot !== trace.root) {
    if (local.shownRoot !== void 0) forgetShown(local);
    local.shownRoot = trace.root;
  }
  const selected = local.selected || trace.root;
  const select = (id) => {
    local.selected = id;
    local.memory.selected = id;
    model.send({ op: "select", thread: id });
    local.redraw();
  };
  if (!local.ui || local.ui.root.parentNode !== el) local.ui = skeleton(el);
  const ui = local.ui;
  const run = trace.run || {};
  ui.code.textContent = trace.root;
  ui.play.hidden = !!model.get("offline") || !trace.root;
  ui.reopen.hidden = !model.get("offline") || !!model.get("shared") || !!model.get("past") || !trace.root;
  ui.reopen.replaceChildren(
    ...ui.reopen.hidden ? [] : [" · to step through or fork it, run ", h("code", {}, `%threadlab open ${trace.root}`)]
  );
  ui.reopen.title = ui.reopen.hidden ? "" : "in a kernel with threadlab loaded (%load_ext threadlab); a fork runs on that kernel's definitions: run the cells that define its tools and prompts first";
  ui.play.textContent = local.playing ? "loading the history…" : "▶ step through";
  ui.play.onclick = () => {
    local.playing = true;
    local.focusAfter = controlOf("player");
    model.send({ op: "play", thread: trace.root, playing: true });
    local.redraw();
  };
  ui.status.className = `tl-status tl-${run.status}`;
  ui.status.textContent = run.status || "";
  const counts = replayCounts(trace.messages[trace.root] || []);
  const spent = [
    run.usage ? usageText(run.usage) : "",
    costText(run.cost_usd),
    counts ? `${counted(counts[0], "model call")} replayed · ${counts[1]} forwarded to the model` : ""
  ].filter((p) => p);
  ui.usage.textContent = spent.length ? ` ${spent.join(" · ")}` : "";
  ui.left.replaceChildren(
    h("div", { class: "tl-heading" }, "threads"),
    tree(trace, selected, select)
  );
  keepChildren(ui.center, conversation(model, trace, selected, local));
  ui.right.replaceChildren(
    ...files(model, trace, selected, local).filter(
      /** @returns {x is HTMLElement} */
      (x) => !!x
    )
  );
  ui.timeline.ontoggle = () => local.redraw();
  const spans = timeline(trace, ui.timeline.open);
  ui.timelineHead.textContent = spans.head;
  ui.timelineBody.replaceChildren(...spans.lanes);
  const paused = pausePanel(model, trace, local);
  const pauseKey = paused ? `${trace.root} ${run.next_request ?? ""}` : "";
  if (ui.pause.dataset.key !== pauseKey) {
    ui.pause.dataset.key = pauseKey;
    ui.pause.replaceChildren(...paused ? [paused] : []);
  }
  const scored = model.get("offline") ? null : predictionScore(trace, local);
  ui.predicted.replaceChildren(...scored ? [scored] : []);
  ui.error.textContent = paused ? "" : run.error || "";
  ui.error.className = run.status === "waiting" ? "tl-meta" : "tl-error";
  if (!model.get("past"))
    for (const marked of ui.root.querySelectorAll(".tl-current"))
      marked.classList.remove("tl-current");
}

// src/threadlab/widgets/js/class_view.js
function grade(r) {
  return r.score === null || r.max_score === null ? "" : `${r.score} / ${r.max_score}`;
}
function classView(model, el, local) {
  const rows = model.get("rows") || [];
  const opened = model.get("opened") || {};
  const exercise = model.get("exercise") || "";
  const offline = Boolean(model.get("offline"));
  const graded = Boolean(model.get("graded")) || rows.some((r) => r.max_score !== null);
  const columns = ["member", "thread", "status", "calls", "where it stands"];
  if (graded) columns.push("grade", "feedback");
  columns.push("");
  const heading = h(
    "p",
    { class: "tl-class-head", "data-testid": "class-heading" },
    `${rows.length} member${rows.length === 1 ? "" : "s"}`,
    exercise ? ` · exercise ${exercise}` : " · every target",
    model.get("live") ? " · updates while they run" : ""
  );
  const table = h(
    "table",
    { class: "tl-list", "data-testid": "class-list" },
    h(
      "tr",
      {},
      columns.map((c) => h("th", {}, c))
    ),
    rows.map(
      (r) => h(
        "tr",
        {
          class: r.thread && r.thread === opened.root ? "tl-opened" : "",
          "data-testid": "class-row",
          "data-member": r.member
        },
        h("td", {}, r.member),
        h("td", {}, r.thread ? h("code", {}, r.thread) : "—"),
        h("td", {}, r.status),
        h("td", {}, r.calls),
        h("td", { class: "tl-where" }, r.where),
        graded ? h("td", { "data-testid": "class-grade" }, grade(r)) : null,
        graded ? h("td", { class: "tl-where" }, r.feedback) : null,
        h(
          "td",
          {},
          r.thread ? h(
            "button",
            {
              class: "tl-open",
              "data-testid": "open-member",
              "aria-label": `open ${r.member}'s thread`,
              disabled: offline ? "" : null,
              title: offline ? NO_KERNEL : null,
              onclick: () => model.send({ op: "open", thread: r.thread || "" })
            },
            "open"
          ) : null
        )
      )
    )
  );
  const known = model.get("exercises") || [];
  const none = !rows.length && exercise ? h(
    "p",
    { class: "tl-meta", "data-testid": "class-none" },
    `no member has a thread of ${exercise}`,
    known.length ? ` (the members' threads are of: ${known.join(", ")})` : ""
  ) : null;
  const holder = h("div", {});
  const whose = rows.find((r) => r.thread && r.thread === opened.root);
  const title = whose ? h(
    "p",
    { class: "tl-class-head", tabindex: "-1", "data-testid": "class-opened" },
    `${whose.member}'s thread`
  ) : null;
  el.replaceChildren(h("div", {}, heading, table, none, title, holder));
  if (opened.root) inspector(model, holder, opened, local);
  if (title && local.memory.shownMember !== opened.root) {
    local.memory.shownMember = opened.root;
    title.scrollIntoView?.({ block: "nearest" });
    title.focus({ preventScroll: true });
  }
}

// src/threadlab/widgets/js/eval_table.js
function evalTable(model, el, local) {
  const rows = model.get("rows") || [];
  const models = model.get("models") || [];
  const cases = model.get("cases") || [];
  const total = model.get("total") || rows.length;
  const finished = model.get("finished");
  const opened = model.get("opened") || {};
  const byCase = new Map(cases.map((c) => [c, rows.filter((r) => r.case === c)]));
  const differs = (runs) => new Set(runs.map((r) => `${r.status} ${r.passed} ${JSON.stringify(r.scores)}`)).size > 1;
  const shownCases = cases.filter((c) => {
    const runs = byCase.get(c) || [];
    if (local.evalFailures && !runs.some((r) => !r.passed)) return false;
    if (local.evalDifferences && !differs(runs)) return false;
    return true;
  });
  const passed = rows.filter((r) => r.passed).length;
  const elapsedS = Date.now() / 1e3 - (model.get("started_at") || 0);
  const left = !finished && rows.length > 0 ? elapsedS / rows.length * (total - rows.length) : null;
  const progress = h(
    "div",
    { class: "tl-bar", "data-testid": "eval-progress" },
    h("progress", { max: String(total), value: String(rows.length) }),
    h(
      "span",
      {},
      `${rows.length} / ${total} runs, ${passed} passed` + (finished ? "" : left === null ? " · starting" : ` · about ${Math.ceil(left)} s left`)
    )
  );
  const filter = (label, key) => {
    const box = (
      /** @type {HTMLInputElement} */
      h("input", {
        type: "checkbox",
        "data-testid": `eval-${key}`,
        onchange: () => {
          local[key] = box.checked;
          local.redraw();
        }
      })
    );
    box.checked = local[key];
    return h("label", { class: "tl-eval-filter" }, box, ` ${label}`);
  };
  const cellOf = (r) => h(
    "button",
    {
      class: `tl-eval-run ${r.passed ? "tl-eval-pass" : "tl-eval-fail"}${r.thread && r.thread === opened.root ? " tl-opened" : ""}`,
      "data-testid": "eval-cell",
      "data-thread": r.thread || "",
      disabled: !r.thread || model.get("offline") ? "" : null,
      title: [
        Object.entries(r.scores).map(([k, v]) => `${k}: ${v}`).join("\n"),
        `${r.status} · ${r.ms} ms · ${r.tokens} tokens` + (r.cost_usd === null ? " · cost unknown" : ` · $${r.cost_usd.toFixed(4)}`),
        r.error || "",
        r.note || "",
        model.get("offline") ? NO_KERNEL : ""
      ].filter(Boolean).join("\n"),
      onclick: () => r.thread && model.send({ op: "open", thread: r.thread })
    },
    `${r.passed ? "✓" : "✗"} ${r.status === "completed" ? "" : `${r.status} `}${r.ms} ms`
  );
  const table = h(
    "table",
    { class: "tl-list tl-eval", "data-testid": "eval-table" },
    h(
      "tr",
      {},
      h("th", {}, "case"),
      models.map((m) => h("th", {}, m))
    ),
    shownCases.map(
      (c) => h(
        "tr",
        { "data-case": c },
        h("th", {}, c),
        models.map((m) => {
          const runs = (byCase.get(c) || []).filter((r) => r.model === m);
          return h(
            "td",
            {},
            runs.length ? runs.map(cellOf) : h("span", { class: "tl-muted" }, "…")
          );
        })
      )
    )
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
        filter("where the models differ", "evalDifferences")
      ),
      table,
      holder
    )
  );
  if (opened.root) inspector(model, holder, opened, local);
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
function nodeOf(node, chosen2, choose) {
  const kind = KINDS.has(node.kind) ? node.kind : "missing";
  const x = num(node.x);
  const y = num(node.y);
  const group = svg(
    "g",
    {
      class: `tl-g-node tl-g-${kind}${chosen2 ? " tl-g-chosen" : ""}`,
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
  const chosen2 = nodes.find((n) => n.id === local.selected) || null;
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
    ...nodes.map((n) => nodeOf(n, n === chosen2, choose))
  );
  const pane = h(
    "div",
    { class: "tl-g-definition", "data-testid": "graph-definition" },
    chosen2 ? [
      h("b", {}, chosen2.name),
      ` · ${KIND_WORDS[KINDS.has(chosen2.kind) ? chosen2.kind : "missing"]}`,
      h("pre", {}, chosen2.definition)
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
function threadList(model, el, local) {
  const rows = model.get("rows") || [];
  const opened = model.get("opened") || {};
  const query = local.listQuery.trim().toLowerCase();
  const matching = query ? rows.filter(
    (r) => [r.id, r.agent, r.notebook || r.origin || "", r.status, r.forked_from || ""].some(
      (f) => f.toLowerCase().includes(query)
    )
  ) : rows;
  const shown = matching.slice(0, local.listShown);
  const search = (
    /** @type {HTMLInputElement} */
    h("input", {
      class: "tl-reason tl-search",
      "data-testid": "thread-search",
      placeholder: "search by id, agent, notebook or status",
      "aria-label": "search threads",
      oninput: () => {
        local.listQuery = search.value;
        local.listShown = PAGE;
        local.redraw();
        const again = (
          /** @type {HTMLInputElement | null} */
          el.querySelector("[data-testid=thread-search]")
        );
        again?.focus();
        again?.setSelectionRange(again.value.length, again.value.length);
      }
    })
  );
  search.value = local.listQuery;
  const table = h(
    "table",
    { class: "tl-list", "data-testid": "thread-list" },
    h(
      "tr",
      {},
      ["thread", "agent", "notebook", "created", "status", "messages", "subagents", ""].map(
        (c) => h("th", {}, c)
      )
    ),
    shown.map(
      (r) => h(
        "tr",
        {
          class: r.id === opened.root ? "tl-opened" : "",
          "data-testid": "thread-row",
          "data-thread": r.id
        },
        h(
          "td",
          {},
          h("code", {}, r.id),
          // A branch says which thread it came from: found by that thread's id too.
          r.forked_from ? h(
            "div",
            { class: "tl-branch-of", "data-testid": "branch-of" },
            "branch of ",
            h("code", {}, r.forked_from)
          ) : null
        ),
        h("td", {}, r.agent),
        h("td", { title: r.origin || "" }, r.notebook || r.origin || ""),
        h("td", { class: "tl-date" }, WHEN.format(new Date(r.created_at * 1e3))),
        h("td", {}, r.status),
        h("td", {}, r.messages),
        h("td", {}, r.children),
        h(
          "td",
          {},
          h(
            "button",
            {
              class: "tl-open",
              "data-testid": "open-thread",
              disabled: model.get("offline") ? "" : null,
              title: model.get("offline") ? NO_KERNEL : null,
              onclick: () => model.send({ op: "open", thread: r.id })
            },
            "open"
          )
        )
      )
    )
  );
  const more = matching.length > shown.length ? h(
    "button",
    {
      class: "tl-more",
      "data-testid": "more-threads",
      onclick: () => {
        local.listShown += PAGE;
        local.redraw();
      }
    },
    `show ${Math.min(PAGE, matching.length - shown.length)} more of ${matching.length}`
  ) : null;
  const holder = h("div", {});
  el.replaceChildren(h("div", {}, search, table, more, holder));
  if (opened.root) inspector(model, holder, opened, local);
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

// src/threadlab/widgets/js/variables.js
function envAt(points, at) {
  const env = {};
  const last = Math.min(at, points.length - 1);
  for (let i = 0; i <= last; i++) {
    const p = points[i];
    if (p.env) env[p.thread] = p.env;
  }
  return env;
}
function variablesOf(envs, trace, id) {
  const byId = new Map(trace.threads.map((t) => [t.id, t]));
  const out = [];
  const seen = /* @__PURE__ */ new Set();
  for (let t = byId.get(id); t && envs[t.id] && !seen.has(t.id); t = byId.get(t.parent || "")) {
    seen.add(t.id);
    out.push({ thread: t.id, name: t.name || t.agent || t.id, values: Object.entries(envs[t.id]) });
  }
  return out;
}
var SHOWN_VALUE = 120;
function variablesLine(model, points, at, trace, id) {
  if (!points[0]?.env)
    return model.get("narrating") ? [h("span", { class: "tl-meta" }, "(the variables are on their way: a moment…)")] : [];
  const value = (text) => h(
    "code",
    {
      class: /^\[secret:[^\]]+\]$/.test(text) ? "tl-secret" : "tl-value",
      title: text.length > SHOWN_VALUE ? text.slice(0, 4e3) : null
    },
    text.length > SHOWN_VALUE ? `${text.slice(0, SHOWN_VALUE)}…` : text
  );
  const groups = variablesOf(envAt(points, at), trace, id).filter(
    (group, i) => i === 0 || group.values.length
  );
  if (!groups.some((group) => group.values.length))
    return [
      h("span", { class: "tl-meta", "data-testid": "no-variables" }, "no variables at this point")
    ];
  return [
    h("span", { class: "tl-heading" }, "variables then"),
    ...groups.map(
      ({ thread, name, values }) => h(
        "span",
        { class: "tl-env-group", "data-thread": thread },
        h("b", {}, name),
        ...values.length ? values.map(
          ([key, text]) => h(
            "span",
            {
              class: "tl-variable",
              "data-testid": "player-variable",
              "data-thread": thread,
              "data-name": key
            },
            h("code", {}, key),
            " = ",
            value(text)
          )
        ) : [h("span", { class: "tl-meta" }, "no variables")]
      )
    )
  ];
}

// src/threadlab/widgets/js/player.js
var STEP_KEYS = (
  /** @type {Record<string, number>} */
  {
    ArrowLeft: -1,
    ArrowRight: 1,
    Home: -Infinity,
    End: Infinity
  }
);
var SHOWN_MESSAGES = 60;
function traceAt(trace, points, at) {
  const named = new Set(points.filter((p) => p.kind === "message_created").map((p) => p.id));
  const stored = /* @__PURE__ */ new Set();
  const calls = /* @__PURE__ */ new Map();
  const runs = /* @__PURE__ */ new Map();
  const seen = /* @__PURE__ */ new Set();
  const decided = /* @__PURE__ */ new Set();
  const files2 = {};
  const last = Math.min(at, points.length - 1);
  for (let i = 0; i <= last; i++) {
    const p = points[i];
    seen.add(p.thread);
    if (p.kind !== "run_finished") runs.delete(p.thread);
    if (p.kind === "message_created") stored.add(p.id);
    else if (p.kind === "tool_call_started" && !calls.has(p.id)) calls.set(p.id, "running");
    else if (p.kind === "tool_call_finished") calls.set(p.id, "finished");
    else if (p.kind === "approval_requested") calls.set(p.id, "waiting");
    else if (p.kind === "approval_decided") {
      calls.set(p.id, "running");
      decided.add(p.id);
    } else if (p.kind === "run_finished" && !p.depth) runs.set(p.thread, p.status || "completed");
    else if (p.kind === "file_written") {
      files2[p.thread] = files2[p.thread] || /* @__PURE__ */ new Map();
      if (p.deleted) files2[p.thread].delete(p.id);
      else files2[p.thread].set(p.id, { size: p.size || 0, digest: p.digest });
    }
  }
  const whole = last >= points.length - 1;
  const messages = {};
  const cards = {};
  const earlier = {};
  const hidden = /* @__PURE__ */ new Set();
  const counted2 = {};
  for (const [thread, list] of Object.entries(trace.messages || {})) {
    const then = list.filter((m) => stored.has(m.id) || !named.has(m.id));
    counted2[thread] = then;
    const cut = Math.max(0, then.length - SHOWN_MESSAGES);
    for (const m of then.slice(0, cut)) for (const id of m.calls) hidden.add(id);
    if (cut) earlier[thread] = cut;
    messages[thread] = then.slice(cut);
    for (const m of messages[thread])
      for (const id of m.calls) if (!calls.has(id)) calls.set(id, "queued");
  }
  const finished = {};
  for (const [id, c] of Object.entries(trace.cards || {})) {
    const state = calls.get(id);
    if (state === "finished") finished[id] = c;
    if (!state || hidden.has(id)) continue;
    if (state === "finished") cards[id] = c;
    else
      cards[id] = {
        ...c,
        status: state,
        // At a past point the call stood still: no clock ticks on from then to now.
        past: !whole,
        result: null,
        result_chars: 0,
        duration_ms: null,
        traceback: null,
        approval: state === "waiting" && c.approval ? { state: "asked", arguments: null } : null,
        // Before a decision edited them, the arguments were the model's proposal.
        ...c.proposed != null && !decided.has(id) ? { args: c.proposed, args_folded: false, label: c.proposed_label ?? "", proposed: null } : {}
      };
  }
  const threads = trace.threads.filter((t) => t.id === trace.root || t.relation || seen.has(t.id)).map(
    (t) => t.relation ? t : { ...t, progress: null, status: whole ? t.status : statusThen(runs, t) }
  );
  return {
    ...trace,
    threads,
    messages,
    cards,
    drafts: {},
    files: Object.fromEntries(
      Object.entries(files2).map(([t, listed]) => [
        t,
        [...listed].sort(([a], [b]) => a < b ? -1 : 1).map(([path, { size, digest }]) => digest ? { path, size, digest } : { path, size })
      ])
    ),
    run: whole ? trace.run : { ...trace.run, status: runs.get(trace.root) || "running" },
    earlier,
    uncut: Object.keys(earlier).length ? { messages: counted2, cards: finished } : void 0
  };
}
function statusThen(runs, t) {
  return runs.get(t.id) || "running";
}
function narrated(text) {
  const out = [];
  const pattern = /\*\*(.+?)\*\*|`([^`]*)`|\[([^\]]*)\]\(([^)\s]*)\)|\\(.)|([^*`[\\]+|[*`[\\])/gs;
  for (const m of text.matchAll(pattern)) {
    if (m[1] !== void 0) out.push(h("b", {}, unescaped(m[1])));
    else if (m[2] !== void 0) out.push(h("code", {}, m[2]));
    else if (m[3] !== void 0) {
      const safe = /^(https?:\/\/|\.{0,2}\/)[^\s]*$/.test(m[4]) && !/^\/\//.test(m[4]);
      out.push(
        safe ? h("a", { href: m[4], target: "_blank", rel: "noopener" }, unescaped(m[3])) : document.createTextNode(unescaped(m[3]))
      );
    } else out.push(document.createTextNode(m[5] ?? m[6] ?? ""));
  }
  return out;
}
function unescaped(text) {
  return text.replace(/\\(.)/g, "$1");
}
function frame(model, local, state) {
  const stop = () => {
    clearInterval(state.timer);
    state.timer = null;
  };
  const go = (to) => {
    const next = Math.max(0, Math.min(state.count - 1, to));
    state.stepped = true;
    if (state.predict && next === state.at + 1 && asks(state, next)) {
      stop();
      state.asking = next;
    } else {
      state.asking = null;
      state.at = next;
    }
    local.redraw();
  };
  const slider = (
    /** @type {HTMLInputElement} */
    h("input", {
      type: "range",
      min: 0,
      class: "tl-scrubber",
      "data-testid": "player-scrubber",
      "aria-label": "point of the history",
      oninput: (e) => {
        stop();
        state.asking = null;
        state.at = Number(
          /** @type {HTMLInputElement} */
          e.currentTarget.value
        );
        state.stepped = true;
        local.redraw();
      }
    })
  );
  const play = (
    /** @type {HTMLButtonElement} */
    h(
      "button",
      {
        class: "tl-decide",
        "data-testid": "player-play",
        onclick: () => {
          if (state.timer) stop();
          else {
            if (state.at >= state.count - 1) state.at = 0;
            state.timer = setInterval(() => {
              if (state.at >= state.count - 1) {
                stop();
                local.redraw();
              } else go(state.at + 1);
            }, state.pace);
          }
          local.redraw();
        }
      },
      "play"
    )
  );
  const button = (label, id, to) => h(
    "button",
    {
      class: "tl-decide",
      "data-testid": id,
      title: id.replace("player-", ""),
      onclick: () => {
        stop();
        go(to());
      }
    },
    label
  );
  const where = h("span", { class: "tl-meta tl-player-where", "data-testid": "player-where" });
  const narration = h("div", { class: "tl-narration", "data-testid": "player-explain" });
  const pace2 = h(
    "select",
    {
      "aria-label": "pace",
      onchange: (e) => {
        state.pace = Number(
          /** @type {HTMLSelectElement} */
          e.currentTarget.value
        );
      }
    },
    ...[2e3, 1e3, 500, 200].map(
      (ms) => h(
        "option",
        ms === state.pace ? { value: ms, selected: "" } : { value: ms },
        `${ms / 1e3} s`
      )
    )
  );
  const toggle = (id, label, set) => h(
    "label",
    {},
    h("input", {
      type: "checkbox",
      "data-testid": id,
      onchange: (e) => {
        set(
          /** @type {HTMLInputElement} */
          e.currentTarget.checked
        );
        local.redraw();
      }
    }),
    ` ${label}`
  );
  const forkError = h("span", { class: "tl-error", "data-testid": "player-fork-error" });
  const fork = (
    /** @type {HTMLButtonElement} */
    h(
      "button",
      {
        class: "tl-fork",
        "data-testid": "player-fork",
        onclick: () => {
          const at = forkPoint(state.list, state.at, state.root);
          if (at === null) return;
          forkError.textContent = "";
          local.forks.set(`${state.root} ${at}`, { el: fork, error: forkError });
          model.send({ op: "fork", thread: state.root, at });
        }
      },
      "fork from here"
    )
  );
  const back = h(
    "button",
    {
      class: "tl-decide",
      "data-testid": "player-close",
      title: "the thread as it is now",
      onclick: () => {
        stop();
        local.playing = false;
        local.focusAfter = controlOf("step-through");
        model.send({ op: "play", thread: state.root, playing: false });
        local.redraw();
      }
    },
    "■ back to the thread"
  );
  const quiz = h("div", { class: "tl-quiz", "data-testid": "player-quiz" });
  const score = h("span", { class: "tl-meta", "data-testid": "player-score" });
  const note = h("div", { class: "tl-error", "data-testid": "player-note" });
  const stage = h("div", { class: "tl-stage" });
  const env = h("div", { class: "tl-env", "data-testid": "player-env" });
  const root = h(
    "div",
    {
      class: "tl-player",
      "data-testid": "player",
      tabindex: 0,
      onkeydown: (e) => {
        const move = STEP_KEYS[e.key];
        if (move === void 0 || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
        if (typing(e.target)) return;
        e.preventDefault();
        e.stopPropagation();
        stop();
        go(Number.isFinite(move) ? state.at + move : move < 0 ? 0 : state.count - 1);
      }
    },
    h(
      "div",
      { class: "tl-player-bar" },
      button("|◀", "player-first", () => 0),
      button("◀", "player-back", () => state.at - 1),
      play,
      button("▶", "player-forward", () => state.at + 1),
      button("▶|", "player-last", () => state.count - 1),
      slider,
      where,
      pace2,
      toggle("player-explain-toggle", "explain", (on) => {
        state.explain = on;
      }),
      toggle("player-predict-toggle", "predict", (on) => {
        state.predict = on;
        state.asking = null;
      }),
      score
    ),
    h("div", { class: "tl-player-bar" }, fork, forkError, model.get("shared") ? null : back),
    note,
    quiz,
    narration,
    env,
    stage
  );
  return { root, slider, where, narration, play, stage, note, quiz, score, fork, forkError, env };
}
function typing(target) {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.tagName === "TEXTAREA") return true;
  const kind = target.tagName === "INPUT" && /** @type {HTMLInputElement} */
  target.type;
  return !!kind && !["range", "checkbox", "radio", "button", "submit"].includes(kind);
}
function asks(state, at) {
  return !!state.list[at]?.offered?.length && !state.guesses.has(at);
}
function forkPoint(points, at, root) {
  for (let i = Math.min(at, points.length - 1); i >= 0; i--) {
    const p = points[i];
    if (p.kind === "message_created" && p.thread === root && !p.depth && !p.damaged) return p.id;
  }
  return null;
}
function quizFor(state, points, redraw) {
  if (state.asking !== null) {
    const asked = state.asking;
    const point2 = points[asked];
    return [
      h("b", {}, "What does the model do next? "),
      ...(point2.offered || []).map(
        (choice) => h(
          "button",
          {
            class: "tl-decide",
            "data-testid": "player-choice",
            onclick: (e) => {
              const player = (
                /** @type {HTMLElement | null} */
                /** @type {HTMLElement} */
                e.currentTarget.closest("[data-testid=player]")
              );
              state.guesses.set(asked, choice);
              state.asking = null;
              state.at = asked;
              state.stepped = true;
              redraw();
              player?.focus({ preventScroll: true });
            }
          },
          choice
        )
      )
    ];
  }
  const guess = state.guesses.get(state.at);
  const point = points[state.at];
  if (!state.predict || guess === void 0 || !point) return [];
  const told = revealed(guess, point.answer || []);
  return [
    h(
      "span",
      { class: told.right ? "tl-guess-right" : "tl-guess-wrong", "data-testid": "player-reveal" },
      told.text
    )
  ];
}
function current(stage, trace, point) {
  const marked = (attribute, ids) => [...stage.querySelectorAll(`[${attribute}]`)].filter(
    (e) => ids.includes(e.getAttribute(attribute) || "")
  );
  if (point.kind !== "message_created") return marked("data-call", [point.id]);
  const line = marked("data-message", [point.id]);
  if (line.length) return line;
  const message = (trace.messages?.[point.thread] || []).find((m) => m.id === point.id);
  return message ? marked("data-call", message.calls) : [];
}
var merged = /* @__PURE__ */ new WeakMap();
function played(model) {
  const points = synced(model, "points") || [];
  const told = synced(model, "told");
  if (!told || !Object.keys(told).length) return points;
  const hit = merged.get(told);
  if (hit && hit.points === points) return hit.merged;
  const whole = points.map((point, index) => told[index] ? { ...point, ...told[index] } : point);
  merged.set(told, { points, merged: whole });
  return whole;
}
function shownWithin(pane, el) {
  const box = pane.getBoundingClientRect();
  const at = el.getBoundingClientRect();
  if (at.bottom > box.bottom) pane.scrollTop += Math.min(at.bottom - box.bottom, at.top - box.top);
  else if (at.top < box.top) pane.scrollTop -= box.top - at.top;
}
function playerView(model, el, local) {
  const points = played(model);
  const trace = synced(model, "trace") || { root: "", threads: [], messages: {}, cards: {} };
  if (!local.player || local.player.root !== trace.root)
    local.player = {
      at: points.length - 1,
      count: points.length,
      explain: false,
      pace: 1e3,
      timer: null,
      ui: null,
      predict: false,
      asking: null,
      guesses: /* @__PURE__ */ new Map(),
      root: trace.root,
      list: points,
      stepped: false,
      shown: null,
      selectedAt: null
    };
  const state = local.player;
  if (state.at >= state.count - 1) state.at = points.length - 1;
  state.count = points.length;
  state.list = points;
  if (!state.ui || state.ui.root.parentNode !== el) {
    state.ui = frame(model, local, state);
    el.replaceChildren(state.ui.root);
  }
  const ui = state.ui;
  const at = Math.max(0, Math.min(points.length - 1, state.at));
  const point = points[at];
  ui.slider.max = String(Math.max(0, points.length - 1));
  ui.slider.value = String(at);
  ui.play.textContent = state.timer ? "pause" : "play";
  ui.where.textContent = point ? `${at + 1} / ${points.length} · ${point.label}` : "no history";
  ui.where.title = ui.where.textContent;
  ui.narration.hidden = !state.explain;
  ui.narration.replaceChildren(
    ...point?.explain ? narrated(point.explain) : [
      h(
        "span",
        { class: "tl-meta" },
        model.get("narrating") ? "(the narration is being written: a moment…)" : "(part of a step, explained where that step ends: step on to read it)"
      )
    ]
  );
  ui.note.textContent = point?.damaged ? "This row of the store cannot be read: it is shown in its place, without its details." : "";
  ui.quiz.replaceChildren(...quizFor(state, points, local.redraw));
  if (point && state.selectedAt !== at) {
    state.selectedAt = at;
    local.selected = point.thread;
  }
  const then = points.length ? traceAt(trace, points, at) : trace;
  const viewed = then.threads.some((t) => t.id === local.selected) ? local.selected : point?.thread;
  ui.env.replaceChildren(...viewed ? variablesLine(model, points, at, then, viewed) : []);
  const guessed = [...state.guesses].filter(([i]) => points[i]);
  const right = guessed.filter(
    ([i, guess]) => revealed(guess, points[i].answer || []).right
  ).length;
  ui.score.textContent = state.predict ? `score ${right} / ${guessed.length}` : "";
  const forkAt = forkPoint(points, at, trace.root);
  const kernel = !model.get("offline");
  ui.fork.hidden = !kernel;
  ui.fork.disabled = forkAt === null || !!model.get("live") || trace.run?.status === "running";
  ui.fork.title = forkAt === null ? "nothing to fork before the first message" : "a branch holding the history up to here, run live in this view";
  const pastTense = {
    ...model,
    get: (name) => name === "offline" || name === "past" ? true : model.get(name)
  };
  const focused = ui.root.contains(document.activeElement);
  inspector(pastTense, ui.stage, then, local);
  if (focused && !ui.root.contains(document.activeElement)) ui.root.focus({ preventScroll: true });
  for (const old of ui.stage.querySelectorAll(".tl-current")) old.classList.remove("tl-current");
  const marked = point ? current(ui.stage, trace, point) : [];
  for (const shown of marked) shown.classList.add("tl-current");
  reveal(state, ui.stage, marked[0], at);
}
function reveal(state, stage, step, at) {
  const stepped = state.stepped;
  state.stepped = false;
  if (!step || !stepped && state.shown === at) return;
  if (!step.isConnected) {
    if (typeof requestAnimationFrame === "function")
      requestAnimationFrame(() => {
        if (step.isConnected && step.classList.contains("tl-current"))
          reveal(state, stage, step, at);
      });
    return;
  }
  state.shown = at;
  const pane = stage.querySelector(".tl-center");
  if (stepped && typeof step.scrollIntoView === "function")
    step.scrollIntoView({ block: "nearest" });
  else if (pane) shownWithin(pane, step);
}

// src/threadlab/widgets/js/thread_view.js
function drawInspector(model, el, local) {
  inspector(model, el, synced(model, "trace") || {}, local);
}
function drawThread(model, el, local) {
  if (local.playing && (synced(model, "points") || []).length) playerView(model, el, local);
  else drawInspector(model, el, local);
}
function drawPlayer(model, el, local) {
  if (local.playing === void 0) local.playing = true;
  drawThread(model, el, local);
}

// src/threadlab/widgets/js/kinds.js
var KINDS2 = {
  inspector: { draw: drawThread, ready: true },
  player: { draw: drawPlayer, ready: true },
  threads: { draw: threadList },
  class: { draw: classView },
  // While it runs, the time left counts down between rows.
  eval: { draw: evalTable, ticking: (m) => !m.get("finished") },
  served: { draw: servedEndpoint, ready: true },
  graph: { draw: graphView }
};
function kindOf(kind) {
  return Object.hasOwn(KINDS2, String(kind)) ? KINDS2[String(kind)] : KINDS2.inspector;
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
  for (const [key, page] of Object.entries(patch.apps || {})) {
    if (!trace.apps) trace.apps = {};
    put(trace.apps, key, page);
  }
}
function put(object, key, value) {
  Object.defineProperty(object, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true
  });
}

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
      secret: null,
      apps: /* @__PURE__ */ new Map()
    };
    local.redraw = () => {
      const kept = focusedControl(el);
      draw(model, el, local);
      refocus(el, local, kept);
    };
    model.on("msg:custom", (msg) => {
      if (msg.op === "result") local.fetched[msg.call] = msg.text;
      if (msg.op === "arguments") local.fetchedArgs[msg.call] = msg.text;
      if (msg.op === "preview") local.preview = msg;
      if (msg.op === "request") local.requests[msg.message] = msg.text;
      if (msg.op === "secret") local.secret = { token: msg.token, config: msg.config };
      if (msg.op === "app_result") {
        local.apps.get(msg.call)?.answer(msg);
        return;
      }
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
    el.dataset.threadlabDrawn = "";
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
function refocus(el, local, kept) {
  const at = el.ownerDocument.activeElement;
  if (el.contains(at)) return;
  if (at && at !== el.ownerDocument.body && kept === null) {
    local.focusAfter = null;
    return;
  }
  for (const wanted of [kept, local.focusAfter]) {
    const control = wanted ? found(el, wanted) : null;
    if (control) {
      if (wanted === local.focusAfter) local.focusAfter = null;
      control.focus({ preventScroll: true });
      return;
    }
  }
}
function found(el, selector) {
  try {
    return el.querySelector(selector);
  } catch {
    return null;
  }
}
function focusedControl(el) {
  const at = el.ownerDocument.activeElement;
  if (!at || at === el || !el.contains(at)) return null;
  const summary = at.tagName === "SUMMARY" && at.parentElement ? at.parentElement : null;
  const owner = summary ?? at;
  const kind = owner.getAttribute("data-testid");
  const about = Object.fromEntries(
    ["data-thread", "data-call"].filter((name) => owner.hasAttribute(name)).map((name) => [name, owner.getAttribute(name) || ""])
  );
  if (!kind || !Object.keys(about).length) return null;
  return summary ? `${controlOf(kind, about)} > summary` : controlOf(kind, about);
}

// src/threadlab/widgets/js/offline.js
function renderOffline(el, state, files2 = {}) {
  const shared = Object.keys(files2).length > 0 || Boolean(state.shared);
  const values = { ...state, offline: true, live: false, shared };
  const missing = shared ? "not in this shared page" : NO_KERNEL;
  const handlers = {};
  const model = {
    get: (name) => values[name],
    set: (name, value) => {
      values[name] = value;
    },
    save_changes: () => {
    },
    on: (event, callback) => {
      handlers[event] = [...handlers[event] || [], callback];
    },
    send: (msg) => {
      const reply = msg.op === "fetch_result" ? { op: "result", call: msg.call, text: missing } : msg.op === "fetch_arguments" ? { op: "arguments", call: msg.call, text: missing } : msg.op === "fetch_request" ? { op: "request", message: msg.message, text: missing } : msg.op === "preview" ? files2[msg.thread]?.[msg.digest ? `${msg.path}@${msg.digest}` : msg.path] ?? {
        op: "preview",
        thread: msg.thread,
        path: msg.path,
        ...msg.digest ? { digest: msg.digest } : {},
        error: missing
      } : null;
      if (reply) for (const callback of handlers["msg:custom"] || []) callback(reply);
    }
  };
  return mount(model, el, kindOf(values.view).draw);
}

// src/threadlab/widgets/js/views.js
function drawSharedPage(page) {
  const held = (id, fallback) => {
    const node = page.getElementById(id);
    return node?.textContent ? JSON.parse(node.textContent) : fallback;
  };
  const root = page.getElementById("threadlab-view");
  if (!root) return () => {
  };
  return renderOffline(root, held("threadlab-state", {}), held("threadlab-files", {}));
}
if (typeof document !== "undefined" && document.getElementById("threadlab-state"))
  drawSharedPage(document);
var views_default = {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    const { draw, ready, ticking } = kindOf(model.get("view"));
    return mount(model, el, draw, { ready, ticking });
  }
};
export {
  views_default as default,
  drawSharedPage,
  renderOffline
};
