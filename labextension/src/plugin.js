// The extension's plugins in JupyterLab and Notebook 7: each notebook's outputs drawn by the
// views (live while their kernel holds them), and, in JupyterLab, the Threads side panel.
import { ILabShell, ILayoutRestorer } from "@jupyterlab/application";
import { LabIcon } from "@jupyterlab/ui-components";
import { MIME, RANK, ThreadlabRenderer } from "./renderer.js";
import { ThreadTab } from "./thread_tab.js";
import { ThreadsPanel } from "./threads_panel.js";

/** Each notebook's registry gets the renderer with that registry at hand, so a view whose
 * widget still lives in the kernel is drawn live by the notebook's widget manager. */
const liveViews = {
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
            createRenderer: (/** @type {any} */ options) =>
              new ThreadlabRenderer(options, registry),
          },
          RANK,
        );
      },
    });
  },
};

/** A thread: a line joining three messages. */
const threadsIcon = new LabIcon({
  name: "threadlab:threads",
  svgstr:
    '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 24 24">' +
    '<g class="jp-icon3" fill="#616161"><rect x="5" y="5" width="2" height="14"/>' +
    '<circle cx="6" cy="5" r="2.5"/><circle cx="6" cy="12" r="2.5"/><circle cx="6" cy="19" r="2.5"/>' +
    '<rect x="11" y="4" width="10" height="2" rx="1"/><rect x="11" y="11" width="8" height="2" rx="1"/>' +
    '<rect x="11" y="18" width="10" height="2" rx="1"/></g></svg>',
});

/** The Threads side panel: JupyterLab's only (Notebook 7 has no main area for its tabs). */
const threadsPanel = {
  id: "threadlab:threads-panel",
  description: "The Threads side panel: a store's threads, searched, filtered and opened.",
  autoStart: true,
  optional: [ILabShell, ILayoutRestorer],
  /**
   * @param {any} app
   * @param {any} labShell
   * @param {any} restorer
   */
  activate(app, labShell, restorer) {
    if (!labShell) return;
    const settings = app.serviceManager.serverSettings;
    /** @type {Map<string, ThreadTab>} */
    const tabs = new Map();
    const panel = new ThreadsPanel(settings, (thread) => {
      let tab = tabs.get(thread.id);
      if (!tab || tab.isDisposed) {
        tab = new ThreadTab(settings, thread);
        tab.title.icon = threadsIcon;
        tabs.set(thread.id, tab);
        tab.disposed.connect(() => tabs.delete(thread.id));
        labShell.add(tab, "main");
      }
      labShell.activateById(tab.id);
    });
    panel.title.icon = threadsIcon;
    labShell.add(panel, "left", { rank: 450 });
    restorer?.add(panel, "threadlab-threads");
  },
};

export default [liveViews, threadsPanel];
