// The definitions as a picture: the kernel's layout drawn, a node's definition on a click.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeModel, local, view } from "./setup.mjs";

const { graphView } = await view("graph.js");

const graph = () => ({
  width: 1000,
  height: 200,
  nodes: [
    {
      id: "agent:studio",
      kind: "agent",
      name: "studio",
      lines: ["agent · ai_human"],
      definition: "agent studio (ai_human)\nside A: prompt lead",
      x: 180,
      y: 16,
      width: 200,
      height: 45,
    },
    {
      id: "prompt:lead",
      kind: "prompt",
      name: "lead",
      lines: ["prompt · model offline", "KEY · secret"],
      definition: "prompt lead\nsystem prompt:\nYou lead.",
      x: 460,
      y: 16,
      width: 200,
      height: 60,
    },
  ],
  edges: [
    {
      source: "agent:studio",
      target: "prompt:lead",
      label_lines: ["side A"],
      dashed: false,
      path: "M380,38 C420,38 420,46 460,46",
      label_x: 454,
      label_y: 41,
      label_anchor: "end",
    },
  ],
});

function drawn(state, memory = local()) {
  const el = document.createElement("div");
  const model = fakeModel(state);
  memory.redraw = () => graphView(model, el, memory);
  memory.redraw();
  return el;
}

test("each node is drawn with its name and lines, each edge with its label", () => {
  const el = drawn({ graph: graph() });
  const nodes = [...el.querySelectorAll("[data-testid=graph-node]")];
  assert.deepEqual(
    nodes.map((n) => n.getAttribute("data-node")),
    ["agent:studio", "prompt:lead"],
  );
  assert.deepEqual(
    [...nodes[1].querySelectorAll("text")].map((t) => t.textContent),
    ["lead", "prompt · model offline", "KEY · secret"],
  );
  assert.ok(nodes[0].getAttribute("class").includes("tl-g-agent"));
  assert.equal(
    el.querySelector("path.tl-g-edge").getAttribute("d"),
    "M380,38 C420,38 420,46 460,46",
  );
  assert.match(
    el.querySelector("[data-testid=graph-definition]").textContent,
    /click a definition/,
  );
});

test("a click, or Enter, shows the node's definition, and it stays chosen across redraws", () => {
  const memory = local();
  const el = drawn({ graph: graph() }, memory);
  el.querySelectorAll("[data-testid=graph-node]")[1].dispatchEvent(new Event("click"));
  const pane = el.querySelector("[data-testid=graph-definition]");
  assert.equal(pane.querySelector("pre").textContent, "prompt lead\nsystem prompt:\nYou lead.");
  assert.match(pane.textContent, /^lead · prompt/);
  memory.redraw();
  assert.ok(
    el.querySelector("[data-node='prompt:lead']").getAttribute("class").includes("tl-g-chosen"),
  );
  const studio = el.querySelector("[data-node='agent:studio']");
  studio.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter" }));
  assert.match(el.querySelector("[data-testid=graph-definition] pre").textContent, /^agent studio/);
});

test("a saved state that carries markup or a script draws it as text, and nothing else", () => {
  const hostile = graph();
  hostile.nodes[0].name = "<img src=x onerror=alert(1)>";
  hostile.nodes[0].kind = "<script>";
  hostile.nodes[0].definition = "<script>alert(2)</script>";
  hostile.edges[0].path = "M0,0 javascript:alert(3)";
  hostile.edges[0].label_lines = ["<b>side</b>"];
  hostile.edges[0].label_anchor = "</text>";
  const el = drawn({ graph: hostile });
  el.querySelector("[data-testid=graph-node]").dispatchEvent(new Event("click"));
  assert.equal(el.querySelectorAll("img, script, svg b").length, 0);
  assert.equal(el.querySelector("tspan").textContent, "<b>side</b>");
  assert.equal(
    el.querySelector("[data-testid=graph-node] text").textContent,
    "<img src=x onerror=alert(1)>",
  );
  assert.ok(
    el.querySelector("[data-testid=graph-node]").getAttribute("class").includes("tl-g-missing"),
  );
  assert.equal(el.querySelector("path.tl-g-edge").getAttribute("d"), "");
  assert.equal(el.querySelector("text[text-anchor]").getAttribute("text-anchor"), "middle");
  assert.equal(
    el.querySelector("[data-testid=graph-definition] pre").textContent,
    "<script>alert(2)</script>",
  );
});

test("an empty or missing graph draws an empty picture", () => {
  const el = drawn({});
  assert.equal(el.querySelectorAll("[data-testid=graph-node]").length, 0);
  assert.ok(el.querySelector("svg"));
});
