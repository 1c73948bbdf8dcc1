// @ts-check
// The one script of every view: anywidget renders each widget class with it (drawing the
// view its model names), the JupyterLab extension draws saved outputs with `renderOffline`,
// and a thread shared as one HTML file (`tl.share`) draws itself with it on load.
/** @import {Model} from "./types.js" */
import { kindOf } from "./kinds.js";
import { mount } from "./mount.js";
import { renderOffline } from "./offline.js";

export { renderOffline };

/**
 * A shared page: the view drawn from the data the page holds, as a reopened notebook draws
 * it, with the files' previews answered from the page. Returns what takes it off the page.
 * @param {Document} page
 * @returns {() => void}
 */
export function drawSharedPage(page) {
  /** @param {string} id @param {any} fallback */
  const held = (id, fallback) => {
    const node = page.getElementById(id);
    return node?.textContent ? JSON.parse(node.textContent) : fallback;
  };
  const root = page.getElementById("threadlab-view");
  if (!root) return () => {};
  return renderOffline(root, held("threadlab-state", {}), held("threadlab-files", {}));
}

// Only a shared page holds its state in the page itself.
if (typeof document !== "undefined" && document.getElementById("threadlab-state"))
  drawSharedPage(document);

export default {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    const { draw, ready, ticking } = kindOf(model.get("view"));
    return mount(model, el, draw, { ready, ticking });
  },
};
