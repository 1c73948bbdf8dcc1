// The evaluation table: cases by models, filling in; filters; a cell opens its thread.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeModel, local, view } from "./setup.mjs";

const { evalTable } = await view("eval_table.js");

const cell = (name, model, passed, changes = {}) => ({
  case: name,
  model,
  repeat: 0,
  thread: `thr_${name}_${model}`,
  status: "completed",
  passed,
  scores: { contains: passed },
  ms: 40,
  tokens: 10,
  cost_usd: 0,
  error: null,
  note: null,
  ...changes,
});

const state = (changes = {}) => ({
  name: "capitals",
  target: "geo",
  models: ["a", "b"],
  cases: ["fr", "jp"],
  rows: [cell("fr", "a", true), cell("fr", "b", true), cell("jp", "a", false)],
  total: 4,
  finished: false,
  started_at: Date.now() / 1000 - 3,
  ...changes,
});

test("a row per case, a column per model; a run not back yet reads as …", () => {
  const el = document.createElement("div");
  evalTable(fakeModel(state()), el, local());
  assert.match(el.textContent, /3 \/ 4 runs, 2 passed · about \d+ s left/);
  const jp = el.querySelector('[data-case="jp"]');
  assert.match(jp.textContent, /✗/);
  assert.match(jp.textContent, /…/);
});

test("failures only keeps the cases with a failed run, and a cell opens its thread", () => {
  const el = document.createElement("div");
  const model = fakeModel(state({ finished: true }));
  evalTable(model, el, local({ evalFailures: true }));
  assert.deepEqual(
    [...el.querySelectorAll("[data-case]")].map((r) => r.getAttribute("data-case")),
    ["jp"],
  );
  el.querySelector("[data-testid=eval-cell]").click();
  assert.deepEqual(model.sent, [{ op: "open", thread: "thr_jp_a" }]);
});

test("where the models differ keeps the cases they answered differently", () => {
  const el = document.createElement("div");
  const rows = [
    cell("fr", "a", true),
    cell("fr", "b", true),
    cell("jp", "a", true),
    cell("jp", "b", false),
  ];
  evalTable(fakeModel(state({ rows, finished: true })), el, local({ evalDifferences: true }));
  assert.deepEqual(
    [...el.querySelectorAll("[data-case]")].map((r) => r.getAttribute("data-case")),
    ["jp"],
  );
});

test("with no kernel a cell cannot open its thread, and says why", () => {
  const el = document.createElement("div");
  evalTable(fakeModel(state({ offline: true })), el, local());
  const first = el.querySelector("[data-testid=eval-cell]");
  assert.ok(first.disabled);
  assert.match(first.title, /kernel that made this view is gone/);
});
