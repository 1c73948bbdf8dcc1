// Unit tests of the views' code that needs no browser: how a live patch merges into the
// trace, and how a card keeps its element (and so its open state) across updates.
// Run by tests/frontend/test_views_js.py: node --test, with jsdom from .cache/npm.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { test } from "node:test";

const require = createRequire(new URL("../../.cache/npm/", import.meta.url));
const { JSDOM } = require("jsdom");
const { window } = new JSDOM("<!doctype html><body></body>");
globalThis.document = window.document;
globalThis.HTMLElement = window.HTMLElement;
globalThis.Node = window.Node;

const views = new URL("../../src/threadlab/widgets/js/", import.meta.url);
const { applyPatch } = await import(new URL("patch.js", views).href);
const { card } = await import(new URL("card.js", views).href);

function trace() {
  return {
    root: "t1",
    threads: [{ id: "t1", parent: null, agent: "p", name: "p", status: "running", progress: null }],
    messages: { t1: [{ id: "m1", role: "user", text: "go" }] },
    cards: {},
    files: {},
    drafts: { t1: "hel" },
    run: { status: "running" },
  };
}

test("a patch appends messages, replaces changed threads and cards, adds new threads", () => {
  const t = trace();
  applyPatch(t, {
    threads: [
      { id: "t1", parent: null, agent: "p", name: "p", status: "idle", progress: null },
      { id: "t2", parent: "t1", agent: "c", name: "c-1", status: "running", progress: null },
    ],
    messages: { t1: [{ id: "m2", role: "assistant", text: "hi" }], t2: [{ id: "m3" }] },
    cards: { c1: { id: "c1", status: "running" } },
    files: { t2: [{ path: "/a.txt", size: 1 }] },
    drafts: { t1: null },
    run: { status: "completed" },
  });
  assert.deepEqual(
    t.threads.map((x) => [x.id, x.status]),
    [
      ["t1", "idle"],
      ["t2", "running"],
    ],
  );
  assert.deepEqual(
    t.messages.t1.map((m) => m.id),
    ["m1", "m2"],
  );
  assert.deepEqual(t.messages.t2, [{ id: "m3" }]);
  assert.equal(t.cards.c1.status, "running");
  assert.deepEqual(t.files.t2, [{ path: "/a.txt", size: 1 }]);
  assert.equal("t1" in t.drafts, false); // null: the draft became a message
  assert.equal(t.run.status, "completed");
});

test("a card whose id the model chose as __proto__ is a card, not the object's prototype", () => {
  const t = trace();
  applyPatch(t, JSON.parse('{"cards": {"__proto__": {"id": "__proto__", "status": "success"}}}'));
  assert.deepEqual(Object.keys(t.cards), ["__proto__"]);
  assert.equal(Object.getPrototypeOf(t.cards), Object.prototype);
  assert.equal(t.cards.status, undefined); // nothing inherited
  applyPatch(t, JSON.parse('{"cards": {"__proto__": {"id": "__proto__", "status": "error"}}}'));
  assert.equal(Object.getOwnPropertyDescriptor(t.cards, "__proto__").value.status, "error");
});

test("an empty patch changes nothing", () => {
  const t = trace();
  const before = JSON.stringify(t);
  applyPatch(t, {});
  assert.equal(JSON.stringify(t), before);
});

function local() {
  return { cards: new Map(), memory: { open: new Set(), selected: null }, clock: {} };
}

function call(status, result = null) {
  return {
    id: "c1",
    thread: "t1",
    name: "write_file",
    depth: 0,
    progress: "writing index.html",
    status,
    duration_ms: status === "running" ? null : 12,
    result,
    result_chars: result ? result.length : 0,
    args_chars: 20,
    args: '{"path": "/index.html"}',
    label: "",
    events: [],
    started_at: null,
    traceback: null,
    approval: null,
  };
}

const model = { get: () => null, set() {}, save_changes() {}, send() {}, on() {} };

test("a card keeps its element, and a person's open card stays open, across updates", () => {
  const l = local();
  const first = card(model, call("running"), {}, l);
  assert.equal(first.getAttribute("data-status"), "running");
  first.open = true;
  first.dispatchEvent(new window.Event("toggle"));
  const summary = first.querySelector("summary");
  const same = card(model, call("running"), {}, l);
  assert.equal(same, first); // nothing changed: not even rebuilt
  const done = card(model, call("success", "wrote 20 characters"), {}, l);
  assert.equal(done, first); // changed: the same element, updated in place
  assert.equal(done.open, true);
  assert.equal(done.querySelector("summary"), summary); // a click in flight still lands
  assert.equal(done.getAttribute("data-status"), "success");
  assert.match(done.textContent, /writing index\.html/);
});

test("a card a person has not opened stays closed when it updates", () => {
  const l = local();
  card(model, call("running"), {}, l);
  const done = card(model, call("error", "boom"), {}, l);
  assert.equal(done.open, false);
  assert.equal(done.className, "tl-card tl-error");
});
