// The one script of every view (views.js): anywidget's `render` draws the view its model's
// `view` names (kinds.js's table; a thread's drawing is thread_view.js), and a shared page
// draws itself on load.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, fakeModel, view } from "./setup.mjs";

const { default: widget, drawSharedPage } = await view("views.js");
const { KINDS, kindOf } = await view("kinds.js");

const CASES = [
  ["inspector", { trace: aTrace() }, "subagent-tree"],
  ["threads", { rows: [] }, "thread-list"],
  ["class", { rows: [] }, "class-list"],
  ["eval", { rows: [], models: [], cases: [], finished: true }, "eval-table"],
  ["served", { url: "http://127.0.0.1:1/mcp", tools: [] }, "served-endpoint"],
  ["graph", { graph: { nodes: [], edges: [] } }, "graph"],
  [
    "player",
    { trace: aTrace(), points: [{ kind: "message_created", id: "m1", thread: "t1", label: "u" }] },
    "player",
  ],
];

for (const [kind, state, testid] of CASES) {
  test(`views.js renders a "${kind}" view and returns its clean-up`, () => {
    const el = document.createElement("div");
    const model = fakeModel({ view: kind, ...state });
    const stop = widget.render({ model, el });
    assert.ok(el.querySelector(`[data-testid=${testid}]`));
    assert.equal(typeof stop, "function");
    // Only the views that a kernel answers once on screen say they are ready.
    assert.equal(
      model.sent.some((m) => m.op === "ready"),
      Boolean(KINDS[kind].ready),
    );
    stop();
  });
}

test("every kind in the table is drawn by a case above", () => {
  assert.deepEqual(Object.keys(KINDS).sort(), CASES.map(([kind]) => kind).sort());
});

test("a kind this script does not know is drawn as a thread", () => {
  assert.equal(kindOf("from-a-later-version"), KINDS.inspector);
  assert.equal(kindOf("constructor"), KINDS.inspector); // not an object's own property
  const el = document.createElement("div");
  widget.render({ model: fakeModel({ view: "from-a-later-version", trace: aTrace() }), el })();
  assert.ok(el.querySelector("[data-testid=subagent-tree]"));
});

test("a shared page draws the view it holds, its previews from the page", () => {
  const el = document.createElement("main");
  el.id = "threadlab-view";
  const state = document.createElement("script");
  state.id = "threadlab-state";
  state.type = "application/json";
  state.textContent = JSON.stringify({ view: "inspector", trace: aTrace() });
  document.body.replaceChildren(el, state);
  const stop = drawSharedPage(document);
  assert.ok(el.querySelector("[data-testid=subagent-tree]"));
  stop();
  document.body.replaceChildren();
});
