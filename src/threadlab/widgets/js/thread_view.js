// @ts-check
// A thread view (`ThreadView`, `PlayerView`): one thread and its descendants (tree,
// conversation with a card per tool call, files, timeline), live while a run streams; "step
// through" turns it into the player of the thread's history, and back.
/** @import {Local, Model} from "./types.js" */
import { inspector } from "./inspector.js";
import { playerView } from "./player.js";
import { synced } from "./synced.js";

/**
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Local} local
 */
export function drawInspector(model, el, local) {
  inspector(model, el, synced(model, "trace") || {}, local);
}

/**
 * A thread view: the player while someone steps through the history (and its points have
 * come), else the thread as it is.
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Local} local
 */
export function drawThread(model, el, local) {
  if (local.playing && (synced(model, "points") || []).length) playerView(model, el, local);
  else drawInspector(model, el, local);
}

/**
 * The player's own view (`tl.player`): a thread view that starts stepping through.
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Local} local
 */
export function drawPlayer(model, el, local) {
  if (local.playing === undefined) local.playing = true;
  drawThread(model, el, local);
}
