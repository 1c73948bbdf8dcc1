// A tool's app under its card: the page's policy, the host's side of the MCP Apps protocol,
// and an app that floods, leaves its page or asks to open a link.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aCard, fakeModel, view, local as viewLocal } from "./setup.mjs";

const {
  appFrame,
  appPolicy,
  framedPage,
  relayPage,
  MAX_MESSAGES_PER_SECOND,
  PROTOCOL_VERSIONS,
  SAVED_APP,
} = await view("app_frame.js");

const PAGE = "<!doctype html><html><body><script>/* app */</script></body></html>";

/** A card of a call whose tool has an app, running. */
const appCard = (changes = {}) =>
  aCard({
    name: "get-time",
    status: "running",
    result: null,
    result_chars: 0,
    args: '{"zone": "CET"}',
    app: { uri: "ui://get-time/app.html", html: PAGE, csp: {} },
    ...changes,
  });

/** The app's box on a page, what its frame was sent, and a way to speak as the app. */
function onScreen(model = fakeModel(), c = appCard()) {
  const local = viewLocal();
  const el = appFrame(model, c, local);
  document.body.replaceChildren(el);
  el.querySelector("[data-testid=app-start]")?.click(); // a saved one runs when asked
  const frame = el.querySelector("iframe");
  const posted = [];
  frame.contentWindow.postMessage = (message) => posted.push(message);
  // What the app says reaches the host through the relay its frame sits in, wrapped.
  const say = (data, source = frame.contentWindow) =>
    window.dispatchEvent(new MessageEvent("message", { data: { threadlab: "app", data }, source }));
  return { el, frame, posted, say, local, model };
}

test("a page reaches no origin unless its resource declares one, and never a wildcard", () => {
  const none = appPolicy({}).policy;
  assert.match(none, /default-src 'none'/);
  assert.match(none, /connect-src 'none'/);
  assert.match(none, /frame-src 'none'/);
  assert.match(none, /form-action 'none'/);
  const { policy, refused } = appPolicy({
    connectDomains: ["https://api.example.com", "*", "https://x.example; script-src *"],
    resourceDomains: ["https://*.cdn.example", "'unsafe-eval'", "data:"],
  });
  assert.match(policy, /connect-src https:\/\/api\.example\.com(;|$)/);
  assert.match(policy, /script-src 'unsafe-inline' https:\/\/\*\.cdn\.example(;|$)/);
  assert.deepEqual(refused.sort(), [
    "'unsafe-eval'",
    "*",
    "data:",
    "https://x.example; script-src *",
  ]);
});

test("the policy comes first in the page, after its doctype", () => {
  const framed = framedPage(PAGE, "default-src 'none'");
  assert.ok(framed.startsWith('<!doctype html><meta http-equiv="Content-Security-Policy"'));
  assert.ok(framedPage("<script>x</script>", "p").startsWith("<meta"));
});

test("a call without an app has no box; an app that could not be read says why", () => {
  assert.equal(appFrame(fakeModel(), aCard(), viewLocal()), null);
  const el = appFrame(
    fakeModel(),
    appCard({ app: { uri: "ui://x", error: "MCP server 'x' could not read ui://x" } }),
    viewLocal(),
  );
  assert.equal(el.querySelector("iframe"), null);
  assert.match(el.textContent, /could not be read: MCP server 'x' could not read ui:\/\/x/);
});

test("the frame runs scripts only: no same origin with the notebook, no navigation of it", () => {
  const { frame } = onScreen();
  assert.equal(frame.getAttribute("sandbox"), "allow-scripts");
  // The relay's own policy bounds where the app's frame may go; the app's page has its own.
  assert.match(
    frame.srcdoc,
    /^<!doctype html><meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; frame-src 'none'">/,
  );
  assert.match(
    frame.srcdoc,
    /<iframe sandbox="allow-scripts"[^>]* srcdoc="&lt;|<iframe sandbox="allow-scripts"[^>]* srcdoc="<!doctype html><meta http-equiv=&quot;Content-Security-Policy&quot;/,
  );
});

test("the relay lets the app's frame go only where its resource declares frames may", () => {
  const page = relayPage('<p title="a & b">x</p>', { frameDomains: ["https://maps.example", "*"] });
  assert.match(page, /frame-src https:\/\/maps\.example"/);
  assert.match(page, /srcdoc="<p title=&quot;a &amp; b&quot;>x<\/p>"/); // quoted whole
});

test("initialize, then the call's arguments, then its result once the call ended", () => {
  const { posted, say, local, model } = onScreen();
  say({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: { protocolVersion: "x" } });
  const [init] = posted;
  assert.equal(init.id, 1);
  assert.equal(init.result.protocolVersion, PROTOCOL_VERSIONS[0]);
  assert.equal(init.result.hostInfo.name, "threadlab");
  assert.equal(init.result.hostContext.toolInfo.tool.name, "get-time");
  assert.equal(posted.length, 1); // nothing more before the app says it is ready
  say({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
  assert.deepEqual(posted[1], {
    jsonrpc: "2.0",
    method: "ui/notifications/tool-input",
    params: { arguments: { zone: "CET" } },
  });
  const done = appCard({ status: "success", result: '{"time": "12:00"}', result_chars: 17 });
  appFrame(model, done, local); // the card redrawn: the same box, told the result
  assert.equal(posted[2].method, "ui/notifications/tool-result");
  assert.deepEqual(posted[2].params.structuredContent, { time: "12:00" });
  assert.equal(posted[2].params.isError, false);
  appFrame(model, done, local);
  assert.equal(posted.length, 3); // told once
});

test("a result too long for the card is asked of the kernel before the app is told", () => {
  const { posted, say, local, model } = onScreen();
  say({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
  say({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
  const cut = appCard({ status: "success", result: "1234", result_chars: 9000 });
  appFrame(model, cut, local);
  assert.deepEqual(model.sent.at(-1), { op: "fetch_result", thread: "t1", call: "call_1" });
  assert.equal(posted.length, 2);
  local.fetched.call_1 = "the whole result";
  appFrame(model, cut, local);
  assert.equal(posted[2].params.content[0].text, "the whole result");
});

test("the app's tool calls go to the kernel, and its answer back to the app", () => {
  const { posted, say, model, local } = onScreen();
  say({
    jsonrpc: "2.0",
    id: 7,
    method: "tools/call",
    params: { name: "get-time", arguments: { zone: "UTC" } },
  });
  assert.deepEqual(model.sent.at(-1), {
    op: "app_call",
    thread: "t1",
    call: "call_1",
    request: 7,
    name: "get-time",
    arguments: { zone: "UTC" },
  });
  local.apps.get("call_1").answer({ op: "app_result", call: "call_1", request: 7, result: {} });
  assert.deepEqual(posted.at(-1), { jsonrpc: "2.0", id: 7, result: {} });
  local.apps
    .get("call_1")
    .answer({ op: "app_result", call: "call_1", request: 8, error: "needs a decision" });
  assert.equal(posted.at(-1).error.message, "needs a decision");
});

test("a saved app runs only when asked, reaching no origin, and its calls are refused", () => {
  const model = fakeModel({ offline: true });
  const c = appCard({
    app: { uri: "ui://x", html: PAGE, csp: { connectDomains: ["https://a.example"] } },
  });
  const el = appFrame(model, c, viewLocal());
  assert.equal(el.querySelector("iframe"), null); // not started on its own
  const { posted, say, frame } = onScreen(model, c);
  assert.doesNotMatch(frame.srcdoc, /a\.example/); // its declared origins are not granted
  say({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "x" } });
  assert.equal(posted.at(-1).error.message, SAVED_APP);
  assert.equal(model.sent.length, 0);
});

test("a method the host does not offer is an error; messages from elsewhere are ignored", () => {
  const { el, posted, say } = onScreen();
  say({ jsonrpc: "2.0", id: 3, method: "ui/message", params: {} });
  assert.equal(posted.at(-1).error.code, -32601);
  assert.match(
    el.querySelector("[data-testid=app-note]").textContent,
    /asked to post a message to the conversation/,
  ); // said where a person looks
  say({ jsonrpc: "2.0", id: 4, method: "ui/unknown", params: {} });
  assert.equal(posted.at(-1).error.code, -32601);
  say({ jsonrpc: "2.0", id: 5, method: "ping" }, window); // not the app's frame
  assert.equal(posted.length, 2);
});

test("an app that floods the host is stopped, and its box says why", () => {
  const { el, say, posted } = onScreen();
  for (let i = 0; i <= MAX_MESSAGES_PER_SECOND; i++) say({ jsonrpc: "2.0", method: "x" });
  assert.equal(el.querySelector("iframe"), null);
  assert.match(el.textContent, /stopped: it sent more than 100 messages in a second/);
  say({ jsonrpc: "2.0", id: 1, method: "ping" });
  assert.equal(posted.length, 0);
});

test("an app that leaves its page is stopped; a frame put back starts the app anew", () => {
  const { el, frame, posted, say } = onScreen();
  frame.dispatchEvent(new Event("load")); // the relay's page
  say({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
  say({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
  assert.equal(posted.at(-1).method, "ui/notifications/tool-input");
  frame.dispatchEvent(new Event("load")); // taken out of the page and put back: loaded again
  say({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
  say({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
  assert.equal(posted.at(-1).method, "ui/notifications/tool-input"); // told again
  assert.ok(el.querySelector("iframe"));
  // The relay says the app's own frame loaded something else (a link, location = ...).
  window.dispatchEvent(
    new MessageEvent("message", { data: { threadlab: "left" }, source: frame.contentWindow }),
  );
  assert.equal(el.querySelector("iframe"), null);
  assert.match(el.textContent, /stopped: it left its page/);
});

test("an app put back whose handshake ends before its frame's load is still told its result", () => {
  const { frame, posted, say } = onScreen(
    fakeModel(),
    appCard({ status: "success", result: '{"a": 1}' }),
  );
  say({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
  say({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
  frame.dispatchEvent(new Event("load")); // the outer frame's load waits for the app's page
  assert.equal(posted.at(-1).method, "ui/notifications/tool-result");
  // Put back in the page: the new app's handshake, then the frame's load.
  say({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
  say({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
  const told = posted.length;
  frame.dispatchEvent(new Event("load"));
  assert.deepEqual(
    posted.slice(-2).map((m) => m.method),
    ["ui/notifications/tool-input", "ui/notifications/tool-result"],
  );
  assert.equal(posted.length, told); // the load told it nothing more, and forgot nothing
  assert.deepEqual(posted.at(-1).params.structuredContent, { a: 1 });
});

test("another tool's app under a repeated call id replaces the first", () => {
  const local = viewLocal();
  const model = fakeModel();
  const first = appFrame(model, appCard(), local);
  const other = appFrame(model, appCard({ app: { uri: "ui://other", html: PAGE } }), local);
  assert.notEqual(other, first);
  assert.match(first.textContent, /stopped: another call took its place/);
});

test("a link the app asks to open is asked of the person; other schemes are refused", () => {
  const { el, posted, say } = onScreen();
  say({ jsonrpc: "2.0", id: 5, method: "ui/open-link", params: { url: "javascript:alert(1)" } });
  assert.deepEqual(posted.at(-1), { jsonrpc: "2.0", id: 5, result: { isError: true } });
  say({ jsonrpc: "2.0", id: 6, method: "ui/open-link", params: { url: "https://example.com/" } });
  assert.equal(el.querySelector("[data-testid=app-link]").textContent, "https://example.com/");
  const [, dont] = el.querySelectorAll("[data-testid=app-ask] button");
  assert.equal(dont.textContent, "Don't open");
  dont.click();
  assert.deepEqual(posted.at(-1), { jsonrpc: "2.0", id: 6, result: { isError: true } });
  assert.equal(el.querySelector("[data-testid=app-link]"), null);
});

test("the app is told when the notebook's theme changes", async () => {
  document.body.dataset.jpThemeLight = "true";
  const { posted, say } = onScreen();
  say({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
  assert.equal(posted[0].result.hostContext.theme, "light");
  say({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
  document.body.dataset.jpThemeLight = "false";
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(posted.at(-1), {
    jsonrpc: "2.0",
    method: "ui/notifications/host-context-changed",
    params: { theme: "dark" },
  });
  delete document.body.dataset.jpThemeLight;
});

test("'wide' shows the app over the page without moving its frame; Escape puts it back", () => {
  const { el, frame, posted, say } = onScreen();
  say({ jsonrpc: "2.0", id: 1, method: "ui/initialize", params: {} });
  say({ jsonrpc: "2.0", method: "ui/notifications/initialized" });
  el.querySelector("[data-testid=app-wide]").click();
  assert.ok(el.classList.contains("tl-app-wide"));
  assert.equal(el.querySelector("iframe"), frame); // the same frame: the app keeps its state
  assert.deepEqual(posted.at(-1).params, { displayMode: "fullscreen" });
  el.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true }));
  assert.ok(!el.classList.contains("tl-app-wide"));
  // The app may ask for it too.
  say({ jsonrpc: "2.0", id: 9, method: "ui/request-display-mode", params: { mode: "fullscreen" } });
  assert.deepEqual(posted.at(-1), { jsonrpc: "2.0", id: 9, result: { mode: "fullscreen" } });
  assert.ok(el.classList.contains("tl-app-wide"));
});

test("a card names its app's page, held once in the trace", () => {
  const local = viewLocal();
  const c = appCard({ app: { uri: "ui://x", page: "k1", csp: {} } });
  const el = appFrame(fakeModel(), c, local, { k1: PAGE });
  assert.match(el.querySelector("iframe").srcdoc, /\/\* app \*\//);
  const missing = appFrame(
    fakeModel(),
    appCard({ id: "c2", app: { uri: "ui://y", page: "k9" } }),
    local,
    {},
  );
  assert.match(missing.textContent, /could not be read: no page/);
});
