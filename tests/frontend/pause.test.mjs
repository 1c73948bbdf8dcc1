// A run paused before a model step: the request it is about to send, Continue / Stop.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeModel, view } from "./setup.mjs";

const { pausePanel } = await view("pause.js");

const paused = (run = {}) => ({
  root: "t1",
  run: {
    status: "waiting",
    stop_reason: "waiting: model step",
    next_request: "system: You add.\nuser: 2+3?\ntools: add (tool_choice auto, parallel calls no)",
    ...run,
  },
});

test("the request about to be sent is shown, open, as text", () => {
  const panel = pausePanel(fakeModel(), paused());
  assert.match(
    panel.querySelector("[data-testid=pause-ask]").textContent,
    /paused before a model step/,
  );
  const request = panel.querySelector("[data-testid=next-request]");
  assert.ok(request.open);
  assert.equal(request.querySelector("pre").textContent.split("\n")[1], "user: 2+3?");
});

test("Continue sends one step message and disables both buttons at once", () => {
  const model = fakeModel();
  const panel = pausePanel(model, paused());
  panel.querySelector("[data-testid=step-continue]").click();
  panel.querySelector("[data-testid=step-stop]").click(); // disabled: nothing more is sent
  assert.deepEqual(model.sent, [{ op: "step", thread: "t1", action: "continue" }]);
  assert.ok([...panel.querySelectorAll("button")].every((b) => b.disabled));
  assert.match(panel.querySelector("[data-testid=pause-ask]").textContent, /sending the step/);
});

test("Stop sends stop", () => {
  const model = fakeModel();
  pausePanel(model, paused()).querySelector("[data-testid=step-stop]").click();
  assert.deepEqual(model.sent, [{ op: "step", thread: "t1", action: "stop" }]);
});

test("without a kernel the pause is told, with no buttons", () => {
  const panel = pausePanel(fakeModel({ offline: true }), paused());
  assert.equal(panel.querySelectorAll("button").length, 0);
  assert.ok(panel.querySelector("[data-testid=next-request]"));
});

test("a run that waits for a decision, or did not pause, has no pause panel", () => {
  assert.equal(pausePanel(fakeModel(), paused({ stop_reason: "waiting: approval" })), null);
  assert.equal(pausePanel(fakeModel(), { root: "t1", run: { status: "completed" } }), null);
  assert.equal(pausePanel(fakeModel(), { root: "t1" }), null);
});

test("a request the kernel no longer has (a restart) still offers Continue", () => {
  const panel = pausePanel(fakeModel(), paused({ next_request: undefined }));
  assert.equal(panel.querySelector("[data-testid=next-request]"), null);
  assert.ok(panel.querySelector("[data-testid=step-continue]"));
});
