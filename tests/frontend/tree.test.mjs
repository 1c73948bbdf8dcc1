// The subagent tree: each thread with its status, progress and cost; a click selects it.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, view } from "./setup.mjs";

const { tree } = await view("tree.js");

test("a child sits under its parent with its status, progress and cost", () => {
  const el = tree(aTrace(), "t1", () => {});
  const nodes = [...el.querySelectorAll("[data-testid=tree-node]")];
  assert.deepEqual(
    nodes.map((n) => n.getAttribute("data-thread")),
    ["t1", "t2"],
  );
  assert.ok(nodes[0].classList.contains("tl-selected"));
  assert.match(nodes[1].textContent, /builder-1.*running.*writing page\.html/);
  assert.match(nodes[1].textContent, /\$0\.0123/);
  // the parent says what goes on below it
  assert.equal(
    el.querySelector("[data-testid=progress-below]").textContent,
    "1 below: writing page.html",
  );
});

test("a click on a node selects its thread", () => {
  let chosen = null;
  const el = tree(aTrace(), "t1", (id) => {
    chosen = id;
  });
  el.querySelector('[data-thread="t2"]').click();
  assert.equal(chosen, "t2");
});

test("the thread a branch was forked from is named, with its id; a relation is no status", () => {
  const trace = aTrace();
  const origin = "thr_0123456789abcdef0123";
  trace.threads[0].parent = origin;
  trace.threads.unshift({
    id: origin,
    parent: null,
    agent: "",
    name: "forked from lead",
    status: "origin",
    progress: null,
    relation: "origin",
  });
  const node = tree(trace, "t1", () => {}).querySelector(`[data-thread=${origin}]`);
  assert.match(node.textContent, /^forked from leadthr_01234567…/);
  assert.equal(node.querySelector("[data-testid=related-id]").title, origin);
  assert.equal(node.querySelector(".tl-status"), null);
});
