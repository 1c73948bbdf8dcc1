// @ts-check
// The widget of `GraphView`: the definitions as a picture, a node's definition on a click.
/** @import {Model} from "./types.js" */
import { graphView } from "./graph.js";
import { mount } from "./mount.js";

export default {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    return mount(model, el, graphView);
  },
};
