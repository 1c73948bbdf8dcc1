// What every view unit test shares: a DOM (jsdom, from .cache/npm), the views' modules by
// name, a model as anywidget gives one (its sent messages kept), a view's local state, and
// a small trace: a lead that called a tool and started a child that wrote a file.
import { createRequire } from "node:module";

const require = createRequire(new URL("../../.cache/npm/", import.meta.url));
const { JSDOM } = require("jsdom");
const { window } = new JSDOM("<!doctype html><body></body>", { url: "http://localhost/" });
for (const name of [
  "document",
  "HTMLElement",
  "Node",
  "Event",
  "KeyboardEvent",
  "MessageEvent",
  "MutationObserver",
]) {
  globalThis[name] = window[name];
}
// The page's window, as a view sees it (an app's frame talks to it over postMessage).
globalThis.window = window;

const views = new URL("../../src/threadlab/widgets/js/", import.meta.url);

/** The view module `name` (e.g. "tree.js"). */
export async function view(name) {
  return import(new URL(name, views).href);
}

/** A model as anywidget gives one: `get` reads `state`; `sent` keeps what the view sent. */
export function fakeModel(state = {}) {
  const values = { ...state };
  const handlers = {};
  return {
    sent: [],
    handlers,
    get: (name) => values[name],
    set: (name, value) => {
      values[name] = value;
    },
    save_changes() {},
    send(message) {
      this.sent.push(message);
    },
    on: (event, callback) => {
      handlers[event] = [...(handlers[event] || []), callback];
    },
    off() {},
  };
}

/** A view's local state, as `mount` makes it. */
export function local(changes = {}) {
  return {
    memory: { open: new Set(), selected: null },
    selected: null,
    fetched: {},
    fetchedArgs: {},
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
    listShown: 50,
    evalFailures: false,
    evalDifferences: false,
    clock: {},
    secret: null,
    apps: new Map(),
    ...changes,
  };
}

const message = (id, role, text, extra = {}) => ({
  id,
  role,
  text,
  chars: text.length,
  depth: 0,
  side: null,
  calls: [],
  attachments: [],
  usage: null,
  subagent: null,
  ...extra,
});

/** A card as the Python side draws one. */
export function aCard(changes = {}) {
  return {
    id: "call_1",
    thread: "t1",
    name: "write_file",
    depth: 0,
    progress: "writing index.html",
    status: "success",
    duration_ms: 120,
    result: "wrote 12 bytes",
    result_chars: 14,
    args_chars: 40,
    args: '{"path": "index.html", "content": "<h1>hi</h1>"}',
    label: "index.html",
    events: [],
    started_at: 10.0,
    finished_at: 10.12,
    traceback: null,
    approval: null,
    ...changes,
  };
}

/** A lead thread that called write_file and has a child, which wrote a file. */
export function aTrace() {
  return {
    root: "t1",
    threads: [
      { id: "t1", parent: null, agent: "lead", name: "lead", status: "idle", progress: null },
      {
        id: "t2",
        parent: "t1",
        agent: "builder",
        name: "builder-1",
        status: "running",
        progress: "writing page.html",
        cost_usd: 0.0123,
      },
    ],
    messages: {
      t1: [
        message("m1", "user", "build it", { at: 10.0 }),
        message("m2", "assistant", "", { calls: ["call_1"], at: 10.0, model: "offline" }),
        message("m3", "tool", "wrote 12 bytes", { at: 10.12 }),
        message("m4", "assistant", "done", {
          at: 10.3,
          usage: { input_tokens: 120, output_tokens: 8 },
        }),
      ],
      t2: [message("m5", "user", "make the page", { at: 10.05 })],
    },
    cards: { call_1: aCard() },
    files: { t2: [{ path: "/attachments/page.html", size: 2048 }] },
    drafts: {},
    run: { status: "completed", text: "done" },
  };
}

/** All the text `nodes` show, in order. */
export function textOf(...nodes) {
  return nodes
    .flat()
    .filter((n) => n && typeof n === "object")
    .map((n) => n.textContent)
    .join(" ");
}
