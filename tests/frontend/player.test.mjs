// The player: a thread as of any point of its history, cut from the trace sent once.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aCard, aTrace, fakeModel, local, view } from "./setup.mjs";

const { traceAt, playerView, narrated, forkPoint, played, SHOWN_MESSAGES } =
  await view("player.js");
const { drawThread } = await view("thread_view.js");

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

function drawn(memory = local(), trace = aTrace(), shown = points, state = {}) {
  const el = document.createElement("div");
  const model = fakeModel({ trace, points: shown, ...state });
  memory.redraw = () => playerView(model, el, memory);
  memory.redraw();
  return { el, memory, model };
}

/** Move the scrubber of `el` to point `at`. */
function scrub(el, at) {
  const scrubber = el.querySelector("[data-testid=player-scrubber]");
  scrubber.value = String(at);
  scrubber.dispatchEvent(new Event("input"));
}

/** Tick the checkbox `id` of `el`. */
function tick(el, id) {
  const box = el.querySelector(`[data-testid=${id}]`);
  box.checked = true;
  box.dispatchEvent(new Event("change"));
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

test("the narration follows the points sent as text: on its way, then told in place", () => {
  const untold = points.map(({ explain, ...point }) => point);
  const memory = local();
  const { el, model } = drawn(memory, aTrace(), JSON.stringify(untold), { narrating: true });
  el.querySelector("[data-testid=player-first]").click();
  const toggle = el.querySelector("[data-testid=player-explain-toggle]");
  toggle.checked = true;
  toggle.dispatchEvent(new Event("change"));
  const box = el.querySelector("[data-testid=player-explain]");
  assert.match(box.textContent, /the narration is being written/);
  model.set("told", JSON.stringify({ 0: { explain: points[0].explain } }));
  model.set("narrating", false);
  memory.redraw();
  assert.equal(box.querySelector("b").textContent, "The user's message.");
  const whole = played(model);
  assert.equal(whole, played(model)); // merged once for the same text
  assert.equal(whole.length, untold.length);
  assert.deepEqual(whole[1], untold[1]);
  assert.equal(whole[0].explain, points[0].explain);
});

// The model steps of the history, as the kernel marks them for predicting: the choices it
// had (the tools it was offered, or a text answer) and what it chose.
const predicted = points.map((p) =>
  p.id === "m2"
    ? { ...p, offered: ["write_file", "(a text answer)"], answer: ["write_file"] }
    : p.id === "m4"
      ? { ...p, offered: ["write_file", "(a text answer)"], answer: ["(a text answer)"] }
      : p,
);

test("predicting: a step forward onto a model step asks first, then reveals and scores", () => {
  const { el, memory } = drawn(local(), aTrace(), predicted);
  const where = () => el.querySelector("[data-testid=player-where]").textContent;
  tick(el, "player-predict-toggle");
  scrub(el, 1);
  el.querySelector("[data-testid=player-forward]").click();
  assert.equal(memory.player.at, 1); // not moved: the question comes first
  const choices = [...el.querySelectorAll("[data-testid=player-choice]")];
  assert.deepEqual(
    choices.map((b) => b.textContent),
    ["write_file", "(a text answer)"],
  );
  choices[0].click();
  assert.equal(where(), "3 / 13 · assistant calls write_file");
  assert.match(el.querySelector("[data-testid=player-reveal]").textContent, /✓ right: write_file/);
  assert.equal(el.querySelector("[data-testid=player-score]").textContent, "score 1 / 1");
  // Stepping back and forward again over a step predicted already asks nothing.
  el.querySelector("[data-testid=player-back]").click();
  el.querySelector("[data-testid=player-forward]").click();
  assert.equal(memory.player.at, 2);
  // A wrong guess: the reveal says what the model chose; the score counts it.
  scrub(el, 10);
  el.querySelector("[data-testid=player-forward]").click();
  el.querySelectorAll("[data-testid=player-choice]")[0].click();
  assert.match(
    el.querySelector("[data-testid=player-reveal]").textContent,
    /✗ you said write_file; it chose \(a text answer\)/,
  );
  assert.equal(el.querySelector("[data-testid=player-score]").textContent, "score 1 / 2");
  // The scrubber jumps anywhere without asking.
  scrub(el, 1);
  scrub(el, 2);
  assert.equal(el.querySelectorAll("[data-testid=player-choice]").length, 0);
});

test("fork from here cuts at the thread's last top-level message at or before the point", () => {
  assert.equal(forkPoint(points, 0, "t1"), "m1");
  assert.equal(forkPoint(points, 6, "t1"), "m2"); // a child's point: the lead's last message
  assert.equal(forkPoint(points, 12, "t1"), "m4");
  assert.equal(forkPoint(points.slice(1), 0, "t1"), null);
  const { el, model } = drawn();
  scrub(el, 6);
  const fork = el.querySelector("[data-testid=player-fork]");
  assert.equal(fork.disabled, false);
  fork.click();
  assert.deepEqual(model.sent.at(-1), { op: "fork", thread: "t1", at: "m2" });
  // Not while the thread runs, and not without a kernel.
  const running = drawn(local(), aTrace(), points, { live: true }).el;
  assert.equal(running.querySelector("[data-testid=player-fork]").disabled, true);
  const offline = drawn(local(), aTrace(), points, { offline: true }).el;
  assert.equal(offline.querySelector("[data-testid=player-fork]").hidden, true);
});

test("at the head the player follows a growing history; scrubbed back it stays", () => {
  const { el, memory, model } = drawn(local(), aTrace(), points.slice(0, 5));
  const where = () => el.querySelector("[data-testid=player-where]").textContent;
  assert.equal(where(), "5 / 5 · approved");
  model.set("points", points.slice(0, 8));
  memory.redraw();
  assert.equal(where(), "8 / 8 · written");
  scrub(el, 2);
  model.set("points", points);
  memory.redraw();
  assert.equal(where(), "3 / 13 · assistant calls write_file");
  assert.equal(el.querySelector("[data-testid=player-scrubber]").max, "12");
});

test("a damaged row is a point shown as such; the rest of the history plays", () => {
  const damaged = [...points];
  damaged[3] = {
    kind: "approval_requested",
    id: "",
    thread: "t1",
    label: "damaged row",
    damaged: true,
  };
  const { el } = drawn(local(), aTrace(), damaged);
  assert.equal(el.querySelector("[data-testid=player-note]").textContent, "");
  scrub(el, 3);
  assert.match(el.querySelector("[data-testid=player-note]").textContent, /cannot be read/);
  scrub(el, 4);
  assert.equal(el.querySelector("[data-testid=player-note]").textContent, "");
});

test("a thread view steps through its history in place and comes back", () => {
  const el = document.createElement("div");
  const model = fakeModel({ trace: aTrace(), points: [] });
  const memory = local();
  memory.redraw = () => drawThread(model, el, memory);
  memory.redraw();
  const button = el.querySelector("[data-testid=step-through]");
  assert.equal(button.textContent, "▶ step through");
  button.click();
  assert.deepEqual(model.sent.at(-1), { op: "play", thread: "t1", playing: true });
  assert.equal(el.querySelector("[data-testid=step-through]").textContent, "loading the history…");
  model.set("points", points); // the kernel's answer
  memory.redraw();
  assert.ok(el.querySelector("[data-testid=player]"));
  scrub(el, 0); // the user's message, drawn the same now as then
  assert.ok(el.querySelector(".tl-current")); // the point's step, marked
  el.querySelector("[data-testid=player-close]").click();
  assert.deepEqual(model.sent.at(-1), { op: "play", thread: "t1", playing: false });
  assert.equal(el.querySelector("[data-testid=player]"), null);
  assert.equal(el.querySelector(".tl-current"), null); // no mark left on the thread as it is
  assert.equal(el.querySelector("[data-testid=step-through]").textContent, "▶ step through");
  // Not in a view drawn with no kernel: nothing would send the points.
  const offline = document.createElement("div");
  drawThread(fakeModel({ trace: aTrace(), offline: true }), offline, local());
  assert.equal(offline.querySelector("[data-testid=step-through]").hidden, true);
});

test("a long conversation is drawn from its last messages up to the point, the rest counted", () => {
  const trace = aTrace();
  const long = [];
  const steps = [];
  for (let i = 0; i < 100; i++) {
    const call = `call_${i}`;
    long.push({ ...trace.messages.t1[1], id: `a${i}`, calls: [call] });
    long.push({ ...trace.messages.t1[2], id: `r${i}`, calls: [] });
    trace.cards[call] = { ...aCard(), id: call, message: `a${i}` };
    steps.push(
      { kind: "tool_call_started", id: call, thread: "t1", label: "call" },
      { kind: "message_created", id: `a${i}`, thread: "t1", label: "assistant" },
      { kind: "tool_call_finished", id: call, thread: "t1", label: "done", status: "success" },
      { kind: "message_created", id: `r${i}`, thread: "t1", label: "result" },
    );
  }
  trace.messages.t1 = long;
  const cut = traceAt(trace, steps, 4 * 80 - 1); // after the 80th call's result
  assert.equal(cut.messages.t1.length, SHOWN_MESSAGES);
  assert.equal(cut.messages.t1.at(-1).id, "r79");
  assert.equal(cut.earlier.t1, 160 - SHOWN_MESSAGES);
  // Only the cards of the messages drawn (none of the hidden ones trails at the end).
  assert.deepEqual(Object.keys(cut.cards).sort(), cut.messages.t1.flatMap((m) => m.calls).sort());
  // The timeline counts every model step and call by then, though it draws the last ones.
  const { el } = drawn(local(), trace, steps);
  el.querySelector("[data-testid=timeline]").open = true; // its lanes drawn at the next step
  scrub(el, 4 * 80 - 1);
  assert.match(el.querySelector("[data-testid=earlier]").textContent, /^… 100 earlier messages/);
  const head = el.querySelector("[data-testid=timeline] summary").textContent;
  assert.match(head, / 79 model steps \(.*\) · 80 calls \(/);
  assert.equal(el.querySelectorAll("[data-testid=timeline-call]").length, SHOWN_MESSAGES / 2);
  scrub(el, 3);
  assert.equal(el.querySelector("[data-testid=earlier]"), null);
});

test("a call running at a past point stands still there; at the last point it is live", () => {
  const past = traceAt(aTrace(), points, 1).cards.call_1;
  assert.equal(past.status, "running");
  assert.equal(past.past, true);
  const live = traceAt(aTrace(), points, points.length - 1).cards.call_1;
  assert.notEqual(live.past, true);
});

/** A player drawn on the page (focus and scrolling need one): removed by `done()`. */
function onPage(shown = points, state = {}) {
  const player = drawn(local(), aTrace(), shown, state);
  document.body.append(player.el);
  return { ...player, done: () => player.el.remove() };
}

/** A ← or → as the browser sends it to `target`; returns the event. */
function press(target, key) {
  const event = new KeyboardEvent("keydown", { key, bubbles: true, cancelable: true });
  target.dispatchEvent(event);
  return event;
}

test("the arrow keys step the player whichever of its parts has the focus, and stop there", () => {
  const { el, memory, done } = onPage();
  const heard = [];
  const notebook = (/** @type {KeyboardEvent} */ e) => heard.push(e.key);
  document.body.addEventListener("keydown", notebook);
  try {
    scrub(el, 8);
    for (const id of ["player-back", "player-scrubber", "player-forward", "player-play"]) {
      const part = el.querySelector(`[data-testid=${id}]`);
      part.focus();
      const event = press(part, "ArrowLeft");
      assert.equal(event.defaultPrevented, true, id); // a scrubber does not move a second time
    }
    assert.equal(memory.player.at, 4);
    press(el.querySelector("[data-testid=player-forward]"), "ArrowRight");
    press(el.querySelector(".tl-current"), "ArrowRight"); // the thread drawn below
    assert.equal(memory.player.at, 6);
    press(el.querySelector("[data-testid=player-forward]"), "Home"); // the first point
    assert.equal(memory.player.at, 0);
    press(el.querySelector("[data-testid=player-forward]"), "End"); // the last point
    assert.equal(memory.player.at > 6, true);
    press(el.querySelector("[data-testid=player-forward]"), "Home");
    for (const _ of [1, 2, 3, 4, 5, 6])
      press(el.querySelector("[data-testid=player-forward]"), "ArrowRight");
    assert.equal(memory.player.at, 6);
    assert.deepEqual(heard, []); // the notebook around it never hears them
    // Keys the player has no use for go on, as do the arrows with a modifier.
    press(el.querySelector("[data-testid=player-back]"), "ArrowDown");
    const shifted = new KeyboardEvent("keydown", {
      key: "ArrowLeft",
      shiftKey: true,
      bubbles: true,
    });
    el.querySelector("[data-testid=player-back]").dispatchEvent(shifted);
    assert.deepEqual(heard, ["ArrowDown", "ArrowLeft"]);
    assert.equal(memory.player.at, 6);
  } finally {
    document.body.removeEventListener("keydown", notebook);
    done();
  }
});

test("the focus stays in the player when the part that had it is drawn anew", () => {
  const { el, done } = onPage();
  try {
    const node = el.querySelector("[data-testid=tree-node]");
    node.focus();
    node.click(); // selects (and redraws the tree)
    assert.equal(node.isConnected, false);
    assert.equal(document.activeElement, el.querySelector("[data-testid=player]"));
  } finally {
    done();
  }
});

test("a step scrolls the step it is at into view, as little as it takes; opening does not", () => {
  const scrolled = [];
  const before = Object.getOwnPropertyDescriptor(HTMLElement.prototype, "scrollIntoView");
  HTMLElement.prototype.scrollIntoView = function (options) {
    scrolled.push([this, options]);
  };
  const { el, memory, done } = onPage();
  try {
    memory.redraw(); // drawn again (a patch, the narration): nobody stepped
    assert.deepEqual(scrolled, []);
    el.querySelector("[data-testid=player-back]").click();
    assert.deepEqual(scrolled, [[el.querySelector(".tl-current"), { block: "nearest" }]]);
    press(el.querySelector("[data-testid=player-back]"), "ArrowLeft"); // a tool's result
    assert.equal(scrolled.length, 1); // it has no line of its own: nothing to scroll to
    scrub(el, 0);
    assert.equal(scrolled.length, 2);
    assert.equal(scrolled[1][0].getAttribute("data-message"), "m1");
    memory.redraw();
    assert.equal(scrolled.length, 2);
  } finally {
    if (before) Object.defineProperty(HTMLElement.prototype, "scrollIntoView", before);
    else delete HTMLElement.prototype.scrollIntoView;
    done();
  }
});

// The variables the kernel put on the points: each thread's on its first point and where
// they changed (a secret only ever as its placeholder).
const withEnv = points.map((p, i) =>
  i === 0
    ? { ...p, env: { KEY: "[secret:KEY]", TOPIC: "tea" } }
    : i === 5
      ? { ...p, env: { DRAFT: "v1" } }
      : i === 9
        ? { ...p, env: { KEY: "[secret:KEY]", TOPIC: "oolong" } }
        : p,
);

test("the player shows the variables of the thread at the point, then its parents'", () => {
  const { el } = drawn(local(), aTrace(), withEnv);
  const shown = () =>
    [...el.querySelectorAll("[data-testid=player-variable]")].map(
      (v) => `${v.getAttribute("data-thread")} ${v.textContent}`,
    );
  scrub(el, 1);
  assert.deepEqual(shown(), ["t1 KEY = [secret:KEY]", "t1 TOPIC = tea"]);
  assert.ok(el.querySelector("[data-name=KEY] .tl-secret"));
  scrub(el, 6); // the child's point: its own, then the lead's
  assert.deepEqual(shown(), ["t2 DRAFT = v1", "t1 KEY = [secret:KEY]", "t1 TOPIC = tea"]);
  assert.match(el.querySelector("[data-testid=player-env]").textContent, /^variables then/);
  scrub(el, 12);
  assert.deepEqual(shown(), ["t1 KEY = [secret:KEY]", "t1 TOPIC = oolong"]);
  // A thread above with none is left out; with none anywhere, that is said once.
  const bare = withEnv.map((p, i) => (i === 0 || i === 9 ? { ...p, env: {} } : p));
  const child = drawn(local(), aTrace(), bare).el;
  scrub(child, 6);
  assert.deepEqual(
    [...child.querySelectorAll(".tl-env-group")].map((g) => g.getAttribute("data-thread")),
    ["t2"],
  );
  scrub(child, 1);
  assert.equal(
    child.querySelector("[data-testid=player-env]").textContent,
    "no variables at this point",
  );
  // Before the kernel has told them: on their way; a history from before, told without
  // them: no line at all.
  const told = drawn(local(), aTrace(), points, { narrating: true }).el;
  assert.match(told.querySelector("[data-testid=player-env]").textContent, /on their way/);
  const older = drawn(local(), aTrace(), points).el;
  assert.equal(older.querySelector("[data-testid=player-env]").textContent, "");
});

test("a node clicked in the tree shows its thread as it was, until the next step", () => {
  const { el, memory } = drawn(local(), aTrace(), withEnv);
  scrub(el, 6); // the child's point: the child is shown
  assert.equal(memory.selected, "t2");
  el.querySelector('[data-testid=tree-node][data-thread="t1"]').click();
  assert.equal(memory.selected, "t1");
  assert.match(el.querySelector("[data-testid=conversation]").textContent, /build it/);
  assert.equal(el.querySelector("[data-testid=player-variable]").getAttribute("data-thread"), "t1");
  el.querySelector("[data-testid=player-forward]").click();
  assert.equal(memory.selected, "t2"); // the step's own thread again
});

test("a run that paused and was resumed reads as running again from its next point", () => {
  const paused = [
    points[0],
    { kind: "run_finished", id: "run_1", thread: "t1", label: "run waiting", status: "waiting" },
    points[1],
    points[2],
  ];
  const cut = (at) => traceAt(aTrace(), paused, at);
  assert.deepEqual([cut(1).run.status, cut(1).threads[0].status], ["waiting", "waiting"]);
  assert.deepEqual([cut(2).run.status, cut(2).threads[0].status], ["running", "running"]);
});

test("after a pick with the mouse the keys still step the player", () => {
  const { el, memory, done } = onPage(predicted);
  try {
    tick(el, "player-predict-toggle");
    scrub(el, 1);
    el.querySelector("[data-testid=player-forward]").click();
    const choice = el.querySelector("[data-testid=player-choice]");
    choice.focus();
    choice.click(); // drawn away with the question
    assert.equal(el.contains(document.activeElement), true);
    press(document.activeElement, "ArrowRight");
    assert.equal(memory.player.at, 3);
  } finally {
    done();
  }
});

test("a file's content at a point is named by its digest, where the point knows it", () => {
  const named = points.map((p) =>
    p.kind === "file_written" ? { ...p, digest: p.size === 100 ? "d-first" : "d-second" } : p,
  );
  assert.deepEqual(traceAt(aTrace(), named, 6).files.t2, [
    { path: "/attachments/page.html", size: 100, digest: "d-first" },
  ]);
  assert.deepEqual(traceAt(aTrace(), named, 8).files.t2, [
    { path: "/attachments/page.html", size: 2048, digest: "d-second" },
  ]);
});

test("before a decision edited them, a past point shows the model's proposed arguments", () => {
  const trace = aTrace();
  trace.cards.call_1 = aCard({
    args: '{"path": "other.html"}',
    label: "other.html",
    proposed: '{"path": "index.html"}',
    proposed_label: "index.html",
    approval: { state: "approved", edited: true, arguments: '{"path": "other.html"}' },
  });
  const asked = traceAt(trace, points, 3).cards.call_1;
  assert.deepEqual(
    [asked.status, asked.args, asked.label, asked.proposed, asked.approval],
    ["waiting", '{"path": "index.html"}', "index.html", null, { state: "asked", arguments: null }],
  );
  const decided = traceAt(trace, points, 4).cards.call_1; // it runs with the edit
  assert.deepEqual(
    [decided.args, decided.proposed],
    ['{"path": "other.html"}', '{"path": "index.html"}'],
  );
});

test("a branch's player keeps its origin in the tree: the root hangs under it", () => {
  const trace = aTrace();
  trace.threads = [
    {
      id: "t0",
      parent: null,
      agent: "",
      name: "forked from lead",
      status: "origin",
      progress: null,
      relation: "origin",
    },
    { ...trace.threads[0], parent: "t0" },
    trace.threads[1],
  ];
  const cut = traceAt(trace, points, 2);
  assert.deepEqual(
    cut.threads.map((t) => [t.id, t.status]),
    [
      ["t0", "origin"],
      ["t1", "running"],
    ],
  );
  const model = fakeModel({ trace: cut });
  const el = document.createElement("div");
  drawThread(model, el, local());
  assert.equal(el.querySelectorAll("[data-testid=tree-node]").length, 2);
});
