// @ts-check
// The player (`tl.player(thread)`, `%threadlab play ID`): a thread's history, its subagents'
// included, stepped back and forth. The kernel sent the whole trace and the ordered points of
// the history once (each thread's variables on the points where they changed); the thread as
// of any point is cut from them here, and drawn by the inspector, so scrubbing asks nothing
// of the kernel.
/** @import {Card, Local, Model, Trace, TraceThread} from "./types.js" */
import { controlOf, h } from "./dom.js";
import { inspector } from "./inspector.js";
import { revealed } from "./pause.js";
import { synced } from "./synced.js";
import { variablesLine } from "./variables.js";

/**
 * @typedef {{kind: string, id: string, thread: string, depth?: number,
 *   label: string, size?: number, deleted?: boolean, digest?: string, status?: string,
 *   explain?: string, damaged?: boolean, offered?: string[], answer?: string[],
 *   env?: Record<string, string>}} Point
 * @typedef {{at: number, count: number, explain: boolean, pace: number, timer: any,
 *   ui: PlayerUi | null, predict: boolean, asking: number | null,
 *   guesses: Map<number, string>, root: string, list: Point[], stepped: boolean,
 *   shown: number | null, selectedAt: number | null}} PlayerState
 * @typedef {{root: HTMLElement, slider: HTMLInputElement, where: HTMLElement,
 *   narration: HTMLElement, play: HTMLButtonElement, stage: HTMLElement,
 *   note: HTMLElement, quiz: HTMLElement, score: HTMLElement, fork: HTMLButtonElement,
 *   forkError: HTMLElement, env: HTMLElement}} PlayerUi
 */

/** The keys that step the player, and by how much (Home and End: to the first and last point). */
const STEP_KEYS = /** @type {Record<string, number>} */ ({
  ArrowLeft: -1,
  ArrowRight: 1,
  Home: -Infinity,
  End: Infinity,
});

/** How many of a thread's last messages (up to the point) the player draws. */
export const SHOWN_MESSAGES = 60;

/**
 * `trace` as it was at point `at` of `points`: the messages stored by then, each call as it
 * stood (queued, running, waiting for a decision, or finished with its result), the threads
 * created by then with their status then, their files then, and the run's status then.
 * @param {Trace} trace the whole history's trace
 * @param {Point[]} points
 * @param {number} at
 * @returns {Trace}
 */
export function traceAt(trace, points, at) {
  const named = new Set(points.filter((p) => p.kind === "message_created").map((p) => p.id));
  const stored = new Set();
  /** @type {Map<string, string>} */
  const calls = new Map(); // call id -> its state then
  /** @type {Map<string, string>} */
  const runs = new Map(); // thread -> how its last run then ended
  const seen = new Set();
  const decided = new Set(); // calls a decision was made on by then
  /** @type {Record<string, Map<string, {size: number, digest?: string}>>} */
  const files = {};
  const last = Math.min(at, points.length - 1);
  for (let i = 0; i <= last; i++) {
    const p = points[i];
    seen.add(p.thread);
    // Anything a thread does after its run ended (a resumed run's steps) is a run going on.
    if (p.kind !== "run_finished") runs.delete(p.thread);
    if (p.kind === "message_created") stored.add(p.id);
    else if (p.kind === "tool_call_started" && !calls.has(p.id)) calls.set(p.id, "running");
    else if (p.kind === "tool_call_finished") calls.set(p.id, "finished");
    else if (p.kind === "approval_requested") calls.set(p.id, "waiting");
    else if (p.kind === "approval_decided") {
      calls.set(p.id, "running");
      decided.add(p.id);
    } else if (p.kind === "run_finished" && !p.depth) runs.set(p.thread, p.status || "completed");
    else if (p.kind === "file_written") {
      files[p.thread] = files[p.thread] || new Map();
      if (p.deleted) files[p.thread].delete(p.id);
      else files[p.thread].set(p.id, { size: p.size || 0, digest: p.digest });
    }
  }
  const whole = last >= points.length - 1;
  /** @type {Trace["messages"]} */
  const messages = {};
  /** @type {Record<string, Card>} */
  const cards = {};
  /** @type {Record<string, number>} */
  const earlier = {};
  const hidden = new Set();
  /** @type {Trace["messages"]} */
  const counted = {}; // every message then: the timeline counts what is not drawn too
  for (const [thread, list] of Object.entries(trace.messages || {})) {
    // A message no point names (a store from before points) is always there.
    const then = list.filter((m) => stored.has(m.id) || !named.has(m.id));
    counted[thread] = then;
    // A long conversation shows its last steps: the point is at its end, and a page of
    // thousands of cards takes the browser longer to lay out than a step should.
    const cut = Math.max(0, then.length - SHOWN_MESSAGES);
    for (const m of then.slice(0, cut)) for (const id of m.calls) hidden.add(id);
    if (cut) earlier[thread] = cut;
    messages[thread] = then.slice(cut);
    for (const m of messages[thread])
      for (const id of m.calls) if (!calls.has(id)) calls.set(id, "queued");
  }
  /** @type {Record<string, Card>} */
  const finished = {};
  for (const [id, c] of Object.entries(trace.cards || {})) {
    const state = calls.get(id);
    if (state === "finished") finished[id] = c;
    if (!state || hidden.has(id)) continue;
    if (state === "finished") cards[id] = c;
    else
      cards[id] = {
        ...c,
        status: state,
        // At a past point the call stood still: no clock ticks on from then to now.
        past: !whole,
        result: null,
        result_chars: 0,
        duration_ms: null,
        traceback: null,
        approval: state === "waiting" && c.approval ? { state: "asked", arguments: null } : null,
        // Before a decision edited them, the arguments were the model's proposal.
        ...(c.proposed != null && !decided.has(id)
          ? { args: c.proposed, args_folded: false, label: c.proposed_label ?? "", proposed: null }
          : {}),
      };
  }
  /** @type {TraceThread[]} */
  const threads = trace.threads
    // A branch's origin stays: the root hangs under it in the tree.
    .filter((t) => t.id === trace.root || t.relation || seen.has(t.id))
    .map((t) =>
      t.relation ? t : { ...t, progress: null, status: whole ? t.status : statusThen(runs, t) },
    );
  return {
    ...trace,
    threads,
    messages,
    cards,
    drafts: {},
    files: Object.fromEntries(
      Object.entries(files).map(([t, listed]) => [
        t,
        [...listed]
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .map(([path, { size, digest }]) => (digest ? { path, size, digest } : { path, size })),
      ]),
    ),
    run: whole ? trace.run : { ...trace.run, status: runs.get(trace.root) || "running" },
    earlier,
    uncut: Object.keys(earlier).length ? { messages: counted, cards: finished } : undefined,
  };
}

/**
 * @param {Map<string, string>} runs
 * @param {TraceThread} t
 */
function statusThen(runs, t) {
  return runs.get(t.id) || "running";
}

/**
 * A narration paragraph (the kernel's Markdown: bold, code, links to the guides, backslash
 * escapes) as elements: its text is only ever text.
 * @param {string} text
 * @returns {Node[]}
 */
export function narrated(text) {
  /** @type {Node[]} */
  const out = [];
  const pattern = /\*\*(.+?)\*\*|`([^`]*)`|\[([^\]]*)\]\(([^)\s]*)\)|\\(.)|([^*`[\\]+|[*`[\\])/gs;
  for (const m of text.matchAll(pattern)) {
    if (m[1] !== undefined) out.push(h("b", {}, unescaped(m[1])));
    else if (m[2] !== undefined) out.push(h("code", {}, m[2]));
    else if (m[3] !== undefined) {
      const safe = /^(https?:\/\/|\.{0,2}\/)[^\s]*$/.test(m[4]) && !/^\/\//.test(m[4]);
      out.push(
        safe
          ? h("a", { href: m[4], target: "_blank", rel: "noopener" }, unescaped(m[3]))
          : document.createTextNode(unescaped(m[3])),
      );
    } else out.push(document.createTextNode(m[5] ?? m[6] ?? ""));
  }
  return out;
}

/** @param {string} text */
function unescaped(text) {
  return text.replace(/\\(.)/g, "$1");
}

/**
 * The player's frame, made once: the controls keep their focus while the stage redraws.
 * @param {Model} model
 * @param {Local} local
 * @param {PlayerState} state
 * @returns {PlayerUi}
 */
function frame(model, local, state) {
  const stop = () => {
    clearInterval(state.timer);
    state.timer = null;
  };
  /** @param {number} to */
  const go = (to) => {
    const next = Math.max(0, Math.min(state.count - 1, to));
    state.stepped = true;
    // Predicting: one step forward onto a model step asks first what it will do.
    if (state.predict && next === state.at + 1 && asks(state, next)) {
      stop();
      state.asking = next;
    } else {
      state.asking = null;
      state.at = next;
    }
    local.redraw();
  };
  const slider = /** @type {HTMLInputElement} */ (
    h("input", {
      type: "range",
      min: 0,
      class: "tl-scrubber",
      "data-testid": "player-scrubber",
      "aria-label": "point of the history",
      oninput: (/** @type {Event} */ e) => {
        stop();
        state.asking = null;
        state.at = Number(/** @type {HTMLInputElement} */ (e.currentTarget).value);
        state.stepped = true;
        local.redraw();
      },
    })
  );
  const play = /** @type {HTMLButtonElement} */ (
    h(
      "button",
      {
        class: "tl-decide",
        "data-testid": "player-play",
        onclick: () => {
          if (state.timer) stop();
          else {
            if (state.at >= state.count - 1) state.at = 0;
            state.timer = setInterval(() => {
              if (state.at >= state.count - 1) {
                stop();
                local.redraw();
              } else go(state.at + 1);
            }, state.pace);
          }
          local.redraw();
        },
      },
      "play",
    )
  );
  const button = (
    /** @type {string} */ label,
    /** @type {string} */ id,
    /** @type {() => number} */ to,
  ) =>
    h(
      "button",
      {
        class: "tl-decide",
        "data-testid": id,
        title: id.replace("player-", ""),
        onclick: () => {
          stop();
          go(to());
        },
      },
      label,
    );
  const where = h("span", { class: "tl-meta tl-player-where", "data-testid": "player-where" });
  const narration = h("div", { class: "tl-narration", "data-testid": "player-explain" });
  const pace = h(
    "select",
    {
      "aria-label": "pace",
      onchange: (/** @type {Event} */ e) => {
        state.pace = Number(/** @type {HTMLSelectElement} */ (e.currentTarget).value);
      },
    },
    ...[2000, 1000, 500, 200].map((ms) =>
      h(
        "option",
        ms === state.pace ? { value: ms, selected: "" } : { value: ms },
        `${ms / 1000} s`,
      ),
    ),
  );
  /** @param {string} id @param {string} label @param {(on: boolean) => void} set */
  const toggle = (id, label, set) =>
    h(
      "label",
      {},
      h("input", {
        type: "checkbox",
        "data-testid": id,
        onchange: (/** @type {Event} */ e) => {
          set(/** @type {HTMLInputElement} */ (e.currentTarget).checked);
          local.redraw();
        },
      }),
      ` ${label}`,
    );
  const forkError = h("span", { class: "tl-error", "data-testid": "player-fork-error" });
  const fork = /** @type {HTMLButtonElement} */ (
    h(
      "button",
      {
        class: "tl-fork",
        "data-testid": "player-fork",
        onclick: () => {
          const at = forkPoint(state.list, state.at, state.root);
          if (at === null) return;
          forkError.textContent = "";
          local.forks.set(`${state.root} ${at}`, { el: fork, error: forkError });
          model.send({ op: "fork", thread: state.root, at });
        },
      },
      "fork from here",
    )
  );
  const back = h(
    "button",
    {
      class: "tl-decide",
      "data-testid": "player-close",
      title: "the thread as it is now",
      onclick: () => {
        stop();
        local.playing = false;
        local.focusAfter = controlOf("step-through");
        model.send({ op: "play", thread: state.root, playing: false });
        local.redraw();
      },
    },
    "■ back to the thread",
  );
  const quiz = h("div", { class: "tl-quiz", "data-testid": "player-quiz" });
  const score = h("span", { class: "tl-meta", "data-testid": "player-score" });
  const note = h("div", { class: "tl-error", "data-testid": "player-note" });
  const stage = h("div", { class: "tl-stage" });
  const env = h("div", { class: "tl-env", "data-testid": "player-env" });
  const root = h(
    "div",
    {
      class: "tl-player",
      "data-testid": "player",
      tabindex: 0,
      onkeydown: (/** @type {KeyboardEvent} */ e) => {
        const move = STEP_KEYS[e.key];
        if (move === undefined || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
        if (typing(e.target)) return;
        // Whichever part has the focus (a button, the scrubber, the pace, the thread below):
        // the keys step the player, and the notebook around it never hears them (in command
        // mode JupyterLab's ← goes to the heading above and folds it, → to the next cell).
        e.preventDefault();
        e.stopPropagation();
        stop();
        go(Number.isFinite(move) ? state.at + move : move < 0 ? 0 : state.count - 1);
      },
    },
    h(
      "div",
      { class: "tl-player-bar" },
      button("|◀", "player-first", () => 0),
      button("◀", "player-back", () => state.at - 1),
      play,
      button("▶", "player-forward", () => state.at + 1),
      button("▶|", "player-last", () => state.count - 1),
      slider,
      where,
      pace,
      toggle("player-explain-toggle", "explain", (on) => {
        state.explain = on;
      }),
      toggle("player-predict-toggle", "predict", (on) => {
        state.predict = on;
        state.asking = null;
      }),
      score,
    ),
    h("div", { class: "tl-player-bar" }, fork, forkError, model.get("shared") ? null : back),
    note,
    quiz,
    narration,
    env,
    stage,
  );
  return { root, slider, where, narration, play, stage, note, quiz, score, fork, forkError, env };
}

/**
 * Whether `target` takes the arrow keys to move within its own text.
 * @param {EventTarget | null} target
 */
function typing(target) {
  if (!(target instanceof HTMLElement)) return false;
  if (target.isContentEditable || target.tagName === "TEXTAREA") return true;
  const kind = target.tagName === "INPUT" && /** @type {HTMLInputElement} */ (target).type;
  return !!kind && !["range", "checkbox", "radio", "button", "submit"].includes(kind);
}

/**
 * Whether point `at` is a model step a student predicts: one whose choices are known, not
 * predicted yet.
 * @param {PlayerState} state
 * @param {number} at
 */
function asks(state, at) {
  return !!state.list[at]?.offered?.length && !state.guesses.has(at);
}

/**
 * Where "fork from here" cuts: the last top-level message of the thread at or before the
 * point (the branch holds the history up to and including it); null before the first.
 * @param {Point[]} points
 * @param {number} at
 * @param {string} root
 * @returns {string | null}
 */
export function forkPoint(points, at, root) {
  for (let i = Math.min(at, points.length - 1); i >= 0; i--) {
    const p = points[i];
    if (p.kind === "message_created" && p.thread === root && !p.depth && !p.damaged) return p.id;
  }
  return null;
}

/**
 * The question before a model step (its choices: the tools it was offered, or a text
 * answer), or at a predicted step what was said and what happened.
 * @param {PlayerState} state
 * @param {Point[]} points
 * @param {() => void} redraw
 * @returns {Node[]}
 */
function quizFor(state, points, redraw) {
  if (state.asking !== null) {
    const asked = state.asking;
    const point = points[asked];
    return [
      h("b", {}, "What does the model do next? "),
      ...(point.offered || []).map((choice) =>
        h(
          "button",
          {
            class: "tl-decide",
            "data-testid": "player-choice",
            onclick: (/** @type {MouseEvent} */ e) => {
              // The choice is drawn away: the focus goes back to the player, whose keys step.
              const player = /** @type {HTMLElement | null} */ (
                /** @type {HTMLElement} */ (e.currentTarget).closest("[data-testid=player]")
              );
              state.guesses.set(asked, choice);
              state.asking = null;
              state.at = asked;
              state.stepped = true;
              redraw();
              player?.focus({ preventScroll: true });
            },
          },
          choice,
        ),
      ),
    ];
  }
  const guess = state.guesses.get(state.at);
  const point = points[state.at];
  if (!state.predict || guess === undefined || !point) return [];
  const told = revealed(guess, point.answer || []);
  return [
    h(
      "span",
      { class: told.right ? "tl-guess-right" : "tl-guess-wrong", "data-testid": "player-reveal" },
      told.text,
    ),
  ];
}

/**
 * What of the drawn thread the point is: its message's line, or the cards of the calls an
 * assistant message made (such a step has no line of its own), or the card of its call.
 * @param {HTMLElement} stage
 * @param {Trace} trace
 * @param {Point} point
 * @returns {Element[]}
 */
function current(stage, trace, point) {
  /** @param {string} attribute @param {string[]} ids */
  const marked = (attribute, ids) =>
    [...stage.querySelectorAll(`[${attribute}]`)].filter((e) =>
      ids.includes(e.getAttribute(attribute) || ""),
    );
  if (point.kind !== "message_created") return marked("data-call", [point.id]);
  const line = marked("data-message", [point.id]);
  if (line.length) return line;
  const message = (trace.messages?.[point.thread] || []).find((m) => m.id === point.id);
  return message ? marked("data-call", message.calls) : [];
}

/** @type {WeakMap<object, {points: Point[], merged: Point[]}>} */
const merged = new WeakMap();

/**
 * The points as the player plays them: those sent, with what the narration (which follows
 * them) adds to each, by its place.
 * @param {Model} model
 * @returns {Point[]}
 */
export function played(model) {
  /** @type {Point[]} */
  const points = synced(model, "points") || [];
  /** @type {Record<string, Partial<Point>> | undefined} */
  const told = synced(model, "told");
  if (!told || !Object.keys(told).length) return points;
  const hit = merged.get(told);
  if (hit && hit.points === points) return hit.merged;
  const whole = points.map((point, index) => (told[index] ? { ...point, ...told[index] } : point));
  merged.set(told, { points, merged: whole });
  return whole;
}

/**
 * Scroll `el` into sight within `pane` only (nothing around the pane moves).
 * @param {Element} pane
 * @param {Element} el
 */
function shownWithin(pane, el) {
  const box = pane.getBoundingClientRect();
  const at = el.getBoundingClientRect();
  if (at.bottom > box.bottom) pane.scrollTop += Math.min(at.bottom - box.bottom, at.top - box.top);
  else if (at.top < box.top) pane.scrollTop -= box.top - at.top;
}

/**
 * The player: its controls, the narration of the point (with "explain" on), the question
 * and the score (with "predict" on), and the thread as of the point, the step it is at
 * highlighted. While the history grows (a run going on) a player at its head follows it.
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Local} local
 */
export function playerView(model, el, local) {
  /** @type {Point[]} */
  const points = played(model);
  /** @type {Trace} */
  const trace = synced(model, "trace") || { root: "", threads: [], messages: {}, cards: {} };
  if (!local.player || local.player.root !== trace.root)
    local.player = {
      at: points.length - 1,
      count: points.length,
      explain: false,
      pace: 1000,
      timer: null,
      ui: null,
      predict: false,
      asking: null,
      guesses: new Map(),
      root: trace.root,
      list: points,
      stepped: false,
      shown: null,
      selectedAt: null,
    };
  const state = local.player;
  if (state.at >= state.count - 1) state.at = points.length - 1; // at the head: follow it
  state.count = points.length;
  state.list = points;
  if (!state.ui || state.ui.root.parentNode !== el) {
    state.ui = frame(model, local, state);
    el.replaceChildren(state.ui.root);
  }
  const ui = state.ui;
  const at = Math.max(0, Math.min(points.length - 1, state.at));
  const point = points[at];
  ui.slider.max = String(Math.max(0, points.length - 1));
  ui.slider.value = String(at);
  ui.play.textContent = state.timer ? "pause" : "play";
  ui.where.textContent = point ? `${at + 1} / ${points.length} · ${point.label}` : "no history";
  ui.where.title = ui.where.textContent; // whole, where a long label is cut
  ui.narration.hidden = !state.explain;
  ui.narration.replaceChildren(
    ...(point?.explain
      ? narrated(point.explain)
      : [
          h(
            "span",
            { class: "tl-meta" },
            model.get("narrating")
              ? "(the narration is being written: a moment…)"
              : "(part of a step, explained where that step ends: step on to read it)",
          ),
        ]),
  );
  ui.note.textContent = point?.damaged
    ? "This row of the store cannot be read: it is shown in its place, without its details."
    : "";
  ui.quiz.replaceChildren(...quizFor(state, points, local.redraw));
  // A step shows the thread of its point; a node clicked in the tree shows its thread (as it
  // was then) until the next step.
  if (point && state.selectedAt !== at) {
    state.selectedAt = at;
    local.selected = point.thread;
  }
  const then = points.length ? traceAt(trace, points, at) : trace;
  const viewed = then.threads.some((t) => t.id === local.selected) ? local.selected : point?.thread;
  ui.env.replaceChildren(...(viewed ? variablesLine(model, points, at, then, viewed) : []));
  const guessed = [...state.guesses].filter(([i]) => points[i]);
  const right = guessed.filter(
    ([i, guess]) => revealed(guess, points[i].answer || []).right,
  ).length;
  ui.score.textContent = state.predict ? `score ${right} / ${guessed.length}` : "";
  const forkAt = forkPoint(points, at, trace.root);
  const kernel = !model.get("offline");
  ui.fork.hidden = !kernel;
  ui.fork.disabled = forkAt === null || !!model.get("live") || trace.run?.status === "running";
  ui.fork.title =
    forkAt === null
      ? "nothing to fork before the first message"
      : "a branch holding the history up to here, run live in this view";
  // The thread as it was, to read: what acts on the thread as it is now (decide, fork, answer
  // a form) is not offered at a past point, which is what "offline" tells the inspector
  // ("past": it is the player's, which has its own controls).
  const pastTense = {
    ...model,
    get: (/** @type {string} */ name) =>
      name === "offline" || name === "past" ? true : model.get(name),
  };
  // A part that had the focus (a node of the tree) may be drawn anew: the focus stays in the
  // player, where the keys step it.
  const focused = ui.root.contains(document.activeElement);
  inspector(pastTense, ui.stage, then, local);
  if (focused && !ui.root.contains(document.activeElement)) ui.root.focus({ preventScroll: true });
  for (const old of ui.stage.querySelectorAll(".tl-current")) old.classList.remove("tl-current");
  const marked = point ? current(ui.stage, trace, point) : [];
  for (const shown of marked) shown.classList.add("tl-current");
  reveal(state, ui.stage, marked[0], at);
}

/**
 * Bring the step the player is at into sight: a person's step scrolls it into view as
 * little as it takes (the conversation's pane, and the notebook if the pane is out of
 * sight); a point reached otherwise (the player opening, a run it follows) only scrolls the
 * pane, never the notebook under the reader.
 * @param {PlayerState} state
 * @param {HTMLElement} stage
 * @param {Element | undefined} step
 * @param {number} at
 */
function reveal(state, stage, step, at) {
  const stepped = state.stepped;
  state.stepped = false;
  if (!step || (!stepped && state.shown === at)) return;
  if (!step.isConnected) {
    // Drawn before its output is on the page (a cell's first draw): once it is there.
    if (typeof requestAnimationFrame === "function")
      requestAnimationFrame(() => {
        if (step.isConnected && step.classList.contains("tl-current"))
          reveal(state, stage, step, at);
      });
    return;
  }
  state.shown = at;
  const pane = stage.querySelector(".tl-center");
  if (stepped && typeof step.scrollIntoView === "function")
    step.scrollIntoView({ block: "nearest" });
  else if (pane) shownWithin(pane, step);
}
