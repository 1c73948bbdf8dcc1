// @ts-check
// What every view does on screen around its own drawing: local state, the kernel's
// messages, redraws and the ticking counters.
/** @import {KernelMessage, Local, Memory, Model} from "./types.js" */
import { controlOf } from "./dom.js";
import { applyPatch } from "./patch.js";
import { synced } from "./synced.js";
import { elapsed } from "./text.js";
import { PAGE } from "./thread_list.js";

/**
 * What a person opened in each view (by the view's key): kept across the redraw that comes
 * when the view's output is updated (at a run's end), so an opened card stays open.
 * @type {Map<string, Memory>}
 */
const MEMORY = new Map();

/**
 * What every view does on screen, around its own drawing: keep what a person opened, take
 * the kernel's messages (replies, errors, live patches), redraw on changes, and tick the
 * elapsed counters. Returns the clean-up anywidget calls when the view goes.
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {(model: Model, el: HTMLElement, local: Local) => void} draw the view's own drawing
 * @param {{ready?: boolean, ticking?: (model: Model) => boolean}} [options] `ready`: tell
 *   the kernel once the view is on screen; `ticking`: redraw every second while it says so
 *   (a countdown)
 * @returns {() => void}
 */
export function mount(model, el, draw, options = {}) {
  {
    const key = model.get("key") || "";
    const memory = MEMORY.get(key) || { open: new Set(), selected: null };
    if (key) MEMORY.set(key, memory);
    /** @type {Local} */
    const local = {
      memory,
      selected: memory.selected || model.get("selected") || null,
      fetched: {},
      fetchedArgs: {},
      preview: null,
      redraw: () => {},
      ui: null,
      cards: new Map(),
      messages: new Map(),
      previewEl: null,
      forks: new Map(),
      decisions: new Map(),
      requests: {},
      previewSource: false,
      listQuery: "",
      listShown: PAGE,
      evalFailures: false,
      evalDifferences: false,
      clock: {},
      secret: null,
      apps: new Map(),
    };
    local.redraw = () => {
      const kept = focusedControl(el);
      draw(model, el, local);
      refocus(el, local, kept);
    };
    model.on("msg:custom", (/** @type {KernelMessage} */ msg) => {
      if (msg.op === "result") local.fetched[msg.call] = msg.text;
      if (msg.op === "arguments") local.fetchedArgs[msg.call] = msg.text;
      if (msg.op === "preview") local.preview = msg;
      if (msg.op === "request") local.requests[msg.message] = msg.text;
      if (msg.op === "secret") local.secret = { token: msg.token, config: msg.config };
      if (msg.op === "app_result") {
        local.apps.get(msg.call)?.answer(msg);
        return; // the app is told; nothing else changed
      }
      if (msg.op === "fork_error") {
        const point = local.forks.get(`${msg.thread} ${msg.at}`);
        if (point) point.error.textContent = msg.error;
      }
      if (msg.op === "decide_error") {
        const asked = local.decisions.get(`${msg.thread} ${msg.call}`);
        if (asked) {
          asked.error.textContent = msg.error;
          asked.sent();
        }
      }
      if (msg.op === "patch") {
        // Merged into the model's own trace, in place (never saved back to the kernel): the
        // notebook's saved widget state is the whole, current trace, and a patch costs what
        // it carries, not what the run has done so far. The redraw below shows it.
        const trace = synced(model, "trace");
        if (trace?.root) applyPatch(trace, msg);
      }
      local.redraw();
    });
    // The kernel took the history's points away (a branch made from the player, or "back"):
    // the view shows the thread as it is.
    model.on("change:points", () => {
      if ((synced(model, "points") || []).length) return;
      local.playing = false;
      local.selected = model.get("selected") || null; // not the thread of a point played
    });
    for (const name of [
      "trace",
      "rows",
      "opened",
      "live",
      "finished",
      "points",
      "narrating",
      "told",
    ])
      model.on(`change:${name}`, local.redraw);
    // The kernel chose the thread to show (a branch made here, or one opened from the tree).
    model.on("change:selected", () => {
      local.selected = model.get("selected") || null;
      memory.selected = local.selected;
      local.redraw();
    });
    local.redraw();
    // Drawn: what the JupyterLab extension waits for before the live view takes the place of
    // the saved one, whichever view it is.
    el.dataset.threadlabDrawn = "";
    // On screen: it can take decisions, and a live view that missed patches sent before it
    // listened gets the whole trace once.
    if (options.ready) model.send({ op: "ready" });
    // The elapsed counters of running calls tick between updates.
    const ticker = setInterval(() => {
      for (const span of el.querySelectorAll(".tl-elapsed"))
        span.textContent = elapsed(Number(span.getAttribute("data-since")));
    }, 200);
    const ticking = options.ticking;
    const countdown = ticking
      ? setInterval(() => {
          if (ticking(model)) local.redraw();
        }, 1000)
      : null;
    return () => {
      clearInterval(ticker);
      if (countdown !== null) clearInterval(countdown);
    };
  }
}

/**
 * After a redraw, the keyboard is put back where a person would look for it. A redraw replaces
 * the controls: the one the keyboard was on is found again (a tree node clicked or chosen with
 * Enter left the focus on the page's body). A control that is gone (an answered Approve, the
 * "step through" the player took the place of) hands the focus to where its click leads
 * (`local.focusAfter`), once that is drawn. Focus a person moved elsewhere stays there.
 * @param {HTMLElement} el
 * @param {Local} local
 * @param {string | null} kept the control the keyboard was on before the redraw
 */
export function refocus(el, local, kept) {
  const at = el.ownerDocument.activeElement;
  if (el.contains(at)) return;
  if (at && at !== el.ownerDocument.body && kept === null) {
    local.focusAfter = null; // the person went elsewhere: nothing is taken back
    return;
  }
  for (const wanted of [kept, local.focusAfter]) {
    const control = wanted ? found(el, wanted) : null;
    if (control) {
      if (wanted === local.focusAfter) local.focusAfter = null;
      control.focus({ preventScroll: true });
      return;
    }
  }
}

/**
 * The element of `el` that `selector` names; null when there is none, or the selector cannot
 * be read (nothing is worth an exception in a redraw).
 * @param {HTMLElement} el
 * @param {string} selector
 * @returns {HTMLElement | null}
 */
function found(el, selector) {
  try {
    return el.querySelector(selector);
  } catch {
    return null;
  }
}

/**
 * The control within `el` the keyboard is on, as a selector that finds the same control once a
 * redraw has replaced it: its test id and the thread or call it is about. None for a control
 * about nothing in particular: the first of its kind after a redraw may be another call's
 * (focus on another call's Approve, an Enter away from deciding it).
 * @param {HTMLElement} el
 * @returns {string | null}
 */
export function focusedControl(el) {
  const at = el.ownerDocument.activeElement;
  if (!at || at === el || !el.contains(at)) return null;
  // A card's summary is found by its card (an update puts it back in its card, which blurs it).
  const summary = at.tagName === "SUMMARY" && at.parentElement ? at.parentElement : null;
  const owner = summary ?? at;
  const kind = owner.getAttribute("data-testid");
  const about = Object.fromEntries(
    ["data-thread", "data-call"]
      .filter((name) => owner.hasAttribute(name))
      .map((name) => [name, owner.getAttribute(name) || ""]),
  );
  if (!kind || !Object.keys(about).length) return null;
  return summary ? `${controlOf(kind, about)} > summary` : controlOf(kind, about);
}
