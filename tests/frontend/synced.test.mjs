// The large values a kernel sends as JSON text, parsed once per text.
import assert from "node:assert/strict";
import { test } from "node:test";
import { view } from "./setup.mjs";

const { synced } = await view("synced.js");

/** A model holding `values`, counting its reads. */
function modelOf(/** @type {Record<string, unknown>} */ values) {
  return { get: (/** @type {string} */ name) => values[name], values };
}

test("a value sent as text is parsed once, and the same object comes back until new text", () => {
  const model = modelOf({ trace: '{"root":"thr_1","cards":{}}' });
  const first = synced(model, "trace");
  assert.equal(first.root, "thr_1");
  first.cards.c1 = { status: "running" }; // a patch merged in place stays
  assert.equal(synced(model, "trace"), first);
  assert.deepEqual(synced(model, "trace").cards.c1, { status: "running" });
  model.values.trace = '{"root":"thr_2"}';
  const second = synced(model, "trace");
  assert.notEqual(second, first);
  assert.equal(second.root, "thr_2");
});

test("a value that is no text (a saved output's data) is taken as it is", () => {
  const points = [{ kind: "message_created" }];
  const model = modelOf({ points, trace: undefined });
  assert.equal(synced(model, "points"), points);
  assert.equal(synced(model, "trace"), undefined);
});

test("two models keep their values apart", () => {
  const a = modelOf({ points: '[{"id":"a"}]' });
  const b = modelOf({ points: '[{"id":"b"}]' });
  assert.equal(synced(a, "points")[0].id, "a");
  assert.equal(synced(b, "points")[0].id, "b");
});
