// @ts-check
// The widget of `ServedView`: an MCP endpoint the kernel serves, its token shown while the
// kernel is there (the kernel sends it once the view is on screen).
/** @import {Model} from "./types.js" */
import { mount } from "./mount.js";
import { servedEndpoint } from "./served.js";

export default {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    return mount(model, el, servedEndpoint, { ready: true });
  },
};
