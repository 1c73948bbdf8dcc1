// The instructor's view: one row a member, their grade where the view grades, and "open".
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, fakeModel, local, view } from "./setup.mjs";

const { classView } = await view("class_view.js");

const row = (member, changes = {}) => ({
  member,
  thread: `thr_${member}`,
  threads: 1,
  status: "completed",
  calls: 2,
  where: "answered",
  score: null,
  max_score: null,
  feedback: "",
  ...changes,
});

test("a row a member; no grade columns when nothing is graded", () => {
  const el = document.createElement("div");
  const rows = [row("ann"), row("dee", { thread: null, status: "no thread", calls: 0 })];
  classView(fakeModel({ rows, exercise: "site", live: true }), el, local());
  const shown = [...el.querySelectorAll("[data-testid=class-row]")];
  assert.deepEqual(
    shown.map((r) => r.getAttribute("data-member")),
    ["ann", "dee"],
  );
  assert.equal(
    el.querySelector("[data-testid=class-heading]").textContent,
    "2 members · exercise site · updates while they run",
  );
  assert.equal(el.querySelectorAll("[data-testid=class-grade]").length, 0);
  assert.equal(shown[1].querySelector("[data-testid=open-member]"), null); // nothing to open
});

test("a grade and the first failing check; open asks for the member's thread", () => {
  const el = document.createElement("div");
  const model = fakeModel({
    rows: [row("bob", { score: 1, max_score: 3, feedback: "write was never called" })],
  });
  classView(model, el, local());
  assert.equal(el.querySelector("[data-testid=class-grade]").textContent, "1 / 3");
  assert.match(el.textContent, /write was never called/);
  el.querySelector("[data-testid=open-member]").click();
  assert.deepEqual(model.sent, [{ op: "open", thread: "thr_bob" }]);
});

test("a member's text is text: markup in it stays inert", () => {
  const el = document.createElement("div");
  const hostile = '<img src=x onerror="alert(1)">';
  classView(fakeModel({ rows: [row("eve", { where: hostile, feedback: hostile })] }), el, local());
  assert.equal(el.querySelectorAll("img").length, 0);
  assert.match(el.textContent, /<img src=x/);
});

test("without a kernel, open is offered but disabled", () => {
  const el = document.createElement("div");
  classView(fakeModel({ rows: [row("ann")], offline: true }), el, local());
  assert.equal(el.querySelector("[data-testid=open-member]").disabled, true);
});

test("checks given: the grade columns show, with why a row has no grade", () => {
  const el = document.createElement("div");
  const rows = [row("ann", { feedback: "not graded: the check called(wrte) names tool 'wrte'" })];
  classView(fakeModel({ rows, graded: true }), el, local());
  assert.equal(el.querySelectorAll("[data-testid=class-grade]").length, 1);
  assert.match(el.textContent, /not graded: the check called\(wrte\)/);
});

test("an exercise no member has a thread of says so, with those there are", () => {
  const el = document.createElement("div");
  classView(fakeModel({ rows: [], exercise: "stie", exercises: ["site", "warmup"] }), el, local());
  assert.equal(
    el.querySelector("[data-testid=class-none]").textContent,
    "no member has a thread of stie (the members' threads are of: site, warmup)",
  );
});

test("an opened member's thread is named, and takes the focus once", () => {
  const el = document.createElement("div");
  document.body.append(el);
  const mine = local();
  const model = fakeModel({ rows: [row("ann", { thread: "t1" })], opened: aTrace() });
  try {
    classView(model, el, mine);
    const title = el.querySelector("[data-testid=class-opened]");
    assert.equal(title.textContent, "ann's thread");
    assert.equal(document.activeElement, title);
    el.querySelector("[data-testid=open-member]").focus();
    classView(model, el, mine); // a refresh: the focus is left where the person put it
    assert.notEqual(document.activeElement?.getAttribute("data-testid"), "class-opened");
  } finally {
    el.remove();
  }
});
