// @ts-check
// The inspector: header, tree, conversation, files and timeline of one thread.
/** @import {Local, Model, Skeleton, Trace} from "./types.js" */
import { conversation } from "./conversation.js";
import { controlOf, h, keepChildren } from "./dom.js";
import { files } from "./files.js";
import { pausePanel, predictionScore } from "./pause.js";
import { costText, counted, replayCounts, usageText } from "./text.js";
import { timeline } from "./timeline.js";
import { tree } from "./tree.js";

/**
 * The inspector's frame, made once per output: later updates fill it, so the panes keep their
 * scroll positions and the cards their open state.
 * @param {HTMLElement} el
 * @returns {Skeleton}
 */
function skeleton(el) {
  const ui = {
    status: h("span", { class: "tl-status", "data-testid": "run-status" }),
    usage: h("span", { class: "tl-meta", "data-testid": "run-usage" }),
    code: h("code", {}),
    play: h("button", { class: "tl-fork tl-step-through", "data-testid": "step-through" }),
    reopen: h("span", { class: "tl-meta", "data-testid": "reopen-hint" }),
    left: h("div", { class: "tl-left" }),
    center: h("div", { class: "tl-center", "data-testid": "conversation" }),
    right: h("div", { class: "tl-right tl-files", "data-testid": "file-browser" }),
    error: h("div", { class: "tl-error" }),
    pause: h("div", { "data-testid": "pause-slot" }),
    predicted: h("div", {}),
    timelineHead: h("span", {}),
    timelineBody: h("div", { class: "tl-lanes" }),
  };
  const timelineBox = /** @type {HTMLDetailsElement} */ (
    h(
      "details",
      { class: "tl-timeline", "data-testid": "timeline" },
      h("summary", {}, ui.timelineHead),
      ui.timelineBody,
    )
  );
  const root = h(
    "div",
    { class: "tl-inspector", "data-testid": "inspector" },
    h(
      "div",
      { class: "tl-header" },
      h("b", {}, "threadlab"),
      " ",
      ui.code,
      " ",
      ui.status,
      ui.usage,
      " ",
      ui.play,
      ui.reopen,
    ),
    timelineBox,
    ui.pause,
    ui.predicted,
    h("div", { class: "tl-panes" }, ui.left, ui.center, ui.right),
    ui.error,
  );
  el.replaceChildren(root);
  return { root, timeline: timelineBox, ...ui };
}

/**
 * Another thread is shown (a branch made here, its origin or a listed thread opened): what was
 * fetched and drawn for the one before goes. A branch keeps its calls' ids, so the original's
 * full result or arguments would otherwise show in the branch's card.
 * @param {Local} local
 */
export function forgetShown(local) {
  local.fetched = {};
  local.fetchedArgs = {};
  local.requests = {};
  local.clock = {};
  local.cards.clear();
  local.messages.clear();
  local.forks.clear();
  local.decisions.clear();
  local.apps.clear();
}

/**
 * The whole inspector: header, tree, conversation and files.
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Trace} trace
 * @param {Local} local
 */
export function inspector(model, el, trace, local) {
  if (local.shownRoot !== trace.root) {
    if (local.shownRoot !== undefined) forgetShown(local);
    local.shownRoot = trace.root;
  }
  const selected = local.selected || trace.root;
  /** @param {string} id */
  const select = (id) => {
    local.selected = id;
    local.memory.selected = id;
    // Told as a message, not a synced change: a save would send the view's whole trace back.
    model.send({ op: "select", thread: id });
    local.redraw();
  };
  if (!local.ui || local.ui.root.parentNode !== el) local.ui = skeleton(el);
  const ui = local.ui;
  const run = trace.run || {};
  ui.code.textContent = trace.root;
  // "Step through": the player of this history, in this view (a kernel sends its points).
  ui.play.hidden = !!model.get("offline") || !trace.root;
  // A saved output drawn without its kernel: where its player and forks are to be had.
  ui.reopen.hidden =
    !model.get("offline") || !!model.get("shared") || !!model.get("past") || !trace.root;
  ui.reopen.replaceChildren(
    ...(ui.reopen.hidden
      ? []
      : [" · to step through or fork it, run ", h("code", {}, `%threadlab open ${trace.root}`)]),
  );
  ui.reopen.title = ui.reopen.hidden
    ? ""
    : "in a kernel with threadlab loaded (%load_ext threadlab); a fork runs on that kernel's" +
      " definitions: run the cells that define its tools and prompts first";
  ui.play.textContent = local.playing ? "loading the history…" : "▶ step through";
  ui.play.onclick = () => {
    local.playing = true;
    local.focusAfter = controlOf("player"); // the arrow keys step it at once
    model.send({ op: "play", thread: trace.root, playing: true });
    local.redraw();
  };
  ui.status.className = `tl-status tl-${run.status}`;
  ui.status.textContent = run.status || "";
  const counts = replayCounts(trace.messages[trace.root] || []);
  const spent = [
    run.usage ? usageText(run.usage) : "",
    costText(run.cost_usd),
    counts
      ? `${counted(counts[0], "model call")} replayed · ${counts[1]} forwarded to the model`
      : "",
  ].filter((p) => p);
  ui.usage.textContent = spent.length ? ` ${spent.join(" · ")}` : "";
  ui.left.replaceChildren(
    h("div", { class: "tl-heading" }, "threads"),
    tree(trace, selected, select),
  );
  // Only what changed moves: an app's frame in a card must not load again at each redraw.
  keepChildren(ui.center, conversation(model, trace, selected, local));
  ui.right.replaceChildren(
    ...files(model, trace, selected, local).filter(/** @returns {x is HTMLElement} */ (x) => !!x),
  );
  // Its lanes are drawn once it is opened (and at each redraw while it is open).
  ui.timeline.ontoggle = () => local.redraw();
  const spans = timeline(trace, ui.timeline.open);
  ui.timelineHead.textContent = spans.head;
  ui.timelineBody.replaceChildren(...spans.lanes);
  // Kept while the pause lasts: a redraw (a patch, a theme change) must not undo a click.
  const paused = pausePanel(model, trace, local);
  const pauseKey = paused ? `${trace.root} ${run.next_request ?? ""}` : "";
  if (ui.pause.dataset.key !== pauseKey) {
    ui.pause.dataset.key = pauseKey;
    ui.pause.replaceChildren(...(paused ? [paused] : []));
  }
  const scored = model.get("offline") ? null : predictionScore(trace, local);
  ui.predicted.replaceChildren(...(scored ? [scored] : []));
  ui.error.textContent = paused ? "" : run.error || "";
  // A run that waits for a decision did not fail: what it waits for reads as a note.
  ui.error.className = run.status === "waiting" ? "tl-meta" : "tl-error";
  // The thread as it is now: nothing in it is a player's point (its cards and messages are
  // kept across views, with any mark a player left on them).
  if (!model.get("past"))
    for (const marked of ui.root.querySelectorAll(".tl-current"))
      marked.classList.remove("tl-current");
}
