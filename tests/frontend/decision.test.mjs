// Approve / Edit / Reject under a call that waits: one decision sent, edits checked first.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aCard, fakeModel, local, view } from "./setup.mjs";

const { decisionControl } = await view("decision.js");

const waiting = () =>
  aCard({ status: "waiting", approval: { state: "asked", arguments: '{"path": "a.txt"}' } });

test("Approve sends one decision and disables every button at once", () => {
  const model = fakeModel();
  const bar = decisionControl(model, local(), waiting());
  bar.querySelector("[data-testid=approve]").click();
  assert.deepEqual(model.sent, [{ op: "decide", thread: "t1", call: "call_1", approved: true }]);
  assert.ok([...bar.querySelectorAll("button")].every((b) => b.disabled));
  assert.match(bar.querySelector("[data-testid=decision-ask]").textContent, /deciding…/);
});

test("edited arguments must be a JSON object before anything is sent", () => {
  const model = fakeModel();
  const bar = decisionControl(model, local(), waiting());
  const editor = bar.querySelector("[data-testid=decide-editor]");
  const send = bar.querySelector("[data-testid=approve-edited]");
  editor.value = "[1, 2]";
  send.click();
  assert.equal(
    bar.querySelector("[data-testid=decide-error]").textContent,
    "the arguments must be a JSON object",
  );
  editor.value = "{nope";
  send.click();
  assert.match(bar.querySelector("[data-testid=decide-error]").textContent, /^not JSON/);
  assert.deepEqual(model.sent, []);
  editor.value = '{"path": "b.txt"}';
  send.click();
  assert.deepEqual(model.sent[0].arguments, { path: "b.txt" });
});

test("Reject sends the reason, and the bar is kept per call across redraws", () => {
  const model = fakeModel();
  const l = local();
  const bar = decisionControl(model, l, waiting());
  bar.querySelector("[data-testid=reject-reason]").value = "not that file";
  bar.querySelector("[data-testid=reject]").click();
  assert.deepEqual(model.sent[0], {
    op: "decide",
    thread: "t1",
    call: "call_1",
    approved: false,
    reason: "not that file",
  });
  assert.equal(decisionControl(model, l, waiting()), bar);
  // Once decided the buttons go, and the keyboard is to stay on the call's card.
  assert.equal(l.focusAfter, '[data-testid="tool-card"][data-call="call_1"] > summary');
  l.decisions.get("t1 call_1").sent(); // the kernel refused it: the buttons come back
  assert.ok(![...bar.querySelectorAll("button")].some((b) => b.disabled));
  assert.equal(l.focusAfter, null); // and the keyboard stays on them
});
