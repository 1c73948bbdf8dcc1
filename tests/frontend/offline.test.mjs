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
  // Its player and forks are had from a kernel: the header says how.
  assert.ok(el.querySelector("[data-testid=step-through]").hidden);
  assert.match(
    el.querySelector("[data-testid=reopen-hint]").textContent,
    /to step through or fork it, run %threadlab open t1$/,
  );
  el.querySelector('[data-testid=tree-node][data-thread="t2"]').click();
  el.querySelector("[data-testid=file]").click(); // a preview asked of no kernel
  assert.match(el.textContent, new RegExp(NO_KERNEL.slice(0, 40)));
  stop();
});

test("a shared page, with no kernel to open it in, does not send its reader to one", () => {
  const el = document.createElement("div");
  const stop = renderOffline(el, { trace: aTrace(), shared: true });
  assert.ok(el.querySelector("[data-testid=reopen-hint]").hidden);
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

test("a saved graph draws, and a click shows a definition with no kernel", () => {
  const el = document.createElement("div");
  const node = {
    id: "tool:deploy",
    kind: "tool",
    name: "deploy",
    lines: ["function tool"],
    definition: "tool deploy\nPut a site online.",
    x: 10,
    y: 10,
    width: 190,
    height: 45,
  };
  const stop = renderOffline(el, { view: "graph", graph: { nodes: [node], edges: [] } });
  el.querySelector("[data-node='tool:deploy']").dispatchEvent(new Event("click"));
  assert.equal(el.querySelector("[data-testid=graph-definition] pre").textContent, node.definition);
  stop();
});

test("a saved player draws the thread at its end, and steps back with no kernel", () => {
  const el = document.createElement("div");
  const points = [
    { kind: "message_created", id: "m1", thread: "t1", label: "user: build it" },
    { kind: "message_created", id: "m4", thread: "t1", label: "assistant: done" },
  ];
  const stop = renderOffline(el, { view: "player", trace: aTrace(), points });
  assert.match(el.querySelector("[data-testid=player-where]").textContent, /^2 \/ 2/);
  el.querySelector("[data-testid=player-back]").click();
  assert.match(el.querySelector("[data-testid=conversation]").textContent, /build it/);
  assert.doesNotMatch(el.querySelector("[data-testid=conversation]").textContent, /done/);
  // The thread it plays is the player's to step: no word of opening it elsewhere.
  assert.ok(el.querySelector("[data-testid=reopen-hint]").hidden);
  stop();
});

test("a shared page answers a file's preview as it was at the point asked", () => {
  const el = document.createElement("div");
  const first = { op: "preview", thread: "t2", path: "/a.txt", digest: "d1", text: "draft one" };
  const now = { op: "preview", thread: "t2", path: "/a.txt", digest: "d2", text: "draft two" };
  const pageFiles = { t2: { "/a.txt": now, "/a.txt@d1": first, "/a.txt@d2": now } };
  const trace = aTrace();
  trace.files.t2 = [{ path: "/a.txt", size: 5, digest: "d1" }];
  const stop = renderOffline(el, { view: "inspector", trace, selected: "t2" }, pageFiles);
  try {
    el.querySelector("[data-testid=file][data-path='/a.txt']").click();
    const shown = el.querySelector("[data-testid=file-browser]").textContent;
    assert.match(shown, /draft one/);
    assert.doesNotMatch(shown, /draft two/);
  } finally {
    stop();
  }
});
