// @ts-check
// The widget of `PlayerView`: a thread's history stepped back and forth.
/** @import {Model} from "./types.js" */
import { drawPlayer } from "./inspector_view.js";
import { mount } from "./mount.js";

export default {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    return mount(model, el, drawPlayer, { ready: true });
  },
};
