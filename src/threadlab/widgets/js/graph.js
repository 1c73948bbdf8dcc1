// @ts-check
// The definitions as a picture (`%threadlab graph`): the layout the kernel made, drawn in the
// theme's colours; a node clicked (or chosen with Enter) shows its definition beside it.
/** @import {Local, Model} from "./types.js" */
import { h } from "./dom.js";

const SVG = "http://www.w3.org/2000/svg";
const KINDS = new Set(["agent", "prompt", "tool", "mcp_server", "missing"]);
const KIND_WORDS = /** @type {Record<string, string>} */ ({
  agent: "agent",
  prompt: "prompt",
  tool: "function tool",
  mcp_server: "MCP server",
  missing: "not defined",
});
/** A path as the kernel lays one out: moves, curves and numbers, nothing else. */
const PATH = /^[MC0-9., -]+$/;

/**
 * @typedef {{id: string, kind: string, name: string, lines: string[], definition: string,
 *   x: number, y: number, width: number, height: number, drawn_name?: string,
 *   drawn_lines?: string[]}} GraphNode
 * @typedef {{source: string, target: string, label_lines: string[], dashed: boolean,
 *   path: string, label_x: number, label_y: number, label_anchor: string}} GraphEdge
 * @typedef {{nodes?: GraphNode[], edges?: GraphEdge[], width?: number, height?: number,
 *   target?: string | null}} Graph
 */

/**
 * An SVG element; every value an attribute (numbers as numbers), every text a text node.
 * @param {string} tag
 * @param {Record<string, string | number>} attrs
 * @param {...(Node | string)} children
 * @returns {SVGElement}
 */
function svg(tag, attrs, ...children) {
  const node = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  node.append(...children);
  return node;
}

/** @param {unknown} value */
const num = (value) => (Number.isFinite(Number(value)) ? Number(value) : 0);

/**
 * @param {GraphEdge} edge
 * @returns {SVGElement[]}
 */
function edgeOf(edge) {
  const path = PATH.test(String(edge.path)) ? String(edge.path) : "";
  const x = num(edge.label_x);
  const anchor = ["start", "middle", "end"].includes(edge.label_anchor)
    ? edge.label_anchor
    : "middle";
  const label = svg("text", {
    class: "tl-g-small",
    x,
    y: num(edge.label_y),
    "text-anchor": anchor,
  });
  (edge.label_lines || []).forEach((line, i) => {
    label.append(svg("tspan", { x, dy: i ? 13 : 0 }, String(line)));
  });
  return [
    svg("path", {
      d: path,
      class: edge.dashed ? "tl-g-edge tl-g-dashed" : "tl-g-edge",
      "marker-end": "url(#tl-g-arrow)",
    }),
    label,
  ];
}

/**
 * @param {GraphNode} node
 * @param {boolean} chosen
 * @param {(id: string) => void} choose
 * @returns {SVGElement}
 */
function nodeOf(node, chosen, choose) {
  const kind = KINDS.has(node.kind) ? node.kind : "missing";
  const x = num(node.x);
  const y = num(node.y);
  const group = svg(
    "g",
    {
      class: `tl-g-node tl-g-${kind}${chosen ? " tl-g-chosen" : ""}`,
      "data-node": String(node.id),
      "data-testid": "graph-node",
      tabindex: 0,
      role: "button",
      "aria-label": `${KIND_WORDS[kind]} ${node.name}`,
    },
    svg("rect", { x, y, width: num(node.width), height: num(node.height), rx: 5 }),
    // The name and lines as the kernel fitted them to the node (a graph saved before it did
    // has only the lines as written).
    svg("text", { x: x + 8, y: y + 17, class: "tl-g-name" }, String(node.drawn_name || node.name)),
    ...(node.drawn_lines || node.lines || []).map((line, i) =>
      svg("text", { x: x + 8, y: y + 32 + 15 * i, class: "tl-g-small" }, String(line)),
    ),
  );
  group.addEventListener("click", () => choose(String(node.id)));
  group.addEventListener("keydown", (/** @type {Event} */ e) => {
    if (/** @type {KeyboardEvent} */ (e).key === "Enter") choose(String(node.id));
  });
  return group;
}

/**
 * The graph and, beside it, the definition of the node chosen.
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Local} local
 */
export function graphView(model, el, local) {
  /** @type {Graph} */
  const graph = model.get("graph") || {};
  const nodes = graph.nodes || [];
  const chosen = nodes.find((n) => n.id === local.selected) || null;
  /** @param {string} id */
  const choose = (id) => {
    local.selected = id;
    local.memory.selected = id;
    local.redraw();
  };
  const width = num(graph.width);
  const height = num(graph.height);
  const picture = svg(
    "svg",
    {
      class: "tl-g",
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      role: "img",
      "aria-label": "definitions",
    },
    svg(
      "defs",
      {},
      svg(
        "marker",
        {
          id: "tl-g-arrow",
          viewBox: "0 0 10 10",
          refX: 10,
          refY: 5,
          markerWidth: 7,
          markerHeight: 7,
          orient: "auto-start-reverse",
        },
        svg("path", { d: "M0,0 L10,5 L0,10 z", class: "tl-g-head" }),
      ),
    ),
    ...(graph.edges || []).flatMap(edgeOf),
    ...nodes.map((n) => nodeOf(n, n === chosen, choose)),
  );
  const pane = h(
    "div",
    { class: "tl-g-definition", "data-testid": "graph-definition" },
    chosen
      ? [
          h("b", {}, chosen.name),
          ` · ${KIND_WORDS[KINDS.has(chosen.kind) ? chosen.kind : "missing"]}`,
          h("pre", {}, chosen.definition),
        ]
      : h("span", { class: "tl-meta" }, "click a definition to read it"),
  );
  el.replaceChildren(
    h(
      "div",
      { class: "tl-graph", "data-testid": "graph" },
      h("div", { class: "tl-g-picture" }, picture),
      pane,
    ),
  );
}
