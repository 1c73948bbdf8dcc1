// @ts-check
// The widget of `ClassView`: the instructor's view of a class.
/** @import {Model} from "./types.js" */
import { classView } from "./class_view.js";
import { mount } from "./mount.js";

export default {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    return mount(model, el, classView);
  },
};
