// How a live patch from the kernel merges into the trace a view draws.
import assert from "node:assert/strict";
import { test } from "node:test";
import { view } from "./setup.mjs";

const { applyPatch } = await view("patch.js");

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

test("an app's page arrives once, under its key, beside the cards that name it", () => {
  const t = trace();
  applyPatch(t, { apps: { k1: "<p>app</p>" } });
  assert.equal(t.apps.k1, "<p>app</p>");
  applyPatch(t, { apps: JSON.parse('{"__proto__": "<p>odd key</p>"}') });
  assert.equal(Object.getPrototypeOf(t.apps), Object.prototype); // a key, not a prototype
  assert.equal(Object.getOwnPropertyDescriptor(t.apps, "__proto__").value, "<p>odd key</p>");
});
