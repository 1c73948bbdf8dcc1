// Everywhere else an output is shown (an output view, a document's preview): the view from
// the output's own data.
import { MIME, RANK, ThreadlabRenderer } from "./renderer.js";

export default {
  id: "threadlab:views",
  rendererFactory: {
    safe: true,
    mimeTypes: [MIME],
    createRenderer: (/** @type {any} */ options) => new ThreadlabRenderer(options, null),
  },
  rank: RANK,
  dataType: "json",
};
