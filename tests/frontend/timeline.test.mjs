// The timeline: model steps and tool calls as spans, a lane per thread.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, view } from "./setup.mjs";

const { timeline } = await view("timeline.js");

test("each model step and each call is a span in its thread's lane", () => {
  const { head, lanes } = timeline(aTrace());
  assert.match(head, /2 model steps/);
  assert.match(head, /1 call \(120 ms\)/);
  const lead = lanes.find((l) => l.getAttribute("data-thread") === "t1");
  const spans = [...lead.querySelectorAll(".tl-span")].map((s) => s.textContent);
  assert.deepEqual(spans.sort(), ["model", "model", "write_file"]);
  const step = lead.querySelector("[data-testid=timeline-step][title*='120 in']");
  assert.ok(step, "a step's tooltip carries its tokens");
});

test("a thread with nothing timed has no spans, and says timeline", () => {
  const trace = aTrace();
  for (const list of Object.values(trace.messages)) for (const m of list) delete m.at;
  trace.cards = {};
  assert.deepEqual(timeline(trace), { head: "timeline", lanes: [] });
});

test("a timeline not on screen counts what a drawn one does, and draws no lane", () => {
  const drawn = timeline(aTrace());
  assert.deepEqual(timeline(aTrace(), false), { head: drawn.head, lanes: [] });
});

test("a model step starts when its run went on, not while the run was paused before it", () => {
  const trace = aTrace();
  // Paused before the model step for 30 s (step mode), then a run of its own went on.
  const m4 = trace.messages.t1[3];
  m4.at = 40.3;
  m4.since = 40.2;
  const { head } = timeline(trace);
  assert.match(head, /2 model steps \(100 ms\)/);
});

test("one model step and one call read in the singular, none in the plural", () => {
  const trace = aTrace();
  trace.messages.t1 = trace.messages.t1.slice(0, 2); // the user's message, one model step
  trace.cards = {};
  assert.match(timeline(trace).head, / · 1 model step \(\d+ ms\) · 0 calls \(0 ms\)$/);
});

test("a stretch where nothing ran is left out of the axis, and said in the head", () => {
  const trace = aTrace();
  // A branch made 200 s later from this history, its own model step run then.
  trace.messages.t1.push(
    { ...trace.messages.t1[0], id: "m9", role: "user", at: 210.3 },
    { ...trace.messages.t1[3], id: "m10", at: 210.5, since: 210.3 },
  );
  const { head, lanes } = timeline(trace);
  // 0.5 s of steps and calls drawn; the 200 s between them said, not drawn.
  assert.match(head, /^timeline · 500 ms \(3 min 20 s idle, not drawn\) · 3 model steps/);
  const lead = lanes.find((l) => l.getAttribute("data-thread") === "t1");
  const last = [...lead.querySelectorAll("[data-testid=timeline-step]")].at(-1);
  // The branch's step ends the axis, drawn right after the history's last step.
  assert.equal(Number.parseFloat(last.style.left), 60);
  assert.equal(Number.parseFloat(last.style.width), 40);
  const breaks = lanes.at(-1).querySelectorAll("[data-testid=timeline-break]");
  assert.deepEqual(
    [...breaks].map((b) => Number.parseFloat(b.style.left)),
    [60],
  );
});

test("a long stretch left out reads in minutes, hours or days", () => {
  const heads = [200, 7500, 3 * 86400].map((gap) => {
    const trace = aTrace();
    trace.messages.t1.push(
      { ...trace.messages.t1[0], id: "m9", role: "user", at: 10.3 + gap },
      { ...trace.messages.t1[3], id: "m10", at: 10.5 + gap, since: 10.3 + gap },
    );
    return timeline(trace).head.split(" · ")[1];
  });
  assert.deepEqual(heads, [
    "500 ms (3 min 20 s idle, not drawn)",
    "500 ms (2 h 5 min idle, not drawn)",
    "500 ms (3 days idle, not drawn)",
  ]);
});

test("a branch's lanes are drawn: its root hangs under its origin's node, not a lane", () => {
  const trace = aTrace();
  const root = trace.threads.find((t) => t.id === "t1");
  trace.threads.push({
    id: "t0",
    parent: null,
    agent: "",
    name: "forked from x",
    status: "origin",
    progress: null,
    relation: "origin",
  });
  root.parent = "t0";
  const { head, lanes } = timeline(trace);
  assert.match(head, /2 model steps/);
  assert.deepEqual(
    lanes.slice(0, -1).map((l) => l.getAttribute("data-thread")),
    ["t1", "t2"],
  );
});
