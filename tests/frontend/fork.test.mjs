// "fork from here": the point's value in an editor, checked before a fork is asked for.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeModel, local, view } from "./setup.mjs";

const { forkControl } = await view("fork.js");

const callPoint = {
  thread: "t1",
  at: "call_1",
  kind: "call",
  result: "wrote 12 bytes",
  args: '{"path": "a"}',
};

function submit(el) {
  el.querySelector("[data-testid=fork-run]").click();
}

test("a call's result is edited as JSON and sent as the fork's result", () => {
  const model = fakeModel();
  const el = forkControl(model, local(), callPoint);
  const editor = el.querySelector("[data-testid=fork-editor]");
  assert.equal(editor.value, '"wrote 12 bytes"');
  editor.value = '{"wrote": 3}';
  submit(el);
  assert.deepEqual(model.sent, [{ op: "fork", thread: "t1", at: "call_1", result: { wrote: 3 } }]);
});

test("a JSON result is edited as the value it is, not as a string holding it", () => {
  const model = fakeModel();
  const el = forkControl(model, local(), { ...callPoint, result: '{"wrote": 12}' });
  const editor = el.querySelector("[data-testid=fork-editor]");
  assert.equal(editor.value, '{"wrote": 12}');
  editor.value = '{"wrote": 0}';
  submit(el);
  assert.deepEqual(model.sent[0].result, { wrote: 0 });
});

test("text that is not JSON is refused with the reason, and nothing is sent", () => {
  const model = fakeModel();
  const el = forkControl(model, local(), callPoint);
  el.querySelector("[data-testid=fork-editor]").value = "{oops";
  submit(el);
  assert.match(el.querySelector("[data-testid=fork-error]").textContent, /^not JSON/);
  assert.deepEqual(model.sent, []);
});

test("a user message forks with new text, and the form is kept per point", () => {
  const model = fakeModel();
  const l = local();
  const point = { thread: "t1", at: "m1", kind: "message", text: "build it" };
  const el = forkControl(model, l, point);
  const modes = [...el.querySelectorAll("[data-testid=fork-mode] option")].map((o) => o.value);
  assert.deepEqual(modes, ["message"]);
  el.querySelector("[data-testid=fork-editor]").value = "build it in blue";
  submit(el);
  assert.deepEqual(model.sent[0], {
    op: "fork",
    thread: "t1",
    at: "m1",
    message: "build it in blue",
  });
  assert.equal(forkControl(model, l, point), el);
});
