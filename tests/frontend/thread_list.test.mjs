// The thread list: search, pages of PAGE rows, and open.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeModel, local, view } from "./setup.mjs";

const { threadList, PAGE } = await view("thread_list.js");

const row = (i, changes = {}) => ({
  id: `thr_${i}`,
  agent: i % 2 ? "writer" : "reader",
  origin: "a.ipynb",
  notebook: "a.ipynb",
  created_at: 1_700_000_000 + i,
  status: "idle",
  messages: 2,
  children: 0,
  ...changes,
});

test("a page of rows, then a button for the next ones", () => {
  const el = document.createElement("div");
  let redrawn = 0;
  const l = local({ redraw: () => redrawn++ });
  const rows = Array.from({ length: PAGE + 7 }, (_, i) => row(i));
  threadList(fakeModel({ rows }), el, l);
  assert.equal(el.querySelectorAll("[data-testid=thread-row]").length, PAGE);
  const more = el.querySelector("[data-testid=more-threads]");
  assert.equal(more.textContent, `show 7 more of ${PAGE + 7}`);
  more.click();
  assert.equal(l.listShown, 2 * PAGE);
  assert.equal(redrawn, 1);
});

test("the search matches id, agent, notebook or status, case-insensitively", () => {
  const el = document.createElement("div");
  const rows = [row(1), row(2), row(3, { status: "waiting" })];
  threadList(fakeModel({ rows }), el, local({ listQuery: "WAIT" }));
  const shown = [...el.querySelectorAll("[data-testid=thread-row]")].map((r) =>
    r.getAttribute("data-thread"),
  );
  assert.deepEqual(shown, ["thr_3"]);
});

test("open asks the kernel for the thread; with no kernel it cannot", () => {
  const el = document.createElement("div");
  const model = fakeModel({ rows: [row(1)] });
  threadList(model, el, local());
  el.querySelector("[data-testid=open-thread]").click();
  assert.deepEqual(model.sent, [{ op: "open", thread: "thr_1" }]);
  threadList(fakeModel({ rows: [row(1)], offline: true }), el, local());
  assert.ok(el.querySelector("[data-testid=open-thread]").disabled);
});

test("a row's date reads as the person's locale writes a date and time", () => {
  const el = document.createElement("div");
  threadList(fakeModel({ rows: [row(3)] }), el, local());
  const when = new Date((1_700_000_000 + 3) * 1000);
  assert.equal(el.querySelector(".tl-date").textContent, when.toLocaleString());
});

test("a branch names the thread it came from, and is found by that thread's id", () => {
  const el = document.createElement("div");
  const rows = [row(1), row(2, { forked_from: "thr_1" })];
  threadList(fakeModel({ rows }), el, local());
  const marks = [...el.querySelectorAll("[data-testid=branch-of]")];
  assert.deepEqual(
    marks.map((m) => [
      m.closest("[data-testid=thread-row]").getAttribute("data-thread"),
      m.textContent,
    ]),
    [["thr_2", "branch of thr_1"]],
  );
  threadList(fakeModel({ rows }), el, local({ listQuery: "thr_1" }));
  const shown = [...el.querySelectorAll("[data-testid=thread-row]")].map((r) =>
    r.getAttribute("data-thread"),
  );
  assert.deepEqual(shown, ["thr_1", "thr_2"]);
});
