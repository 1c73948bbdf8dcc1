// @ts-check
// A view drawn from a saved output alone, with no kernel (the JupyterLab extension's).
/** @import {Model, Preview} from "./types.js" */
import { kindOf } from "./kinds.js";
import { mount } from "./mount.js";
import { NO_KERNEL } from "./text.js";

/**
 * A view drawn from a saved output's data alone (a reopened notebook whose kernel is gone):
 * the same drawing as the live view, on a model that never reaches a kernel. What only the
 * kernel has (a full result, a file's content, what a step was sent) says so when asked;
 * forks and decisions are not offered.
 * @param {HTMLElement} el
 * @param {Record<string, unknown>} state
 * @param {Record<string, Record<string, Preview>>} [files] each thread's files as a view
 *   previews them, where the page holds them (a shared thread): a preview is answered from
 *   them
 */
export function renderOffline(el, state, files = {}) {
  // A shared page (it holds its files) is read as it is: the player stays on screen.
  const shared = Object.keys(files).length > 0 || Boolean(state.shared);
  /** @type {Record<string, unknown>} */
  const values = { ...state, offline: true, live: false, shared };
  const missing = shared ? "not in this shared page" : NO_KERNEL;
  /** @type {Record<string, Array<(...args: any[]) => void>>} */
  const handlers = {};
  /** @type {Model} */
  const model = {
    get: (name) => values[name],
    set: (name, value) => {
      values[name] = value;
    },
    save_changes: () => {},
    on: (event, callback) => {
      handlers[event] = [...(handlers[event] || []), callback];
    },
    send: (/** @type {any} */ msg) => {
      const reply =
        msg.op === "fetch_result"
          ? { op: "result", call: msg.call, text: missing }
          : msg.op === "fetch_arguments"
            ? { op: "arguments", call: msg.call, text: missing }
            : msg.op === "fetch_request"
              ? { op: "request", message: msg.message, text: missing }
              : msg.op === "preview"
                ? (files[msg.thread]?.[msg.digest ? `${msg.path}@${msg.digest}` : msg.path] ?? {
                    op: "preview",
                    thread: msg.thread,
                    path: msg.path,
                    ...(msg.digest ? { digest: msg.digest } : {}),
                    error: missing,
                  })
                : null;
      if (reply) for (const callback of handlers["msg:custom"] || []) callback(reply);
    },
  };
  // No kernel to tell it is on screen: nothing but the page answers.
  return mount(model, el, kindOf(values.view).draw);
}
