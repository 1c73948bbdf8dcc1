// A call's arguments and result as a person reads them.
import assert from "node:assert/strict";
import { test } from "node:test";
import { textOf, view } from "./setup.mjs";

const { readableArgs, resultBox } = await view("values.js");

test("arguments read as name: value lines, a multi-line string as an indented block", () => {
  const parts = readableArgs('{"path": "a.txt", "n": 3, "body": "line 1\\nline 2"}');
  assert.equal(parts[0].textContent, "path: a.txt");
  assert.equal(parts[1].textContent, "n: 3");
  assert.equal(parts[2].textContent, "body: |\n  line 1\n  line 2");
});

test("arguments that are not a JSON object are shown as they came", () => {
  assert.deepEqual(readableArgs('{"path": "a.tx'), ['{"path": "a.tx']);
  assert.deepEqual(readableArgs("[1, 2]"), ["[1, 2]"]);
});

test("a JSON result is a tree, any other result text", () => {
  const tree = resultBox('{"rows": [1, 2], "ok": true}');
  assert.equal(tree.tagName, "DIV");
  assert.match(textOf(tree), /rows/);
  const plain = resultBox("<script>x</script>");
  assert.equal(plain.tagName, "PRE");
  assert.equal(plain.textContent, "<script>x</script>");
  assert.equal(plain.querySelector("script"), null);
});
