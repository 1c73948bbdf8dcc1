// A tool call's card: kept per call and updated in place, so what a person opened stays open.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aCard, fakeModel, view, local as viewLocal } from "./setup.mjs";

const { card } = await view("card.js");

const local = () => viewLocal();

function call(status, result = null) {
  return {
    id: "c1",
    thread: "t1",
    name: "write_file",
    depth: 0,
    progress: "writing index.html",
    status,
    duration_ms: status === "running" ? null : 12,
    result,
    result_chars: result ? result.length : 0,
    args_chars: 20,
    args: '{"path": "/index.html"}',
    label: "",
    events: [],
    started_at: null,
    traceback: null,
    approval: null,
  };
}

const model = fakeModel();

test("a card keeps its element, and a person's open card stays open, across updates", () => {
  const l = local();
  const first = card(model, call("running"), {}, l);
  assert.equal(first.getAttribute("data-status"), "running");
  first.open = true;
  first.dispatchEvent(new Event("toggle"));
  const summary = first.querySelector("summary");
  const same = card(model, call("running"), {}, l);
  assert.equal(same, first); // nothing changed: not even rebuilt
  const done = card(model, call("success", "wrote 20 characters"), {}, l);
  assert.equal(done, first); // changed: the same element, updated in place
  assert.equal(done.open, true);
  assert.equal(done.querySelector("summary"), summary); // a click in flight still lands
  assert.equal(done.getAttribute("data-status"), "success");
  assert.match(done.textContent, /writing index\.html/);
});

test("a card a person has not opened stays closed when it updates", () => {
  const l = local();
  card(model, call("running"), {}, l);
  const done = card(model, call("error", "boom"), {}, l);
  assert.equal(done.open, false);
  assert.equal(done.className, "tl-card tl-error");
});

test("a card shows the arguments it ran with, and the proposal an edit replaced", () => {
  const edited = aCard({
    args: '{"path": "b.txt"}',
    proposed: '{"path": "a.txt"}',
    approval: { state: "approved", edited: true, arguments: '{"path": "b.txt"}', by: "view" },
  });
  const el = card(fakeModel(), edited, {}, local());
  assert.match(el.textContent, /b\.txt/);
  assert.match(el.textContent, /a\.txt/);
  assert.match(el.textContent, /approved with edited arguments/);
});

test("a finished call's folded arguments: shown whole once asked for", () => {
  const model = fakeModel();
  const state = local();
  const folded = aCard({
    status: "success",
    args: '{"content": "xxxx… (300 more characters)"}',
    args_folded: true,
  });
  const el = card(model, folded, {}, state);
  el.querySelector("[data-testid=load-arguments]").click();
  assert.deepEqual(model.sent, [{ op: "fetch_arguments", thread: "t1", call: "call_1" }]);
  state.fetchedArgs.call_1 = JSON.stringify({ content: "x".repeat(304) });
  const whole = card(model, folded, {}, state);
  assert.match(whole.querySelector("[data-testid=tool-args]").textContent, /x{304}/);
  assert.equal(whole.querySelector("[data-testid=load-arguments]"), null);
});

test("a call running at a past point of the player shows no clock ticking on to now", () => {
  const l = local();
  const then = card(model, { ...call("running"), past: true }, {}, l);
  assert.equal(then.querySelector(".tl-elapsed"), null);
  assert.match(then.querySelector("[data-testid=tool-meta]").textContent, /^running$/);
  const live = card(model, { ...call("running"), id: "c2" }, {}, l);
  assert.notEqual(live.querySelector(".tl-elapsed"), null);
});

test("a card told more than it keeps says how many earlier events it left out", () => {
  const told = aCard({
    events: [{ type: "tick", data: { n: 900 } }],
    events_dropped: 900,
  });
  const el = card(model, told, {}, local());
  const dropped = el.querySelector('[data-testid="tool-events-dropped"]');
  assert.equal(dropped?.textContent, "… 900 earlier events not kept");
  const none = card(model, aCard({ id: "c2", events: [{ type: "tick", data: 1 }] }), {}, local());
  assert.equal(none.querySelector('[data-testid="tool-events-dropped"]'), null);
});
