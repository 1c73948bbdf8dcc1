// @ts-check
// Every view's drawing, by its kind (the `view` a Python view class syncs): the one table the
// live widget, a reopened output and a shared page draw from. A new view is a row here.
/** @import {Local, Model} from "./types.js" */
import { classView } from "./class_view.js";
import { evalTable } from "./eval_table.js";
import { graphView } from "./graph.js";
import { servedEndpoint } from "./served.js";
import { threadList } from "./thread_list.js";
import { drawPlayer, drawThread } from "./thread_view.js";

/**
 * @typedef {object} Kind
 * @property {(model: Model, el: HTMLElement, local: Local) => void} draw the view's drawing
 * @property {boolean} [ready] tell the kernel once the view is on screen (it then sends what
 *   only a view on screen may have: decisions it can take, a token, a trace it missed)
 * @property {(model: Model) => boolean} [ticking] redraw every second while it says so
 */

/** @type {Record<string, Kind>} */
export const KINDS = {
  inspector: { draw: drawThread, ready: true },
  player: { draw: drawPlayer, ready: true },
  threads: { draw: threadList },
  class: { draw: classView },
  // While it runs, the time left counts down between rows.
  eval: { draw: evalTable, ticking: (m) => !m.get("finished") },
  served: { draw: servedEndpoint, ready: true },
  graph: { draw: graphView },
};

/**
 * The drawing of the view `kind` (a thread's, for a kind this page does not know: a view
 * saved by a later version still shows what it can).
 * @param {unknown} kind
 * @returns {Kind}
 */
export function kindOf(kind) {
  return Object.hasOwn(KINDS, String(kind)) ? KINDS[String(kind)] : KINDS.inspector;
}
