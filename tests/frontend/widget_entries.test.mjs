// Each widget class's entry module: anywidget's `render` mounts its view on the element.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, fakeModel, view } from "./setup.mjs";

for (const [name, state, testid] of [
  ["inspector_view.js", { trace: aTrace() }, "subagent-tree"],
  ["thread_list_view.js", { rows: [] }, "thread-list"],
  ["class_view_view.js", { rows: [] }, "class-list"],
  ["eval_view.js", { rows: [], models: [], cases: [], finished: true }, "eval-table"],
  ["served_view.js", { url: "http://127.0.0.1:1/mcp", tools: [] }, "served-endpoint"],
  ["graph_view.js", { graph: { nodes: [], edges: [] } }, "graph"],
  [
    "player_view.js",
    { trace: aTrace(), points: [{ kind: "message_created", id: "m1", thread: "t1", label: "u" }] },
    "player",
  ],
]) {
  test(`${name} renders its view and returns its clean-up`, async () => {
    const { default: widget } = await view(name);
    const el = document.createElement("div");
    const stop = widget.render({ model: fakeModel(state), el });
    assert.ok(el.querySelector(`[data-testid=${testid}]`));
    assert.equal(typeof stop, "function");
    stop();
  });
}

test("share_page.js draws the view the page holds, its previews from the page", async () => {
  const el = document.createElement("main");
  el.id = "threadlab-view";
  const state = document.createElement("script");
  state.id = "threadlab-state";
  state.type = "application/json";
  state.textContent = JSON.stringify({ view: "inspector", trace: aTrace() });
  document.body.replaceChildren(el, state);
  const { stop } = await view("share_page.js");
  assert.ok(el.querySelector("[data-testid=subagent-tree]"));
  stop();
});
