// @ts-check
// Building elements, and the boxes every view uses: capped text, copy buttons.

/**
 * Build an element: `class`, `on<event>` handlers and other attributes, then children.
 * @param {string} tag
 * @param {Record<string, any>} [attrs]
 * @param {...(Node | string | number | null | undefined | false | Array<any>)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * Make `parent`'s children `nodes`, leaving in place those already where they belong: a
 * frame that is taken out of the page and put back loads its page again, losing what it
 * held (where the browser can move a node keeping its state, `moveBefore`, it is used).
 * @param {Element} parent
 * @param {Node[]} nodes
 */
export function keepChildren(parent, nodes) {
  const move = /** @type {any} */ (parent).moveBefore;
  nodes.forEach((node, i) => {
    const at = parent.childNodes[i] ?? null;
    if (at === node) return;
    if (move && node.parentNode === parent) move.call(parent, node, at);
    else parent.insertBefore(node, at);
  });
  while (parent.childNodes.length > nodes.length) parent.lastChild?.remove();
}

/** Past this many characters a value's box is capped, with "show all" to lift the cap. */
const CAPPED_CHARS = 800;

/**
 * A box for a long value: capped in height, with a "show all" toggle when it is long.
 * @param {HTMLElement} box
 * @param {number} chars how long the value is
 * @returns {HTMLElement[]}
 */
export function capped(box, chars) {
  if (chars <= CAPPED_CHARS) return [box];
  const toggle = h(
    "button",
    {
      class: "tl-more",
      "data-testid": "show-all",
      onclick: () => {
        const all = box.classList.toggle("tl-all");
        toggle.textContent = all ? "show less" : "show all";
      },
    },
    "show all",
  );
  return [box, toggle];
}

/**
 * A small "copy" button for the text `what()` gives (the arguments as JSON, the result).
 * @param {() => string} what
 */
export function copyButton(what) {
  const button = /** @type {HTMLButtonElement} */ (
    h("button", {
      class: "tl-copy",
      "data-testid": "copy",
      title: "copy to the clipboard",
      onclick: (/** @type {Event} */ e) => {
        e.preventDefault();
        navigator.clipboard?.writeText(what()).then(
          () => {
            button.textContent = "copied";
          },
          () => {
            button.textContent = "copy failed";
          },
        );
      },
    })
  );
  button.textContent = "copy";
  return button;
}

/**
 * A selector for the control of kind `testid` about `name`'s `value`. The values are call and
 * thread ids a model may choose: each is escaped as a CSS string (quotes, backslashes, line
 * breaks and NUL), so no id breaks the selector or reaches another control.
 * @param {string} testid
 * @param {Record<string, string>} [about]
 */
export function controlOf(testid, about = {}) {
  const parts = Object.entries(about).map(([name, value]) => `[${name}="${cssString(value)}"]`);
  return `[data-testid="${testid}"]${parts.join("")}`;
}

/**
 * `value` as the inside of a double-quoted CSS string.
 * @param {string} value
 */
function cssString(value) {
  return value.replace(/["\\]|[\n\r\f\0]/g, (c) =>
    c === '"' || c === "\\"
      ? `\\${c}`
      : `\\${(c === "\0" ? 0xfffd : c.charCodeAt(0)).toString(16)} `,
  );
}
