// One renderer for threadlab's mimetype. It draws the view from the output's own data first
// (what the notebook file holds, readable with no kernel); when the kernel that made the
// view still holds its widget, the live view takes its place.
import { Panel, Widget } from "@lumino/widgets";
import "../../src/threadlab/widgets/static/threadlab.css";
// The one bundle of every view, as anywidget loads it: the saved output is drawn by the
// same script as the live view.
import { renderOffline } from "../../src/threadlab/widgets/static/views.js";

export const MIME = "application/vnd.threadlab.view+json";
const WIDGET_MIME = "application/vnd.jupyter.widget-view+json";
/** What a live view's drawing marks its element with once it drew (mount.js), whichever view
 * it is. */
const LIVE_VIEWS = "[data-threadlab-drawn]";
/** Before ipywidgets' renderer (-10): the bundle may carry a widget view too. */
export const RANK = -20;
/** How long a view that may go live waits before it is drawn from the output's data. */
const SAVED_AFTER_MS = 250;
/** What an output shows whose data its kernel sends a moment after the view (a player's
 * history comes with its narration): the live view normally takes its place first. */
const PENDING =
  "The player's history comes with its narration, from the kernel that ran this cell.";

/**
 * @typedef {{model_id?: string, state?: Record<string, unknown>}} ViewData
 * @typedef {{getFactory(mime: string): any} | null} Registry
 */

export class ThreadlabRenderer extends Panel {
  /**
   * @param {any} options the renderer options JupyterLab gives every renderer
   * @param {Registry} registry the notebook's registry, where the widget renderer is
   */
  constructor(options, registry) {
    super();
    this.options = options;
    this.registry = registry;
    this.addClass("tl-output");
    /** @type {MutationObserver | null} */
    this.watch = null;
    /** The model whose live view is on screen, if one is. @type {string | null} */
    this.liveModel = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.savedTimer = undefined;
  }

  /** @param {any} model */
  async renderModel(model) {
    const data = /** @type {ViewData} */ (model.data[MIME] || {});
    // The output updated (a run's end) for the view already live here: the widget shows the
    // same state, so it stays as it is, with whatever a person opened in it.
    if (data.model_id && data.model_id === this.liveModel && this.widgets.length) return;
    this.liveModel = null;
    this.watch?.disconnect();
    clearTimeout(this.savedTimer);
    while (this.widgets.length) this.widgets[0].dispose();
    // Drawn from the output's data where no live view can take its place; where one may,
    // only if it is not on screen soon (a reopened notebook whose kernel does not answer):
    // a long history is costly to draw, and drawing it twice made a player slow to open.
    /** @type {Widget | null} */
    let offline = null;
    const drawSaved = () => {
      if (offline || this.node.dataset.threadlab === "live" || this.isDisposed) return;
      offline = new Widget();
      if (data.state?.pending) offline.node.textContent = PENDING;
      else renderOffline(offline.node, data.state || {});
      this.insertWidget(0, offline);
      // Which drawing is on screen: "saved" (from the output's data) or "live" (the widget).
      this.node.dataset.threadlab = "saved";
    };
    delete this.node.dataset.threadlab;
    const factory = model.trusted && data.model_id ? this.registry?.getFactory(WIDGET_MIME) : null;
    if (!factory) {
      drawSaved();
      return;
    }
    const live = factory.createRenderer({ ...this.options, mimeType: WIDGET_MIME });
    live.hide();
    this.addWidget(live);
    this.savedTimer = setTimeout(drawSaved, SAVED_AFTER_MS);
    // The widget renderer says in its text whether the model is there; it may decide late
    // (while the kernel connects), so it is watched rather than awaited.
    const settle = () => {
      if (live.node.querySelector(LIVE_VIEWS)) {
        clearTimeout(this.savedTimer);
        live.show();
        offline?.dispose(); // one view on screen: what a test or a person finds is the live one
        this.node.dataset.threadlab = "live";
        this.liveModel = data.model_id || null;
        this.watch?.disconnect();
      } else if (/model not found/.test(live.node.textContent || "")) {
        clearTimeout(this.savedTimer);
        this.watch?.disconnect();
        live.dispose();
        drawSaved();
      }
    };
    this.watch = new MutationObserver(settle);
    this.watch.observe(live.node, { childList: true, subtree: true, characterData: true });
    const view = { model_id: data.model_id, version_major: 2, version_minor: 1 };
    await live.renderModel({
      data: { [WIDGET_MIME]: view },
      metadata: {},
      trusted: true,
      setData() {},
    });
    settle();
  }

  dispose() {
    this.watch?.disconnect();
    clearTimeout(this.savedTimer);
    super.dispose();
  }
}
