// A saved output drawn with no kernel: the same views, answering for the kernel.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, view } from "./setup.mjs";

const { renderOffline } = await view("offline.js");
const { NO_KERNEL } = await view("text.js");

test("a saved thread view draws its trace, and what only the kernel has says so", () => {
  const el = document.createElement("div");
  const stop = renderOffline(el, { trace: aTrace() });
  assert.match(el.textContent, /build it/);
  assert.equal(el.querySelectorAll(".tl-fork-point").length, 0); // no forks without a kernel
  el.querySelector('[data-testid=tree-node][data-thread="t2"]').click();
  el.querySelector("[data-testid=file]").click(); // a preview asked of no kernel
  assert.match(el.textContent, new RegExp(NO_KERNEL.slice(0, 40)));
  stop();
});

test("a saved thread list and a saved evaluation draw as those views", () => {
  const list = document.createElement("div");
  const stop1 = renderOffline(list, { view: "threads", rows: [] });
  assert.ok(list.querySelector("[data-testid=thread-list]"));
  const table = document.createElement("div");
  const stop2 = renderOffline(table, {
    view: "eval",
    rows: [],
    models: [],
    cases: [],
    name: "e",
    target: "t",
  });
  assert.ok(table.querySelector("[data-testid=eval-table]"));
  stop1();
  stop2();
});
