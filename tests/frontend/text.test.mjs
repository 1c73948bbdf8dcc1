// How values read in a view: decisions, progress, errors, usage, cost, replay counts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aCard, view } from "./setup.mjs";

const text = await view("text.js");

test("a decision says what was decided, with what and by whom", () => {
  assert.equal(text.decisionText({ state: "asked" }), "waits for your decision");
  assert.equal(
    text.decisionText({ state: "approved", edited: true, arguments: '{"n": 2}', by: "view" }),
    'approved with edited arguments {"n": 2} (in the view)',
  );
  assert.equal(
    text.decisionText({ state: "rejected", reason: "not today", by: "approver" }),
    "rejected: not today (by the runtime's approver)",
  );
});

test("progress events give a position in every shape they come in", () => {
  assert.deepEqual(text.progressOf({ type: "progress", data: { step: 3, of: 12 } })?.value, 3);
  assert.equal(text.progressOf({ type: "progress", data: { fraction: 0.25 } })?.max > 0, true);
  assert.equal(text.progressOf({ type: "progress", data: "half way" }), null);
});

test("an error reads as one line: a traceback's exception, cut at 120 characters", () => {
  const traced = aCard({ traceback: "Traceback\n  File x\nValueError: bad path", result: "x" });
  assert.equal(text.errorLine(traced), "ValueError: bad path");
  const long = text.errorLine(aCard({ traceback: null, result: "e".repeat(300) }));
  assert.equal(long.length, 120);
  assert.ok(long.endsWith("…"));
});

test("usage and cost read as words, and nothing when there is nothing", () => {
  assert.equal(
    text.usageText({ input_tokens: 1200, output_tokens: 35 }),
    "1,200 in / 35 out tokens",
  );
  assert.equal(text.usageText(null), "");
  assert.equal(text.costText(0.00321), "$0.0032");
  assert.equal(text.costText(12.5), "$12.50");
  assert.equal(text.costText(null), "cost unknown");
  assert.equal(text.costText(0), "");
});

test("custom event data reads as key: value, not JSON", () => {
  assert.equal(text.readable({ rows: 3, table: "users" }), "rows: 3, table: users");
  assert.equal(text.readable([1, "a"]), "1, a");
  assert.equal(text.readable(null), "");
});

test("a replay's model steps are counted as replayed or forwarded", () => {
  const steps = [
    { role: "assistant", depth: 0, model: "replay" },
    { role: "assistant", depth: 0, model: "gpt-4o" },
    { role: "assistant", depth: 1, model: "replay" },
    { role: "user", depth: 0 },
  ];
  assert.deepEqual(text.replayCounts(steps), [1, 1]);
  assert.equal(text.replayCounts([{ role: "assistant", depth: 0, model: "gpt-4o" }]), null);
});

test("a call's clock starts when it is first seen and when it starts running", () => {
  const local = { clock: {} };
  const seen = text.clockOf(local, aCard({ status: "streaming" }));
  assert.equal(seen.started, null);
  const running = text.clockOf(local, aCard({ status: "running" }));
  assert.equal(typeof running.started, "number");
  assert.match(text.elapsed(Date.now() - 1500), /^1\.\d s$/);
});

test("a count has its thousands marked, as in usage and sizes", () => {
  assert.equal(text.counted(1, "call"), "1 call");
  assert.equal(text.counted(0, "call"), "0 calls");
  assert.equal(text.counted(1200, "model step"), "1,200 model steps");
  assert.equal(text.counted(2, "child", "children"), "2 children");
  assert.equal(text.countText(1234567), "1,234,567");
  assert.equal(text.countText(12), "12");
  assert.equal(
    text.usageText({ input_tokens: 12345, output_tokens: 7 }),
    "12,345 in / 7 out tokens",
  );
});
