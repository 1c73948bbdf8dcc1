// @ts-check
// An MCP endpoint the kernel serves: where it is, what it serves, and — only while the kernel
// that serves it is there — its bearer token and the client configuration that holds it.
// Neither is ever in the view's state or the notebook's output: the kernel sends them to a
// view on screen, which shows them until it goes.
/** @import {Local, Model} from "./types.js" */
import { copyButton, h } from "./dom.js";

/**
 * @param {Model} model
 * @param {HTMLElement} el
 * @param {Local} local
 */
export function servedEndpoint(model, el, local) {
  /** @type {string[]} */
  const tools = model.get("tools") || [];
  const secret = local.secret; // only a kernel sends it, to a view on screen
  const guarded = Boolean(model.get("guarded"));
  const token = !guarded
    ? h("div", { class: "tl-meta" }, "served without a token (--no-token)")
    : secret
      ? h(
          "div",
          {},
          h("span", { class: "tl-heading" }, "bearer token "),
          copyButton(() => secret.token),
          h("pre", { class: "tl-args", "data-testid": "served-token" }, secret.token),
          h("span", { class: "tl-heading" }, "client configuration "),
          copyButton(() => secret.config),
          h("pre", { class: "tl-args", "data-testid": "served-config" }, secret.config),
        )
      : h(
          "div",
          { class: "tl-meta", "data-testid": "served-token-gone" },
          "bearer token: shown only while the kernel that serves it runs, never kept in the" +
            " notebook (service.token in that kernel)",
        );
  el.replaceChildren(
    h(
      "div",
      { class: "threadlab tl-served", "data-testid": "served-endpoint" },
      h("div", {}, h("b", {}, "MCP endpoint "), h("code", {}, String(model.get("url") || ""))),
      h(
        "div",
        { class: "tl-meta" },
        tools.length ? `serving ${tools.join(", ")}` : "no tools yet",
        " · each call is a thread: %threadlab threads --all",
      ),
      token,
    ),
  );
}
