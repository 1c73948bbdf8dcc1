// What every view does around its drawing: the kernel's replies and patches, redraws,
// what a person opened kept across a redraw of the output, and clean-up.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, fakeModel, view } from "./setup.mjs";

const mounting = await view("mount.js");
const { mount } = mounting;

test("a reply, a patch and a change each redraw; ready is sent once on screen", () => {
  const model = fakeModel({ trace: aTrace(), key: "view-1" });
  const seen = [];
  const stop = mount(model, document.createElement("div"), (_m, _el, local) => seen.push(local), {
    ready: true,
  });
  assert.deepEqual(model.sent, [{ op: "ready" }]);
  const [local] = seen;
  const say = (msg) => {
    for (const f of model.handlers["msg:custom"]) f(msg);
  };
  say({ op: "result", call: "call_1", text: "the full result" });
  assert.equal(local.fetched.call_1, "the full result");
  say({ op: "patch", run: { status: "failed" } });
  assert.equal(model.get("trace").run.status, "failed");
  for (const f of model.handlers["change:trace"]) f();
  assert.equal(seen.length, 4);
  stop();
});

test("a refused decision's error lands in its bar and gives the buttons back", () => {
  const model = fakeModel({ trace: aTrace() });
  let local;
  const stop = mount(model, document.createElement("div"), (_m, _el, l) => {
    local = l;
  });
  let given = 0;
  const error = document.createElement("div");
  local.decisions.set("t1 call_1", { el: error, error, sent: () => given++ });
  for (const f of model.handlers["msg:custom"])
    f({ op: "decide_error", thread: "t1", call: "call_1", error: "unknown field" });
  assert.equal(error.textContent, "unknown field");
  assert.equal(given, 1);
  stop();
});

test("the element says it was drawn only once the view drew on it", () => {
  const el = document.createElement("div");
  const stop = mount(fakeModel({}), el, (_m, target) => {
    assert.equal(target.dataset.threadlabDrawn, undefined); // not yet while drawing
    target.textContent = "drawn";
  });
  assert.equal(el.dataset.threadlabDrawn, "");
  stop();
});

test("what a person opened survives a new mount of the same view", () => {
  const draws = [];
  const draw = (_m, _el, l) => draws.push(l);
  const stop1 = mount(fakeModel({ key: "view-2" }), document.createElement("div"), draw);
  draws[0].memory.open.add("call_1");
  const stop2 = mount(fakeModel({ key: "view-2" }), document.createElement("div"), draw);
  assert.ok(draws[1].memory.open.has("call_1"));
  const stop3 = mount(fakeModel({ key: "other" }), document.createElement("div"), draw);
  assert.ok(!draws[2].memory.open.has("call_1"));
  for (const stop of [stop1, stop2, stop3]) stop();
});

test("a redraw keeps the keyboard on the control it was on, found by what it is about", () => {
  const model = fakeModel({ key: "focus" });
  const el = document.createElement("div");
  document.body.append(el);
  let shown = ["t1", "t2"];
  const { focusedControl } = mounting;
  const stop = mount(model, el, (_m, into) => {
    into.replaceChildren(
      ...shown.map((id) => {
        const node = document.createElement("button");
        node.setAttribute("data-testid", "tree-node");
        node.setAttribute("data-thread", id);
        return node;
      }),
      Object.assign(document.createElement("button"), { textContent: "approve" }),
    );
  });
  el.querySelector('[data-thread="t2"]').focus();
  assert.equal(focusedControl(el), '[data-testid="tree-node"][data-thread="t2"]');
  shown = ["t0", "t1", "t2"]; // a redraw: new nodes, another order
  for (const redraw of model.handlers["change:trace"]) redraw();
  assert.equal(document.activeElement?.getAttribute("data-thread"), "t2");
  // A card's summary is found by its card.
  const card = document.createElement("details");
  card.setAttribute("data-testid", "tool-card");
  card.setAttribute("data-call", 'a/"b"');
  const summary = document.createElement("summary");
  card.append(summary);
  el.append(card);
  summary.focus();
  assert.equal(focusedControl(el), '[data-testid="tool-card"][data-call="a/\\"b\\""] > summary');
  assert.equal(el.querySelector(focusedControl(el)), summary);
  // A control about nothing in particular is not looked for: the first of its kind may be
  // another's.
  el.querySelector("button:not([data-thread])").focus();
  assert.equal(focusedControl(el), null);
  stop();
  el.remove();
});

test("a control a click takes away hands the keyboard to where the click leads, once drawn", () => {
  const model = fakeModel({ key: "focus-after" });
  const el = document.createElement("div");
  const elsewhere = document.createElement("input");
  document.body.append(el, elsewhere);
  let shown = "inspector";
  /** @type {any} */
  let kept = null;
  const stop = mount(model, el, (_m, into, local) => {
    kept = local;
    if (shown === "inspector") {
      const play = document.createElement("button");
      play.setAttribute("data-testid", "step-through");
      play.onclick = () => {
        local.focusAfter = '[data-testid="player"]';
      };
      into.replaceChildren(play);
    } else if (shown === "player") {
      const player = document.createElement("div");
      player.setAttribute("data-testid", "player");
      player.tabIndex = 0;
      into.replaceChildren(player);
    } else into.replaceChildren(document.createElement("p")); // the player's points not here yet
  });
  const redraw = () => {
    for (const draw of model.handlers["change:trace"]) draw();
  };
  const play = el.querySelector('[data-testid="step-through"]');
  play.focus();
  play.click();
  shown = "loading";
  redraw(); // the control went, where it leads is not drawn yet: the wish is kept
  assert.equal(document.activeElement, document.body);
  shown = "player";
  redraw();
  assert.equal(document.activeElement?.getAttribute("data-testid"), "player");
  assert.equal(kept.focusAfter, null); // granted once
  // A person who went elsewhere keeps the focus where they put it.
  shown = "inspector";
  redraw();
  el.querySelector('[data-testid="step-through"]').click();
  elsewhere.focus();
  shown = "player";
  redraw();
  assert.equal(document.activeElement, elsewhere);
  assert.equal(kept.focusAfter, null);
  stop();
  el.remove();
  elsewhere.remove();
});

test("a call id a model chose finds its own control, whatever it holds", () => {
  const el = document.createElement("div");
  document.body.append(el);
  const ids = ['a"b', "a\\b", "a\nb", "a\rb", "a\fb", "a\0b", "a]b", "a b", "c", "a\nb2"];
  for (const id of ids) {
    const node = document.createElement("button");
    node.setAttribute("data-testid", "tree-node");
    node.setAttribute("data-call", id);
    el.append(node);
  }
  const { focusedControl } = mounting;
  for (const node of el.querySelectorAll("button")) {
    node.focus();
    const selector = focusedControl(el);
    const found = [...el.querySelectorAll(selector)];
    // CSS reads a NUL as U+FFFD: such an id finds no control, never another's.
    const expected = node.dataset.call.includes("\0") ? [] : [node];
    assert.deepEqual(found, expected, JSON.stringify(node.dataset.call));
  }
  el.remove();
});
