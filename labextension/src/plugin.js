// Each notebook's registry gets the renderer with that registry at hand, so a view whose
// widget still lives in the kernel is drawn live by the notebook's widget manager.
import { MIME, RANK, ThreadlabRenderer } from "./renderer.js";

export default {
  id: "threadlab:live-views",
  description: "threadlab's views, live while their kernel holds them.",
  autoStart: true,
  /** @param {any} app */
  activate(app) {
    app.docRegistry.addWidgetExtension("Notebook", {
      /** @param {any} panel */
      createNew(panel) {
        const registry = panel.content.rendermime;
        registry.addFactory(
          {
            safe: true,
            mimeTypes: [MIME],
            createRenderer: (/** @type {any} */ options) => new ThreadlabRenderer(options, registry),
          },
          RANK,
        );
      },
    });
  },
};
