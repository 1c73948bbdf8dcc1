// @ts-check
// The widget of `TraceView`: one thread and its descendants (tree, conversation with a card
// per tool call, files, timeline), live while a run streams.
/** @import {Model} from "./types.js" */
import { inspector } from "./inspector.js";
import { mount } from "./mount.js";

/**
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {import("./types.js").Local} local
 */
export function drawInspector(model, el, local) {
  inspector(model, el, model.get("trace") || {}, local);
}

export default {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    return mount(model, el, drawInspector, { ready: true });
  },
};
