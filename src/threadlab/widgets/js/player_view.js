// @ts-check
// The widget of `PlayerView`: a thread's history stepped back and forth.
/** @import {Model} from "./types.js" */
import { mount } from "./mount.js";
import { playerView } from "./player.js";

export default {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    return mount(model, el, playerView, { ready: true });
  },
};
