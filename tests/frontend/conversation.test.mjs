// A thread's conversation: messages, a card under each call, fork points on a finished run.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aCard, aTrace, fakeModel, local, textOf, view } from "./setup.mjs";

const { conversation } = await view("conversation.js");

test("messages in order, each call's card under the message that made it", () => {
  const parts = conversation(fakeModel(), aTrace(), "t1", local());
  const text = textOf(parts);
  assert.ok(text.indexOf("build it") < text.indexOf("write_file"));
  assert.ok(text.indexOf("write_file") < text.indexOf("done"));
  assert.equal(parts.filter((p) => p.querySelector?.("[data-testid=tool-card]")).length, 1);
  assert.ok(!/wrote 12 bytes.*wrote 12 bytes/s.test(text), "a tool message is its card, once");
});

test("a finished run offers fork points; a live one and a reopened one do not", () => {
  const forks = (model) =>
    conversation(model, aTrace(), "t1", local()).filter((p) =>
      p.classList?.contains("tl-fork-point"),
    );
  assert.equal(forks(fakeModel()).length, 2); // the user message and the call
  assert.equal(forks(fakeModel({ live: true })).length, 0);
  assert.equal(forks(fakeModel({ offline: true })).length, 0);
});

test("a call that waits gets its decision bar, except in a view with no kernel", () => {
  const trace = aTrace();
  trace.cards.call_1 = aCard({ status: "waiting", approval: { state: "asked", arguments: "{}" } });
  const bars = (model) =>
    conversation(model, trace, "t1", local()).filter(
      (p) => p.getAttribute?.("data-testid") === "decision-bar",
    );
  assert.equal(bars(fakeModel({ live: true })).length, 1);
  assert.equal(bars(fakeModel({ offline: true })).length, 0);
  // A thread opened from a list (the class view, the thread list) is shown to read.
  assert.equal(bars(fakeModel({ live: true, decides: false })).length, 0);
});

test("what streams shows: the text so far and a call no message lists yet", () => {
  const trace = aTrace();
  trace.drafts = { t1: "thinking ab" };
  trace.cards.call_2 = aCard({ id: "call_2", status: "streaming", name: "search" });
  const parts = conversation(fakeModel({ live: true }), trace, "t1", local());
  assert.match(textOf(parts), /thinking ab/);
  assert.match(textOf(parts), /search/);
});
