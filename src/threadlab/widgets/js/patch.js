// @ts-check
// Merging a live patch from the kernel into the view's trace, in place.
/** @import {Trace} from "./types.js" */

/**
 * Merge a live patch (what changed since the last message) into the view's copy of the trace.
 * @param {Trace} trace
 * @param {any} patch
 */
export function applyPatch(trace, patch) {
  for (const t of patch.threads || []) {
    const at = trace.threads.findIndex((x) => x.id === t.id);
    if (at >= 0) trace.threads[at] = t;
    else trace.threads.push(t);
  }
  for (const [id, c] of Object.entries(patch.cards || {})) put(trace.cards, id, c);
  for (const [tid, f] of Object.entries(patch.files || {})) put(trace.files, tid, f);
  for (const [tid, added] of Object.entries(patch.messages || {})) {
    const had = Object.hasOwn(trace.messages, tid) ? trace.messages[tid] : [];
    put(trace.messages, tid, had.concat(added));
  }
  for (const [tid, text] of Object.entries(patch.drafts || {})) {
    if (text === null) delete trace.drafts[tid];
    else put(trace.drafts, tid, text);
  }
  if (patch.run) trace.run = patch.run;
  // An app's page is sent once, under a key no other page has.
  for (const [key, page] of Object.entries(patch.apps || {})) {
    if (!trace.apps) trace.apps = {};
    put(trace.apps, key, page);
  }
}

/**
 * Set an own property, whatever the key: a tool call's id is the model's choice, and one
 * called "__proto__" must be a card like any other, not the object's prototype.
 * @param {Record<string, any>} object
 * @param {string} key
 * @param {unknown} value
 */
function put(object, key, value) {
  Object.defineProperty(object, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
