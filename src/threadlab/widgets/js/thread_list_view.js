// @ts-check
// The widget of `ThreadListView`: the store's threads, newest first; one opened below.
/** @import {Model} from "./types.js" */
import { mount } from "./mount.js";
import { threadList } from "./thread_list.js";

export default {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    return mount(model, el, threadList);
  },
};
