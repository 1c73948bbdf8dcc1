// The inspector: header, tree, conversation, files and timeline of the selected thread.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aCard, aTrace, fakeModel, local, view } from "./setup.mjs";

const { inspector } = await view("inspector.js");

test("the root is drawn first; selecting a child redraws it and tells the kernel", () => {
  const model = fakeModel();
  const el = document.createElement("div");
  let redrawn = 0;
  const l = local({ redraw: () => redrawn++ });
  inspector(model, el, aTrace(), l);
  assert.match(el.textContent, /completed/);
  assert.match(el.textContent, /build it/);
  el.querySelector('[data-testid=tree-node][data-thread="t2"]').click();
  assert.equal(l.selected, "t2");
  assert.deepEqual(model.sent, [{ op: "select", thread: "t2" }]);
  assert.equal(redrawn, 1);
  inspector(model, el, aTrace(), l);
  assert.match(el.textContent, /make the page/);
  assert.match(el.textContent, /files \(1\)/);
});

test("a run that waits says so as a note, a failed one as an error", () => {
  const el = document.createElement("div");
  const l = local();
  const trace = aTrace();
  trace.run = { status: "waiting", error: "tool call call_1 (rm) waits for a decision" };
  inspector(fakeModel(), el, trace, l);
  const note = [...el.querySelectorAll(".tl-meta")].find((n) =>
    /waits for a decision/.test(n.textContent),
  );
  assert.ok(note);
  trace.run = { status: "failed", error: "model 'x' failed" };
  inspector(fakeModel(), el, trace, l);
  assert.ok([...el.querySelectorAll(".tl-error")].some((n) => /failed/.test(n.textContent)));
});

test("a closed timeline shows its head only; opened, it draws its lanes", () => {
  const el = document.createElement("div");
  const l = local();
  l.redraw = () => inspector(fakeModel(), el, aTrace(), l);
  l.redraw();
  const box = el.querySelector("[data-testid=timeline]");
  assert.match(box.querySelector("summary").textContent, /2 model steps .* 1 call \(/);
  assert.equal(el.querySelectorAll("[data-testid=timeline-lane]").length, 0);
  box.open = true;
  box.dispatchEvent(new Event("toggle"));
  assert.ok(el.querySelectorAll("[data-testid=timeline-lane]").length > 0);
  assert.equal(el.querySelectorAll("[data-testid=timeline-call]").length, 1);
});

test("a replay's header counts its model calls, one in the singular", () => {
  const el = document.createElement("div");
  const trace = aTrace();
  trace.messages.t1[1].model = "replay";
  trace.messages.t1[3].model = "gpt-4o";
  inspector(fakeModel(), el, trace, local());
  assert.match(
    el.querySelector("[data-testid=run-usage]").textContent,
    /1 model call replayed · 1 forwarded to the model/,
  );
});

test("another thread shown here does not show what was fetched for the one before", () => {
  // A branch keeps its calls' ids: the original's full result, fetched with "load all", was
  // shown in the branch's card of the same id, and the branch's own result was not.
  const el = document.createElement("div");
  const l = local();
  inspector(fakeModel(), el, aTrace(), l);
  l.fetched.call_1 = "ORIGINAL: wrote 12 bytes to index.html";
  l.fetchedArgs.call_1 = '{"path": "index.html"}';
  const branch = aTrace();
  branch.root = "t9";
  branch.threads = [{ ...branch.threads[0], id: "t9" }];
  branch.messages = { t9: branch.messages.t1.map((m) => ({ ...m, thread: "t9" })) };
  branch.cards = { call_1: { ...aCard(), thread: "t9", result: "wrote 3 bytes" } };
  inspector(fakeModel(), el, branch, l);
  assert.deepEqual([l.fetched, l.fetchedArgs], [{}, {}]);
  const shown = el.querySelector("[data-testid=tool-card]");
  shown.open = true;
  assert.doesNotMatch(shown.textContent, /ORIGINAL/);
  inspector(fakeModel(), el, branch, l); // the same thread again: what it fetched stays
  l.fetched.call_1 = "the branch's own";
  inspector(fakeModel(), el, branch, l);
  assert.equal(l.fetched.call_1, "the branch's own");
});
