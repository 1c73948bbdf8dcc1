// A file's preview: text as text, HTML and Markdown in a sandboxed frame, images as images.
import assert from "node:assert/strict";
import { test } from "node:test";
import { local, view } from "./setup.mjs";

const { previewPane } = await view("preview.js");

const preview = (path, changes = {}) => ({ op: "preview", thread: "t1", path, ...changes });

test("HTML is rendered in a frame with no scripts and no network", () => {
  const pane = previewPane(preview("/a.html", { text: "<script>alert(1)</script>" }), local());
  const frame = pane.querySelector("iframe");
  assert.equal(frame.getAttribute("sandbox"), "");
  assert.match(frame.srcdoc, /Content-Security-Policy/);
  assert.match(frame.srcdoc, /default-src 'none'/);
});

test("a source toggle shows the page's text instead, and redraws", () => {
  let redrawn = 0;
  const l = local({ redraw: () => redrawn++ });
  const pane = previewPane(preview("/a.html", { text: "<b>hi</b>" }), l);
  pane.querySelector("[data-testid=preview-source]").click();
  assert.equal(l.previewSource, true);
  assert.equal(redrawn, 1);
  const source = previewPane(preview("/a.html", { text: "<b>hi</b>" }), l);
  assert.equal(source.querySelector("[data-testid=file-preview]").textContent, "<b>hi</b>");
});

test("an error, an image, and a truncated download read as they are", () => {
  assert.equal(previewPane(preview("/x", { error: "too big" }), local()).textContent, "too big");
  const image = previewPane(preview("/p.png", { image: "data:image/png;base64,AA" }), local());
  assert.equal(image.querySelector("img").getAttribute("src"), "data:image/png;base64,AA");
  const cut = previewPane(preview("/big.txt", { text: "x", truncated: true }), local());
  assert.match(cut.querySelector("[data-testid=file-download]").textContent, /first 256 KB/);
});
