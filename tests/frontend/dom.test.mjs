// Building elements, capped boxes and copy buttons.
import assert from "node:assert/strict";
import { test } from "node:test";
import { view } from "./setup.mjs";

const { h, capped, copyButton } = await view("dom.js");

test("h sets classes, attributes and handlers, and appends text as text", () => {
  let clicked = 0;
  const el = h(
    "button",
    { class: "a b", "data-x": "1", onclick: () => clicked++ },
    "<b>no</b>",
    2,
    null,
    false,
    ["x"],
  );
  el.click();
  assert.equal(clicked, 1);
  assert.equal(el.className, "a b");
  assert.equal(el.getAttribute("data-x"), "1");
  assert.equal(el.textContent, "<b>no</b>2x");
  assert.equal(el.querySelector("b"), null); // text never becomes markup
});

test("a long value gets a show all toggle that lifts the cap, a short one none", () => {
  const box = h("pre", {}, "x");
  assert.deepEqual(capped(box, 10), [box]);
  const [same, toggle] = capped(box, 5000);
  assert.equal(same, box);
  toggle.click();
  assert.ok(box.classList.contains("tl-all"));
  assert.equal(toggle.textContent, "show less");
  toggle.click();
  assert.equal(toggle.textContent, "show all");
});

test("a copy button copies what it is given, and says so", async () => {
  let copied = null;
  // Defined, not assigned: Node has a navigator of its own, with a getter only.
  Object.defineProperty(globalThis, "navigator", {
    configurable: true,
    value: {
      clipboard: {
        writeText: async (t) => {
          copied = t;
        },
      },
    },
  });
  const button = copyButton(() => "the result");
  button.click();
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(copied, "the result");
  assert.equal(button.textContent, "copied");
});
