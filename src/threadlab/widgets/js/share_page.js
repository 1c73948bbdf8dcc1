// @ts-check
// A thread shared as one HTML file (`tl.share`): the view drawn from the data the page holds,
// as a reopened notebook draws it, with the files' previews answered from the page.
import { renderOffline } from "./offline.js";

/**
 * The JSON the page holds under `id`, or `fallback`.
 * @param {string} id
 * @param {any} fallback
 */
function held(id, fallback) {
  const node = document.getElementById(id);
  return node?.textContent ? JSON.parse(node.textContent) : fallback;
}

const root = document.getElementById("threadlab-view");
/** Takes the view off the page (its counters stop ticking). */
export const stop = root
  ? renderOffline(root, held("threadlab-state", {}), held("threadlab-files", {}))
  : () => {};
