// A row of JupyterLab's Threads panel (labextension/src/thread_row.js): its words, and a
// row brought up to date in place.
import assert from "node:assert/strict";
import { test } from "node:test";
import "./setup.mjs"; // the DOM

const row = await import(new URL("../../labextension/src/thread_row.js", import.meta.url).href);

/** A listed thread as the server's route answers it. */
function listed(fields = {}) {
  return {
    id: "thr_3f2a1b0c9d8e7f6a5b4c",
    target: "brewer",
    status: "completed",
    origin: "notebook",
    made_in: "tea.ipynb",
    created_at: 1000,
    updated_at: 1100,
    usage: { input_tokens: 1200, output_tokens: 340 },
    cost_usd: 0.0064,
    duration_s: 2.5,
    ...fields,
  };
}

test("a time reads as how long ago, a date past a week", () => {
  assert.equal(row.ago(1000, 1010), "just now");
  assert.equal(row.ago(1000, 1000 + 5 * 60), "5 min ago");
  assert.equal(row.ago(1000, 1000 + 3 * 3600), "3 h ago");
  assert.equal(row.ago(1000, 1000 + 2 * 86400), "2 d ago");
  assert.equal(row.ago(0, 30 * 86400), new Date(0).toLocaleDateString());
  assert.equal(row.ago(2000, 1000), "just now"); // a clock a little behind the server's
});

test("a duration reads in a few characters", () => {
  assert.equal(row.durationText(0.42), "0.4 s");
  assert.equal(row.durationText(12.4), "12 s");
  assert.equal(row.durationText(185), "3 min 5 s");
  assert.equal(row.durationText(3720), "1 h 2 min");
});

test("tokens are the input and the output together; an id is cut to its start", () => {
  assert.equal(row.tokens({ input_tokens: 10, output_tokens: 5, cached_tokens: 8 }), 15);
  assert.equal(row.tokens({}), 0);
  assert.equal(row.shortId("thr_3f2a1b0c9d8e7f6a5b4c"), "thr_3f2a1b0c");
  assert.equal(row.shortId("thr_x"), "thr_x");
});

test("a row says the target, status, origin, tokens, cost, duration, time and id", () => {
  const el = row.newRow(listed());
  row.updateRow(el, listed(), 1100 + 120);
  assert.equal(el.dataset.thread, "thr_3f2a1b0c9d8e7f6a5b4c");
  assert.equal(el.getAttribute("role"), "option");
  assert.equal(el.querySelector(".tl-threads-target").textContent, "brewer");
  assert.equal(el.querySelector(".tl-threads-when").textContent, "2 min ago");
  const facts = [...el.querySelectorAll(".tl-threads-fact")].map((f) => f.textContent);
  // A notebook's thread names its notebook; the whole path on hover.
  assert.deepEqual(facts, ["tea.ipynb", "1.5K tokens", "$0.0064", "2.5 s", "thr_3f2a1b0c"]);
  assert.equal(el.querySelector(".tl-threads-origin").title, "tea.ipynb");
  const deep = listed({ made_in: "lessons/week 2/tea.ipynb" });
  row.updateRow(el, deep, 1100 + 120);
  assert.equal(el.querySelector(".tl-threads-origin").textContent, "tea.ipynb");
  assert.equal(el.querySelector(".tl-threads-origin").title, "lessons/week 2/tea.ipynb");
});

test("a thread that never ran says no tokens, cost or duration", () => {
  const bare = listed({ status: "never run", usage: {}, cost_usd: null, duration_s: 0 });
  const el = row.newRow(bare);
  row.updateRow(el, bare, 1100);
  const facts = [...el.querySelectorAll(".tl-threads-fact")].map((f) => f.textContent);
  assert.deepEqual(facts, ["tea.ipynb", "thr_3f2a1b0c"]);
  const status = el.querySelector(".tl-threads-status");
  assert.equal(status.dataset.status, "never-run"); // one class name, not two
  assert.ok(status.classList.contains("tl-never-run"));
});

test("an update changes what changed and keeps the rest of the row's elements", () => {
  const el = row.newRow(listed({ status: "running" }));
  row.updateRow(el, listed({ status: "running" }), 1100);
  const target = el.querySelector(".tl-threads-target");
  const facts = el.querySelector(".tl-threads-facts").firstElementChild;
  row.updateRow(el, listed({ status: "running" }), 1100);
  assert.equal(el.querySelector(".tl-threads-facts").firstElementChild, facts); // unchanged
  row.updateRow(el, listed({ status: "failed" }), 1100);
  assert.equal(el.querySelector(".tl-threads-target"), target);
  assert.equal(el.dataset.status, "failed");
  assert.ok(el.querySelector(".tl-threads-status").classList.contains("tl-failed"));
  assert.ok(!el.querySelector(".tl-threads-status").classList.contains("tl-running"));
});

test("a branch says which thread it is a branch of; the whole id on hover", () => {
  const branch = listed({ forked_from: "thr_9a8b7c6d5e4f3a2b1c0d" });
  const el = row.newRow(branch);
  row.updateRow(el, branch, 1100);
  const facts = [...el.querySelectorAll(".tl-threads-fact")].map((f) => f.textContent);
  assert.equal(facts[1], "branch of thr_9a8b7c6d");
  assert.equal(
    el.querySelector(".tl-threads-branch").title,
    "forked from thr_9a8b7c6d5e4f3a2b1c0d",
  );
});
