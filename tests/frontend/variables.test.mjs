// The variables at a point: each thread's, from the points that carry them where they
// changed, the shown thread's first and then its parents'.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, fakeModel, view } from "./setup.mjs";

const { envAt, variablesOf, variablesLine } = await view("variables.js");

// The lead's first point, the child's first point, and the lead's again where TOPIC changed.
const points = [
  {
    kind: "message_created",
    id: "m1",
    thread: "t1",
    label: "user: build it",
    env: { KEY: "[secret:KEY]", TOPIC: "tea" },
  },
  {
    kind: "message_created",
    id: "m5",
    thread: "t2",
    label: "user: make the page",
    env: { DRAFT: "v1" },
  },
  { kind: "tool_call_finished", id: "call_1", thread: "t1", label: "write_file success" },
  {
    kind: "message_created",
    id: "m3",
    thread: "t1",
    label: "result of write_file",
    env: { KEY: "[secret:KEY]", TOPIC: "oolong" },
  },
];

test("each thread's variables at a point are those of its latest point that carries them", () => {
  assert.deepEqual(envAt(points, 0), { t1: { KEY: "[secret:KEY]", TOPIC: "tea" } });
  assert.deepEqual(envAt(points, 2), {
    t1: { KEY: "[secret:KEY]", TOPIC: "tea" },
    t2: { DRAFT: "v1" },
  });
  assert.equal(envAt(points, 3).t1.TOPIC, "oolong");
  assert.equal(envAt(points, 99).t1.TOPIC, "oolong");
});

test("a thread's variables come first, then each thread's above it, under its name", () => {
  const groups = variablesOf(envAt(points, 2), aTrace(), "t2");
  assert.deepEqual(
    groups.map((g) => [g.name, g.values]),
    [
      ["builder-1", [["DRAFT", "v1"]]],
      [
        "lead",
        [
          ["KEY", "[secret:KEY]"],
          ["TOPIC", "tea"],
        ],
      ],
    ],
  );
  assert.deepEqual(variablesOf(envAt(points, 0), aTrace(), "t2"), []); // not made yet
});

test("a secret reads as its placeholder, and a long value is cut, whole in its tooltip", () => {
  const long = "x".repeat(500);
  const told = [{ ...points[0], env: { KEY: "[secret:KEY]", NOTES: long } }];
  const holder = document.createElement("div");
  holder.append(...variablesLine(fakeModel(), told, 0, aTrace(), "t1"));
  assert.ok(holder.querySelector("[data-name=KEY] .tl-secret"));
  const notes = holder.querySelector("[data-name=NOTES] .tl-value");
  assert.equal(notes.textContent, `${"x".repeat(120)}…`);
  assert.equal(notes.title, long);
});
