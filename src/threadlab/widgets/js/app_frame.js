// @ts-check
// A tool's own UI (an MCP App) under its card: the app's page in a sandboxed frame that
// reaches nothing outside itself but the origins its resource declares, and the host's side
// of the MCP Apps protocol (JSON-RPC 2.0 over postMessage): initialize, the call's arguments
// and result, size changes, links it asks to open (asked of the person), and the server tools
// it calls (through the kernel, which records them with the call). An app that floods the
// host, leaves its page or calls tools in a loop is stopped, and its box says why.
/** @import {AppHost, Card, KernelMessage, Local, Model, ToolApp} from "./types.js" */
import { h } from "./dom.js";
import { FINAL } from "./text.js";

/** The protocol versions this host speaks, newest first. */
export const PROTOCOL_VERSIONS = ["2026-01-26", "2025-11-21"];
/** Past this many messages in one second an app is stopped. */
export const MAX_MESSAGES_PER_SECOND = 100;
/** Past this many tool calls in one minute an app's calls are refused. */
export const MAX_CALLS_PER_MINUTE = 30;
const MIN_HEIGHT = 60;
const MAX_HEIGHT = 800;
const START_HEIGHT = 200;
/** An origin a page may be let reach: a scheme, a host (a `*.` wildcard first at most), a port. */
const ORIGIN = /^(https?|wss?):\/\/(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*(:\d{1,5})?$/;
const NOT_FOUND = -32601;
/** What an app drawn from a saved output is told when it calls a tool. */
export const SAVED_APP =
  "this app is drawn from a saved output: its tool calls run only in the view of its run (run the cell again)";
const REFUSED = -32000;

/**
 * The Content-Security-Policy a page runs under: its own inline script and styles, data:
 * images and fonts, and only the origins its resource declares (each checked: a wildcard,
 * a keyword or anything that is not an origin is refused, and said).
 * @param {Record<string, string[]> | undefined} csp the resource's `_meta.ui.csp`
 * @returns {{policy: string, refused: string[]}}
 */
export function appPolicy(csp) {
  /** @type {string[]} */
  const refused = [];
  /** @param {string} key */
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
  /** @param {string[]} list @param {string} [own] */
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
    "form-action 'none'",
  ].join("; ");
  return { policy, refused };
}

/**
 * The page as the frame loads it: the policy first, before anything the page holds can run
 * (after its doctype, which must stay first).
 * @param {string} html
 * @param {string} policy
 */
export function framedPage(html, policy) {
  const meta = `<meta http-equiv="Content-Security-Policy" content="${policy}">`;
  const doctype = /^\s*<!doctype[^>]*>/i.exec(html);
  return doctype ? `${doctype[0]}${meta}${html.slice(doctype[0].length)}` : `${meta}${html}`;
}

/**
 * The frame the app's frame sits in: a relay whose own policy says where the app's frame may
 * navigate (a frame's navigations are checked against its parent's `frame-src`: without it an
 * app could leave its policy by loading another page), and which passes the app's messages to
 * the host, wrapped, and the host's to the app. It tells the host when the app's frame loads
 * anything but its own page.
 * @param {string} page the app's page, its policy in it (`framedPage`)
 * @param {Record<string, string[]> | undefined} csp the resource's `_meta.ui.csp`
 */
export function relayPage(page, csp) {
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
</script><iframe sandbox="allow-scripts" referrerpolicy="no-referrer" allow="" srcdoc="${srcdoc}"></iframe>`;
}

/** @returns {"light" | "dark"} */
function theme() {
  return document.body?.dataset?.jpThemeLight === "false" ? "dark" : "light";
}

/**
 * A call's arguments as an object (what the app is told it was called with).
 * @param {string} text
 * @returns {Record<string, unknown>}
 */
function argumentsOf(text) {
  try {
    const value = JSON.parse(text || "{}");
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/**
 * A finished call's result as an MCP `CallToolResult`: its text, and the object the text is
 * when it is JSON (a structured result).
 * @param {string} text
 * @param {boolean} failed
 */
function resultOf(text, failed) {
  /** @type {Record<string, unknown>} */
  const result = { content: [{ type: "text", text }], isError: failed };
  try {
    const value = JSON.parse(text);
    if (value && typeof value === "object" && !Array.isArray(value))
      result.structuredContent = value;
  } catch {
    // not JSON: the text alone
  }
  return result;
}

/**
 * The app box of a call whose tool has a UI (null for any other call): made once per call and
 * kept across redraws (a frame that is moved or rebuilt loses the app's state), and told what
 * changed — the arguments once known, the result once the call ended.
 * @param {Model} model
 * @param {Card} c
 * @param {Local} local
 * @param {Record<string, string>} [pages] the trace's app pages, by key
 * @returns {HTMLElement | null}
 */
export function appFrame(model, c, local, pages = {}) {
  if (!c.app) return null;
  let host = local.apps.get(c.id);
  // A model may repeat a call id: another tool's app under the same id is another app.
  if (!host || host.uri !== c.app.uri) {
    host?.stop("another call took its place");
    const page = c.app.page !== undefined ? pages[c.app.page] : c.app.html;
    host = appHost(model, c, { ...c.app, html: page });
    local.apps.set(c.id, host);
  }
  host.update(c, local);
  return host.el;
}

/**
 * @param {Model} model
 * @param {Card} c
 * @param {ToolApp} app
 * @returns {AppHost}
 */
function appHost(model, c, app) {
  const note = h("div", { class: "tl-app-note", "data-testid": "app-note" });
  const ask = h("div", { class: "tl-app-ask", "data-testid": "app-ask" });
  // A narrow column squeezes an app: "wide" shows it over its output (its frame is not moved,
  // so it keeps its state); Escape or "back" puts it back.
  const wide = /** @type {HTMLButtonElement} */ (
    h("button", { class: "tl-app-answer tl-app-wide-toggle", "data-testid": "app-wide" }, "wide")
  );
  const el = h(
    "div",
    { class: "tl-app", "data-testid": "tool-app", "data-call": c.id },
    h("div", { class: "tl-meta tl-app-head" }, "app · ", h("code", {}, app.uri), " ", wide),
    ask,
    note,
  );
  /** @param {boolean} on */
  const widen = (on) => {
    el.classList.toggle("tl-app-wide", on);
    wide.textContent = on ? "back" : "wide";
    wide.setAttribute("aria-pressed", String(on));
    if (host.initialized)
      post({
        method: "ui/notifications/host-context-changed",
        params: { displayMode: on ? "fullscreen" : "inline" },
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
  /** @type {AppHost} */
  const host = {
    el,
    uri: app.uri,
    initialized: false,
    sentInput: false,
    sentResult: false,
    stopped: null,
    answer: () => {},
    update: () => {},
    stop: () => {},
  };
  if (app.error || typeof app.html !== "string") {
    wide.hidden = true;
    note.textContent = `The app could not be read: ${app.error || "no page"}`;
    host.stopped = note.textContent;
    return host;
  }
  const html = app.html;
  // Drawn from a saved output (a reopened notebook, a shared page, the Threads panel): the
  // page is whatever the file holds, so it runs only when asked, reaching no origin at all.
  const saved = Boolean(model.get("offline"));
  const frame = /** @type {HTMLIFrameElement} */ (
    h("iframe", {
      class: "tl-app-frame",
      "data-testid": "app-frame",
      title: `the app of ${c.name}`,
      // Scripts only: no same origin with the notebook, no top navigation, no popups.
      sandbox: "allow-scripts",
      referrerpolicy: "no-referrer",
      allow: "",
      style: `height:${START_HEIGHT}px`,
    })
  );
  let window0 = Date.now();
  let messages = 0;
  /** @type {number[]} */
  const calls = [];

  /** @param {Record<string, unknown>} message */
  const post = (message) => {
    if (!host.stopped) frame.contentWindow?.postMessage({ jsonrpc: "2.0", ...message }, "*");
  };
  /** @param {string | number} id @param {unknown} result */
  const reply = (id, result) => post({ id, result });
  /** @param {string | number} id @param {number} code @param {string} message */
  const fail = (id, code, message) => post({ id, error: { code, message } });
  host.stop = (why) => {
    if (host.stopped) return;
    host.stopped = why;
    window.removeEventListener("message", listen);
    frame.remove();
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
      note.textContent =
        "Drawn from the saved output: its own tool calls run only in the view of its run.";
    frame.srcdoc = relayPage(framedPage(html, policy), csp);
    el.insertBefore(frame, ask);
    window.addEventListener("message", listen);
  };
  /** @param {string | number} id @param {unknown} url */
  const openLink = (id, url) => {
    let parsed = null;
    try {
      parsed = new URL(String(url));
    } catch {
      parsed = null;
    }
    if (!parsed || !["http:", "https:"].includes(parsed.protocol))
      return reply(id, { isError: true });
    if (ask.childElementCount) return reply(id, { isError: true }); // one question at a time
    const answer = (/** @type {boolean} */ yes) => {
      ask.replaceChildren();
      if (yes) window.open(parsed.href, "_blank", "noopener,noreferrer");
      reply(id, yes ? {} : { isError: true });
    };
    ask.replaceChildren(
      h("span", {}, "The app asks to open "),
      h("code", { "data-testid": "app-link" }, parsed.href),
      h("button", { class: "tl-app-answer", onclick: () => answer(true) }, "Open"),
      h("button", { class: "tl-app-answer", onclick: () => answer(false) }, "Don't open"),
    );
  };

  /** @param {string | number} id @param {any} params */
  const callTool = (id, params) => {
    if (saved) return fail(id, REFUSED, SAVED_APP);
    const now = Date.now();
    while (calls.length && now - calls[0] > 60_000) calls.shift();
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
      arguments: args,
    });
  };
  host.answer = (/** @type {Extract<KernelMessage, {op: "app_result"}>} */ msg) => {
    if (msg.error !== undefined) fail(msg.request, REFUSED, msg.error);
    else reply(msg.request, msg.result);
  };

  /** @param {MessageEvent} event */
  function listen(event) {
    if (event.source !== frame.contentWindow || host.stopped) return;
    const now = Date.now();
    if (now - window0 >= 1000) {
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
    const request = typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
    if (typeof method !== "string") return; // an answer to nothing this host asked
    if (method === "ui/initialize" && request) {
      // An app starts anew (its frame was put back in the page, an output collapsed and
      // expanded) and is told the call's arguments and result again. Told by its own
      // handshake, not the frame's load event: the frame's load waits for the app's nested
      // page, so the handshake may already be over when it fires.
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
          containerDimensions: { maxHeight: MAX_HEIGHT, width: el.clientWidth || 600 },
        },
      });
    } else if (method === "ui/notifications/initialized") {
      host.initialized = true;
      host.update(c, null);
    } else if (method === "ui/notifications/size-changed") {
      const height = Number(params?.height);
      // The frame's border is outside the app's own size.
      if (Number.isFinite(height))
        frame.style.height = `${Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, height))) + 2}px`;
    } else if (method === "tools/call" && request) callTool(id, params);
    else if (method === "ui/open-link" && request) openLink(id, params?.url);
    else if (method === "ui/request-display-mode" && request) {
      const mode = params?.mode === "fullscreen" ? "fullscreen" : "inline";
      widen(mode === "fullscreen");
      reply(id, { mode });
    } else if (method === "ping" && request) reply(id, {});
    else if (method === "ui/message" && request) {
      // Said where a person sees it: the app's button did something, just not here.
      note.textContent =
        "The app asked to post a message to the conversation: a thread here takes its messages from its cells.";
      fail(id, NOT_FOUND, "ui/message is not offered by this host");
    } else if (request) fail(id, NOT_FOUND, `${method} is not offered by this host`);
    // other notifications (a log line, a request to be torn down) need no answer
  }
  // The notebook's theme changes: the app is told, as the protocol's hosts tell it.
  let shownTheme = theme();
  if (typeof MutationObserver !== "undefined" && document.body)
    new MutationObserver(() => {
      if (host.stopped || !host.initialized || theme() === shownTheme) return;
      shownTheme = theme();
      post({ method: "ui/notifications/host-context-changed", params: { theme: shownTheme } });
    }).observe(document.body, { attributes: true, attributeFilter: ["data-jp-theme-light"] });

  /** @type {Local | null} */
  let seen = null; // the view's local state, as the last redraw gave it
  host.update = (card, given) => {
    c = card;
    if (given) seen = given;
    const local = seen;
    if (!host.initialized || host.stopped) return;
    if (!host.sentInput) {
      if (c.args_folded && local && local.fetchedArgs[c.id] === undefined) {
        model.send({ op: "fetch_arguments", thread: c.thread, call: c.id });
        return;
      }
      host.sentInput = true;
      const args = local?.fetchedArgs[c.id] ?? c.args;
      post({ method: "ui/notifications/tool-input", params: { arguments: argumentsOf(args) } });
    }
    if (!host.sentResult && FINAL.has(c.status)) {
      // The whole result the app is given: kept with the app, else the card's or fetched.
      const full = c.app?.result ?? app.result ?? local?.fetched[c.id];
      if (full === undefined && c.result_chars > (c.result || "").length) {
        if (local && !saved) model.send({ op: "fetch_result", thread: c.thread, call: c.id });
        return;
      }
      host.sentResult = true;
      if (c.status === "interrupted")
        post({ method: "ui/notifications/tool-cancelled", params: { reason: "interrupted" } });
      else
        post({
          method: "ui/notifications/tool-result",
          params: resultOf(full ?? c.result ?? "", c.status !== "success"),
        });
    }
  };
  if (saved) {
    wide.hidden = true; // nothing to widen before it is shown
    el.insertBefore(
      h(
        "button",
        {
          class: "tl-app-answer",
          "data-testid": "app-start",
          onclick: (/** @type {Event} */ e) => {
            /** @type {HTMLElement} */ (e.currentTarget).remove();
            start();
          },
        },
        "Show the app",
      ),
      ask,
    );
  } else start();
  return host;
}
