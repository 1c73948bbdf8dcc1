// The player: a thread as of any point of its history, cut from the trace sent once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aTrace, fakeModel, local, view } from "./setup.mjs";

const { traceAt, playerView, narrated } = await view("player.js");

// aTrace's history, point by point: the lead asks, calls write_file (which writes a file and
// takes a decision), starts a child that writes a page; the lead answers; the run ends.
const points = [
  {
    kind: "message_created",
    id: "m1",
    thread: "t1",
    label: "user: build it",
    explain: "**The user's message.** \\“build it\\”",
  },
  { kind: "tool_call_started", id: "call_1", thread: "t1", label: "call of write_file" },
  { kind: "message_created", id: "m2", thread: "t1", label: "assistant calls write_file" },
  { kind: "approval_requested", id: "call_1", thread: "t1", label: "write_file waits" },
  { kind: "approval_decided", id: "call_1", thread: "t1", label: "approved" },
  { kind: "message_created", id: "m5", thread: "t2", label: "user: make the page" },
  { kind: "file_written", id: "/attachments/page.html", thread: "t2", label: "written", size: 100 },
  {
    kind: "file_written",
    id: "/attachments/page.html",
    thread: "t2",
    label: "written",
    size: 2048,
  },
  { kind: "run_finished", id: "run_c", thread: "t2", label: "run completed", status: "completed" },
  {
    kind: "tool_call_finished",
    id: "call_1",
    thread: "t1",
    label: "write_file success",
    status: "success",
  },
  { kind: "message_created", id: "m3", thread: "t1", label: "result of write_file" },
  { kind: "message_created", id: "m4", thread: "t1", label: "assistant: done" },
  { kind: "run_finished", id: "run_l", thread: "t1", label: "run completed", status: "completed" },
];

test("at the first point only the user's message is there, and the run is going", () => {
  const cut = traceAt(aTrace(), points, 0);
  assert.deepEqual(
    cut.messages.t1.map((m) => m.id),
    ["m1"],
  );
  assert.deepEqual(cut.messages.t2, []);
  assert.deepEqual(Object.keys(cut.cards), []);
  assert.deepEqual(
    cut.threads.map((t) => t.id),
    ["t1"],
  );
  assert.equal(cut.run.status, "running");
});

test("a call is running, then waits for its decision, then runs again, then has its result", () => {
  const trace = aTrace();
  trace.cards.call_1.approval = { state: "approved", by: "view" };
  assert.equal(traceAt(trace, points, 1).cards.call_1.status, "running");
  const waiting = traceAt(trace, points, 3).cards.call_1;
  assert.equal(waiting.status, "waiting");
  assert.equal(waiting.approval.state, "asked");
  assert.equal(waiting.result, null);
  assert.equal(traceAt(trace, points, 4).cards.call_1.status, "running");
  const done = traceAt(trace, points, 9).cards.call_1;
  assert.equal(done.status, "success");
  assert.equal(done.result, "wrote 12 bytes");
});

test("a child shows once it has a point, running until its run ended; files as they were", () => {
  const during = traceAt(aTrace(), points, 6);
  assert.deepEqual(
    during.threads.map((t) => [t.id, t.status]),
    [
      ["t1", "running"],
      ["t2", "running"],
    ],
  );
  assert.deepEqual(during.files, { t2: [{ path: "/attachments/page.html", size: 100 }] });
  const after = traceAt(aTrace(), points, 8);
  assert.equal(after.threads[1].status, "completed");
  assert.deepEqual(after.files.t2, [{ path: "/attachments/page.html", size: 2048 }]);
});

test("at the last point the trace is the whole one", () => {
  const trace = aTrace();
  const cut = traceAt(trace, points, points.length - 1);
  assert.deepEqual(cut.messages, trace.messages);
  assert.deepEqual(cut.run, trace.run);
  assert.deepEqual(
    cut.threads.map((t) => t.status),
    ["idle", "running"],
  );
});

function drawn(memory = local(), trace = aTrace()) {
  const el = document.createElement("div");
  const model = fakeModel({ trace, points });
  memory.redraw = () => playerView(model, el, memory);
  memory.redraw();
  return { el, memory };
}

test("the player opens at the end; back, forward and the arrow keys move one point", () => {
  const { el, memory } = drawn();
  const where = () => el.querySelector("[data-testid=player-where]").textContent;
  assert.equal(where(), "13 / 13 · run completed");
  el.querySelector("[data-testid=player-first]").click();
  assert.equal(where(), "1 / 13 · user: build it");
  assert.equal(el.querySelector(".tl-current").getAttribute("data-message"), "m1");
  el.querySelector("[data-testid=player-forward]").click();
  const player = el.querySelector("[data-testid=player]");
  player.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight" }));
  assert.equal(where(), "3 / 13 · assistant calls write_file");
  assert.equal(el.querySelector(".tl-current").getAttribute("data-call"), "call_1");
  player.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowLeft" }));
  assert.equal(memory.player.at, 1);
  const scrubber = el.querySelector("[data-testid=player-scrubber]");
  scrubber.value = "5";
  scrubber.dispatchEvent(new Event("input"));
  assert.equal(where(), "6 / 13 · user: make the page");
  assert.equal(memory.selected, "t2"); // the point's thread is the one shown
});

test("a call that waited for a decision then is shown waiting, with nothing to click", () => {
  const trace = aTrace();
  trace.cards.call_1.approval = { state: "approved", by: "view" };
  const { el } = drawn(local(), trace);
  const scrubber = el.querySelector("[data-testid=player-scrubber]");
  scrubber.value = "3";
  scrubber.dispatchEvent(new Event("input"));
  const card = el.querySelector("[data-testid=tool-card][data-call=call_1]");
  assert.equal(card.getAttribute("data-status"), "waiting");
  assert.equal(el.querySelectorAll("[data-testid=decision-bar], .tl-fork-point").length, 0);
});

test("explain shows the point's narration, its markup drawn as elements and text only", () => {
  const { el } = drawn();
  el.querySelector("[data-testid=player-first]").click();
  const toggle = el.querySelector("[data-testid=player-explain-toggle]");
  toggle.checked = true;
  toggle.dispatchEvent(new Event("change"));
  const box = el.querySelector("[data-testid=player-explain]");
  assert.equal(box.hidden, false);
  assert.equal(box.querySelector("b").textContent, "The user's message.");
  const nodes = narrated(
    "<img src=x onerror=alert(1)> [guide](javascript:alert(2)) [ok](../docs/guides/tools.md) `x`",
  );
  const holder = document.createElement("div");
  holder.append(...nodes);
  assert.equal(holder.querySelectorAll("img").length, 0);
  assert.deepEqual(
    [...holder.querySelectorAll("a")].map((a) => a.getAttribute("href")),
    ["../docs/guides/tools.md"],
  );
  assert.match(holder.textContent, /<img src=x onerror=alert\(1\)> guide\) ok x/);
});
