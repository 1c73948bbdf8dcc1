// @ts-check
// Arguments and results as a person reads them: JSON as a foldable tree.
import { h } from "./dom.js";

/**
 * Parsed JSON when `text` is a JSON object or array; undefined for anything else.
 * @param {string} text
 * @returns {object | undefined}
 */
function jsonObject(text) {
  if (!/^\s*[[{]/.test(text)) return undefined;
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The object the start of a JSON object says so far, while its text still streams in: an open
 * string ends where the text does, a key not yet given its value is left out, and what is
 * open is closed. Undefined when the text is no object's beginning.
 * @param {string} text
 * @returns {object | undefined}
 */
function objectSoFar(text) {
  if (!/^\s*\{/.test(text)) return undefined;
  /** @type {string[]} */
  const closers = [];
  let inString = false;
  let escaped = false;
  for (const ch of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === "\\") escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") closers.push("}");
    else if (ch === "[") closers.push("]");
    else if (ch === "}" || ch === "]") closers.pop();
  }
  let head = text;
  if (inString) {
    // a cut escape (`\`, `\u00`) is dropped with the string closed after it
    head = `${head.replace(escaped ? /\\$/ : /\\u[0-9a-fA-F]{0,3}$/, "")}"`;
  }
  const end = closers.reverse().join("");
  const tries = [
    head,
    head.replace(/[\s,]*$/, ""), // a separator after the last value
    head.replace(/,?\s*"(?:[^"\\]|\\.)*"\s*:?\s*$/, ""), // a key without its value yet
    head.replace(/,?\s*"(?:[^"\\]|\\.)*"\s*:\s*[^"{}[\],]*$/, ""), // a value cut short
  ];
  for (const tried of tries) {
    try {
      const value = JSON.parse(tried + end);
      if (value && typeof value === "object" && !Array.isArray(value)) return value;
    } catch {
      // the next way of reading it
    }
  }
  return undefined;
}

/** Children of one JSON node drawn at a time (a 200-row list opens its first rows). */
const JSON_ROWS = 50;

/**
 * A JSON value as a tree: an object or array is a `<details>` that says its size and opens
 * to its entries (the first level open); anything else is one line.
 * @param {unknown} value
 * @param {string | null} key
 * @param {number} depth
 * @returns {HTMLElement}
 */
function jsonTree(value, key, depth = 0) {
  const label = key === null ? null : h("span", { class: "tl-json-key" }, `${key}: `);
  if (!value || typeof value !== "object")
    return h("div", { class: "tl-json-leaf" }, label, JSON.stringify(value));
  const entries = Array.isArray(value)
    ? value.map((item, i) => [String(i), item])
    : Object.entries(value);
  const size = Array.isArray(value) ? `[${entries.length} items]` : `{${entries.length} keys}`;
  const node = h(
    "details",
    { class: "tl-json", "data-testid": "json-node" },
    h("summary", {}, label, h("span", { class: "tl-meta" }, size)),
  );
  /** @param {number} upTo */
  const fill = (upTo) => {
    const rows = entries.slice(0, upTo).map(([k, item]) => jsonTree(item, k, depth + 1));
    const rest = entries.length - upTo;
    const more =
      rest > 0
        ? h(
            "button",
            { class: "tl-more", onclick: () => fill(upTo + JSON_ROWS * 4) },
            `${rest} more`,
          )
        : null;
    node.replaceChildren(
      node.firstChild || "",
      h("div", { class: "tl-json-children" }, rows, more),
    );
  };
  fill(JSON_ROWS);
  /** @type {HTMLDetailsElement} */ (node).open = depth === 0;
  return node;
}

/**
 * A call's arguments to read: `name: value` per line, a multi-line string as an indented
 * block with its line breaks, a nested value as a JSON tree — while they stream in too.
 * @param {string} text the arguments as JSON
 * @returns {Array<HTMLElement | string>}
 */
export function readableArgs(text) {
  const value = jsonObject(text) ?? objectSoFar(text);
  if (!value || Array.isArray(value)) return [text];
  return Object.entries(value).map(([key, item]) => {
    if (item && typeof item === "object") return jsonTree(item, key);
    if (typeof item !== "string") return h("div", {}, `${key}: ${JSON.stringify(item)}`);
    if (!item.includes("\n")) return h("div", {}, `${key}: ${item}`);
    const block = item
      .split("\n")
      .map((line) => `  ${line}`)
      .join("\n");
    return h("div", {}, `${key}: |\n${block}`);
  });
}

/**
 * A result: a JSON object or array as a tree, anything else as text.
 * @param {string} result
 */
export function resultBox(result) {
  const value = jsonObject(result);
  return value
    ? h("div", { class: "tl-result", "data-testid": "tool-result" }, jsonTree(value, null))
    : h("pre", { class: "tl-result", "data-testid": "tool-result" }, result);
}
