// The inspector: header, tree, conversation, files and timeline of the selected thread.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, fakeModel, local, view } from "./setup.mjs";

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
