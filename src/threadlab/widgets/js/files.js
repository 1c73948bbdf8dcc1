// @ts-check
// The file browser: one thread's attachment filesystem.
/** @import {Local, Model, Trace} from "./types.js" */
import { h } from "./dom.js";
import { previewPane } from "./preview.js";
import { countText } from "./text.js";

/**
 * A path with a place to break after each "/": a narrow pane folds a long path between its
 * folders rather than hiding its file name past the pane's edge.
 * @param {string} path
 */
function pathParts(path) {
  return path.split(/(?<=\/)/).flatMap((part, i) => (i ? [h("wbr"), part] : [part]));
}

/**
 * Ask for a file's preview: of the content it holds at the point shown (its digest, where the
 * list knows it).
 * @param {Model} model
 * @param {string} thread
 * @param {import("./types.js").FileEntry} f
 */
function askPreview(model, thread, f) {
  model.send({ op: "preview", thread, path: f.path, ...(f.digest ? { digest: f.digest } : {}) });
}

/**
 * The selected thread's files, and the preview the user asked for (kept while it is the same
 * file at the same size, so its scroll position survives updates).
 * @param {Model} model
 * @param {Trace} trace
 * @param {string} threadId
 * @param {Local} local
 */
export function files(model, trace, threadId, local) {
  const list = trace.files?.[threadId] || [];
  const preview = local.preview && local.preview.thread === threadId ? local.preview : null;
  // The player moved to a point where the previewed file held other content: that is shown.
  const now = preview?.digest ? list.find((f) => f.path === preview.path) : undefined;
  if (preview && now?.digest && now.digest !== preview.digest) askPreview(model, threadId, now);
  const rows = list.map((f) =>
    h(
      "li",
      {},
      h(
        "button",
        {
          class: `tl-file${preview?.path === f.path ? " tl-selected" : ""}`,
          "data-testid": "file",
          "data-path": f.path,
          title: f.path,
          onclick: () => askPreview(model, threadId, f),
        },
        pathParts(f.path),
      ),
      h("span", { class: "tl-meta" }, ` ${countText(f.size)} B`),
    ),
  );
  let shown = null;
  if (preview) {
    const sig = JSON.stringify([preview, local.previewSource]);
    if (local.previewEl?.sig !== sig) {
      local.previewEl = { el: previewPane(preview, local), sig };
    }
    shown = local.previewEl?.el;
  }
  return [
    h("div", { class: "tl-heading" }, `files (${list.length})`),
    rows.length
      ? h("ul", { class: "tl-file-list" }, rows)
      : h("div", { class: "tl-meta" }, "no files"),
    shown,
  ];
}
