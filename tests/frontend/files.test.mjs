// The file browser: a thread's files; a click asks the kernel for a preview.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, fakeModel, local, textOf, view } from "./setup.mjs";

const { files } = await view("files.js");

test("a thread's files are listed with their sizes, and a click asks for a preview", () => {
  const model = fakeModel();
  const parts = files(model, aTrace(), "t2", local());
  assert.match(textOf(parts), /files \(1\)/);
  assert.match(textOf(parts), /2,048 B/);
  const button = parts[1].querySelector("[data-testid=file]");
  button.click();
  assert.deepEqual(model.sent, [{ op: "preview", thread: "t2", path: "/attachments/page.html" }]);
});

test("a thread without files says so, and a preview of another thread is not shown", () => {
  const l = local({ preview: { op: "preview", thread: "t2", path: "/a.txt", text: "x" } });
  const parts = files(fakeModel(), aTrace(), "t1", l);
  assert.match(textOf(parts), /no files/);
  assert.equal(parts[2], null);
});

test("a path may fold after each of its slashes, and reads whole on hover", () => {
  const parts = files(fakeModel(), aTrace(), "t2", local());
  const button = parts[1].querySelector("[data-testid=file]");
  assert.equal(button.textContent, "/attachments/page.html");
  assert.equal(button.getAttribute("title"), "/attachments/page.html");
  const folds = [...button.childNodes].map((n) => (n.nodeName === "WBR" ? "|" : n.textContent));
  assert.deepEqual(folds, ["/", "|", "attachments/", "|", "page.html"]);
});

test("a file listed with its digest is previewed as it was then; moved on, asked again", () => {
  const trace = aTrace();
  trace.files.t2 = [{ path: "/attachments/page.html", size: 100, digest: "d-first" }];
  const model = fakeModel();
  const parts = files(model, trace, "t2", local());
  parts[1].querySelector("[data-testid=file]").click();
  const asked = { op: "preview", thread: "t2", path: "/attachments/page.html" };
  assert.deepEqual(model.sent, [{ ...asked, digest: "d-first" }]);
  // The preview of the first content is shown; the player moves to the second.
  const shown = { ...asked, digest: "d-first", text: "first", size: 5 };
  trace.files.t2 = [{ path: "/attachments/page.html", size: 200, digest: "d-second" }];
  files(model, trace, "t2", local({ preview: shown }));
  assert.deepEqual(model.sent.at(-1), { ...asked, digest: "d-second" });
});
