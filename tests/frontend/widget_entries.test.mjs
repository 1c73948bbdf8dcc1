// Each widget class's entry module: anywidget's `render` mounts its view on the element.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, fakeModel, view } from "./setup.mjs";

for (const [name, state, testid] of [
  ["inspector_view.js", { trace: aTrace() }, "subagent-tree"],
  ["thread_list_view.js", { rows: [] }, "thread-list"],
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
