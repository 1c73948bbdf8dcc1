// @ts-check
// The widget of `EvalView`: an evaluation's table of cases by models, filling in as rows
// finish; a cell's thread opened below.
/** @import {Model} from "./types.js" */
import { evalTable } from "./eval_table.js";
import { mount } from "./mount.js";

export default {
  /** @param {{model: Model, el: HTMLElement}} view */
  render({ model, el }) {
    // While it runs, the time left counts down between rows.
    return mount(model, el, evalTable, { ticking: (m) => !m.get("finished") });
  },
};
