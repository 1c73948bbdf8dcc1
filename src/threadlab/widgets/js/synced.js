// @ts-check
// The large values a view's kernel sends as one JSON text (a trace, a history's points): a
// long history is one string to carry, not thousands of objects for ipywidgets to walk.
/** @import {Model} from "./types.js" */

/** @type {WeakMap<object, Map<string, {text: string, value: any}>>} */
const parsed = new WeakMap();

/**
 * The model's value `name`, parsed once per text the kernel sent; a value that is no text (a
 * saved output's data) is taken as it is. The parsed object is the one every later call gets
 * until new text comes: a patch merged into it stays.
 * @param {Model} model
 * @param {string} name
 * @returns {any}
 */
export function synced(model, name) {
  const text = model.get(name);
  if (typeof text !== "string") return text;
  const cache = parsed.get(model) || new Map();
  parsed.set(model, cache);
  const hit = cache.get(name);
  if (hit && hit.text === text) return hit.value;
  const value = JSON.parse(text);
  cache.set(name, { text, value });
  return value;
}
