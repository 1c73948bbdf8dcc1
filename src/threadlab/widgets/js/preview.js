// @ts-check
// A file's preview: text, rendered markdown, sandboxed HTML or an image.
import { h } from "./dom.js";

/** @import {Local, Preview} from "./types.js" */

/**
 * @param {string} text
 * @returns {string}
 */
function escapeHtml(text) {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Markdown's inline marks in one escaped line: code, bold, italics, links (http(s) only).
 * @param {string} line
 * @returns {string}
 */
function markdownInline(line) {
  return escapeHtml(line)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*])\*([^*]+)\*/g, "$1<em>$2</em>")
    .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2">$1</a>');
}

/**
 * Markdown as HTML, for the sandboxed frame (where no script runs and nothing is fetched,
 * whatever this makes): headings, paragraphs, lists, quotes, fenced code, inline marks.
 * Everything the file says is escaped first; only these marks become tags.
 * @param {string} text
 * @returns {string}
 */
function markdownHtml(text) {
  const out = [];
  /** @type {string | null} */
  let list = null;
  let fence = false;
  const closeList = () => {
    if (list) out.push(`</${list}>`);
    list = null;
  };
  for (const line of text.split("\n")) {
    if (/^```/.test(line)) {
      closeList();
      out.push(fence ? "</code></pre>" : "<pre><code>");
      fence = !fence;
      continue;
    }
    if (fence) {
      out.push(`${escapeHtml(line)}\n`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^\s*(?:([-*+])|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      const kind = item[1] ? "ul" : "ol";
      if (list !== kind) {
        closeList();
        out.push(`<${kind}>`);
        list = kind;
      }
      out.push(`<li>${markdownInline(item[2])}</li>`);
      continue;
    }
    closeList();
    if (heading)
      out.push(`<h${heading[1].length}>${markdownInline(heading[2])}</h${heading[1].length}>`);
    else if (/^>\s?/.test(line))
      out.push(`<blockquote>${markdownInline(line.replace(/^>\s?/, ""))}</blockquote>`);
    else if (line.trim()) out.push(`<p>${markdownInline(line)}</p>`);
  }
  closeList();
  if (fence) out.push("</code></pre>");
  return `<div style="font-family:system-ui,sans-serif">${out.join("")}</div>`;
}

/** What a rendered HTML file may use: its own styles and inline images, nothing else. */
const SANDBOX_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; media-src data:";

/**
 * A previewed file: an image as an image; HTML rendered in a sandboxed frame (no scripts,
 * no network, no access to the page) with a toggle to its source; any other text as text.
 * A download link takes what was previewed; the pane can be resized.
 * @param {Preview} preview
 * @param {Local} local
 * @returns {HTMLElement}
 */
export function previewPane(preview, local) {
  if (preview.error) return h("div", { class: "tl-error" }, preview.error);
  const name = preview.path.split("/").pop() || "file";
  const href = preview.image
    ? preview.image
    : URL.createObjectURL(new Blob([preview.text || ""], { type: "text/plain" }));
  const download = h(
    "a",
    { class: "tl-download", "data-testid": "file-download", href, download: name },
    preview.truncated ? "download (the first 256 KB)" : "download",
  );
  const markdown = /\.(md|markdown)$/i.test(preview.path) && !preview.image;
  const html = (markdown || /\.html?$/i.test(preview.path)) && !preview.image;
  const toggle = html
    ? h(
        "button",
        {
          class: "tl-copy",
          "data-testid": "preview-source",
          onclick: () => {
            local.previewSource = !local.previewSource;
            local.redraw();
          },
        },
        local.previewSource ? "rendered" : "source",
      )
    : null;
  let body;
  if (preview.image) body = h("img", { src: preview.image, alt: preview.path, class: "tl-image" });
  else if (html && !local.previewSource) {
    const frame = /** @type {HTMLIFrameElement} */ (
      h("iframe", { class: "tl-frame", "data-testid": "file-frame", sandbox: "", title: name })
    );
    const page = markdown ? markdownHtml(preview.text || "") : preview.text || "";
    frame.srcdoc = `<meta http-equiv="Content-Security-Policy" content="${SANDBOX_CSP}">${page}`;
    body = frame;
  } else body = h("pre", { class: "tl-preview", "data-testid": "file-preview" }, preview.text);
  return h(
    "div",
    { class: "tl-preview-pane", "data-testid": "preview-pane" },
    h("div", {}, toggle, " ", download),
    body,
  );
}
