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
  assert.deepEqual(readableArgs("[1, 2]"), ["[1, 2]"]);
  assert.deepEqual(readableArgs("not json {"), ["not json {"]);
});

test("arguments still streaming read as lines too, as far as they have come", () => {
  const lines = (/** @type {string} */ text) =>
    readableArgs(text).map((p) => (typeof p === "string" ? p : p.textContent));
  assert.deepEqual(lines('{"path": "a.tx'), ["path: a.tx"]);
  assert.deepEqual(lines('{"path": "index.html", "content": "<html>\\n  <body>\\n  <h1'), [
    "path: index.html",
    "content: |\n  <html>\n    <body>\n    <h1",
  ]);
  assert.deepEqual(lines('{"path": "a", "cont'), ["path: a"]); // a key still arriving
  assert.deepEqual(lines('{"path": "a", "n":'), ["path: a"]);
  assert.deepEqual(lines('{"path": "a", "ok": tr'), ["path: a"]); // a literal cut short
  assert.deepEqual(lines('{"say": "a \\"quote'), ['say: a "quote']);
  assert.deepEqual(lines('{"say": "cut \\'), ["say: cut "]); // a dangling escape
  assert.deepEqual(lines('{"say": "\\u00e'), ["say: "]);
  assert.deepEqual(lines('{"rows": [1, 2'), ["rows: [2 items]0: 11: 2"]);
  assert.deepEqual(lines("{"), []);
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
