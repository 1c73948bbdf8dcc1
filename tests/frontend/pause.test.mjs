// A run paused before a model step: the request it is about to send, Continue / Stop.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeModel, local, view } from "./setup.mjs";

const { pausePanel, predictionScore } = await view("pause.js");

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
  const panel = pausePanel(fakeModel(), paused(), local());
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
  const panel = pausePanel(model, paused(), local());
  panel.querySelector("[data-testid=step-continue]").click();
  panel.querySelector("[data-testid=step-stop]").click(); // disabled: nothing more is sent
  assert.deepEqual(model.sent, [{ op: "step", thread: "t1", action: "continue" }]);
  assert.ok([...panel.querySelectorAll("button")].every((b) => b.disabled));
  assert.match(panel.querySelector("[data-testid=pause-ask]").textContent, /sending the step/);
});

test("Stop sends stop", () => {
  const model = fakeModel();
  pausePanel(model, paused(), local()).querySelector("[data-testid=step-stop]").click();
  assert.deepEqual(model.sent, [{ op: "step", thread: "t1", action: "stop" }]);
});

test("without a kernel the pause is told, with no buttons", () => {
  const panel = pausePanel(fakeModel({ offline: true }), paused(), local());
  assert.equal(panel.querySelectorAll("button").length, 0);
  assert.ok(panel.querySelector("[data-testid=next-request]"));
});

test("a run that waits for a decision, or did not pause, has no pause panel", () => {
  assert.equal(
    pausePanel(fakeModel(), paused({ stop_reason: "waiting: approval" }), local()),
    null,
  );
  assert.equal(
    pausePanel(fakeModel(), { root: "t1", run: { status: "completed" } }, local()),
    null,
  );
  assert.equal(pausePanel(fakeModel(), { root: "t1" }, local()), null);
});

test("a request the kernel no longer has (a restart) still offers Continue", () => {
  const panel = pausePanel(fakeModel(), paused({ next_request: undefined }), local());
  assert.equal(panel.querySelector("[data-testid=next-request]"), null);
  assert.ok(panel.querySelector("[data-testid=step-continue]"));
});

test("predicting a paused step: the choices are the tools on offer, Continue reveals and scores", () => {
  const mine = local();
  const trace = {
    ...paused({ next_tools: ["add", "mul"] }),
    messages: { t1: [{ id: "m1", role: "user", text: "2+3?", calls: [], depth: 0 }] },
    cards: {},
  };
  const panel = pausePanel(fakeModel(), trace, mine);
  const choices = [...panel.querySelectorAll("[data-testid=step-choice]")];
  assert.deepEqual(
    choices.map((b) => b.textContent),
    ["add", "mul", "(a text answer)"],
  );
  choices[1].click();
  choices[0].click(); // a change of mind: the last choice counts
  assert.equal(choices[0].getAttribute("aria-pressed"), "true");
  assert.equal(choices[1].getAttribute("aria-pressed"), "false");
  // The pick shows at once, and stays when the panel is drawn again.
  assert.match(panel.querySelector("[data-testid=step-picked]").textContent, /your pick: add/);
  const redrawn = pausePanel(fakeModel(), trace, mine);
  const pressed = [...redrawn.querySelectorAll("[data-testid=step-choice]")].map((b) =>
    b.getAttribute("aria-pressed"),
  );
  assert.deepEqual(pressed, ["true", "false", "false"]);
  assert.equal(predictionScore(trace, mine), null); // not revealed before the step is stored
  // Continue: the step is stored; it called add.
  const after = {
    root: "t1",
    run: { status: "running" },
    messages: {
      t1: [
        ...trace.messages.t1,
        { id: "m2", role: "assistant", text: "", calls: ["c1"], depth: 0 },
      ],
    },
    cards: { c1: { id: "c1", name: "add" } },
  };
  const shown = predictionScore(after, mine);
  assert.match(shown.textContent, /✓ right: add/);
  assert.match(shown.textContent, /score 1 \/ 1/);
  // The next pause: a wrong guess (it answered in text).
  const next = { ...after, run: paused({ next_tools: ["add", "mul"] }).run };
  const again = pausePanel(fakeModel(), next, mine);
  again.querySelectorAll("[data-testid=step-choice]")[1].click();
  const answered = {
    ...after,
    messages: {
      t1: [...after.messages.t1, { id: "m3", role: "assistant", text: "5", calls: [], depth: 0 }],
    },
  };
  assert.match(
    predictionScore(answered, mine).textContent,
    /✗ you said mul; it chose \(a text answer\)/,
  );
  assert.match(predictionScore(answered, mine).textContent, /score 1 \/ 2/);
  // No choices without the tools on offer (a view from before they were kept), or offline.
  assert.equal(
    pausePanel(fakeModel(), paused(), local()).querySelector("[data-testid=step-predict]"),
    null,
  );
});
