// @ts-check
// A server's form, under the call that waits for it (MCP elicitation): the fields its JSON
// Schema asks for, with their defaults, then Submit or Decline.
/** @import {Card, Elicitation, Local, Model} from "./types.js" */
import { h } from "./dom.js";

/**
 * @typedef {{type?: string, title?: string, description?: string, default?: unknown,
 *   enum?: unknown[], enumNames?: string[], oneOf?: {const: unknown, title?: string}[],
 *   items?: {enum?: unknown[], anyOf?: {const: unknown, title?: string}[]},
 *   format?: string, minimum?: number, maximum?: number}} Field
 * @typedef {{read: () => unknown, el: HTMLElement}} Input
 */

/**
 * The choices of a field: (value, label) pairs from `enum` (with `enumNames`) or `oneOf`.
 * @param {Field} f
 * @returns {[unknown, string][] | null}
 */
function choicesOf(f) {
  if (Array.isArray(f.oneOf)) return f.oneOf.map((o) => [o.const, o.title ?? String(o.const)]);
  if (Array.isArray(f.enum)) return f.enum.map((v, i) => [v, f.enumNames?.[i] ?? String(v)]);
  return null;
}

/**
 * One field's input, holding its default.
 * @param {string} name
 * @param {Field} f
 * @returns {Input}
 */
function input(name, f) {
  const label = `${f.title ?? name}`;
  const choices = choicesOf(f);
  if (f.type === "boolean") {
    const box = /** @type {HTMLInputElement} */ (
      h("input", { type: "checkbox", "data-field": name, "aria-label": label })
    );
    box.checked = f.default === true;
    return { el: box, read: () => box.checked };
  }
  if (f.type === "array") {
    const items = f.items?.anyOf
      ? f.items.anyOf.map((o) => [o.const, o.title ?? String(o.const)])
      : (f.items?.enum ?? []).map((v) => [v, String(v)]);
    const chosen = new Set(Array.isArray(f.default) ? f.default : []);
    const boxes = items.map(([value, shown]) => {
      const box = /** @type {HTMLInputElement} */ (
        h("input", { type: "checkbox", "data-field": `${name}=${String(value)}` })
      );
      box.checked = chosen.has(value);
      return { box, value, el: h("label", { class: "tl-choice" }, box, ` ${shown}`) };
    });
    return {
      el: h("span", {}, ...boxes.map((b) => b.el)),
      read: () => boxes.filter((b) => b.box.checked).map((b) => b.value),
    };
  }
  if (choices) {
    const select = /** @type {HTMLSelectElement} */ (
      h(
        "select",
        { "data-field": name, "aria-label": label },
        h("option", { value: "" }, "—"),
        ...choices.map(([, shown], i) => h("option", { value: String(i) }, shown)),
      )
    );
    const at = choices.findIndex(([value]) => value === f.default);
    select.value = at >= 0 ? String(at) : "";
    return {
      el: select,
      read: () => (select.value === "" ? undefined : choices[Number(select.value)][0]),
    };
  }
  const numeric = f.type === "number" || f.type === "integer";
  /** @type {Record<string, string>} */
  const formats = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };
  const kind = numeric ? "number" : (formats[f.format ?? ""] ?? "text");
  const field = /** @type {HTMLInputElement} */ (
    h("input", { type: kind, class: "tl-field", "data-field": name, "aria-label": label })
  );
  if (f.type === "integer") field.step = "1";
  if (f.default !== undefined) field.value = String(f.default);
  return {
    el: field,
    read: () => {
      if (field.value === "") return undefined;
      return numeric ? Number(field.value) : field.value;
    },
  };
}

/**
 * Who asks, as the form's head says it: the MCP server, or the runtime's own tool that asks
 * its caller, by name and kind ("asking (MCP server):" — "asking asks:" read as a word said
 * twice).
 * @param {Elicitation} asked
 */
function asker(asked) {
  if (asked.server) return `${asked.server} (MCP server):`;
  return asked.tool ? `${asked.tool} (tool):` : "the server asks:";
}

/**
 * The form of the server's question under a call that waits for it; kept per call, so what
 * the person typed survives the view's updates.
 * @param {Model} model
 * @param {Local} local
 * @param {Card} c
 */
export function elicitationForm(model, local, c) {
  const key = `${c.thread} ${c.id} form`;
  const kept = local.decisions.get(key);
  if (kept) return kept.el;
  /** @type {import("./types.js").Elicitation} */
  const asked = c.elicitation ?? { state: "asked" };
  const schema = /** @type {{properties?: Record<string, Field>, required?: string[]}} */ (
    asked.schema ?? {}
  );
  const required = new Set(schema.required ?? []);
  const properties = schema.properties ?? {};
  // The server's order (the schema's keys may have been sorted on their way here).
  const order = (asked.order ?? []).filter((name) => name in properties);
  for (const name of Object.keys(properties)) if (!order.includes(name)) order.push(name);
  const fields = order.map((name) => ({
    name,
    f: properties[name],
    ...input(name, properties[name]),
  }));
  const error = h("div", { class: "tl-error", "data-testid": "form-error" });
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  /** @param {"accept" | "decline"} action */
  const send = (action) => {
    /** @type {Record<string, unknown>} */
    const content = {};
    if (action === "accept") {
      for (const { name, read, f } of fields) {
        const value = read();
        if (value === undefined || (typeof value === "number" && Number.isNaN(value))) {
          if (required.has(name)) {
            error.textContent = `${f.title ?? name} is needed`;
            return;
          }
          continue;
        }
        content[name] = value;
      }
    }
    error.textContent = "";
    for (const b of buttons) b.disabled = true;
    model.send({ op: "elicit", thread: c.thread, call: c.id, action, content });
  };
  for (const [label, action, id, kind] of /** @type {const} */ ([
    ["Submit", "accept", "form-submit", "tl-approve"],
    ["Decline", "decline", "form-decline", "tl-reject"],
  ])) {
    const attrs = { class: `tl-decide ${kind}`, "data-testid": id, onclick: () => send(action) };
    buttons.push(/** @type {HTMLButtonElement} */ (h("button", attrs, label)));
  }
  const el = h(
    "div",
    { class: "tl-decision tl-form", "data-testid": "elicitation-form" },
    h(
      "span",
      { class: "tl-ask", "data-testid": "form-ask" },
      h("b", {}, `‖ ${asker(asked)}`),
      ` ${asked.message ?? ""}`,
    ),
    h(
      "div",
      { class: "tl-form-fields" },
      ...fields.map(({ name, f, el: field }) =>
        h(
          f.type === "array" ? "div" : "label", // a group of checkboxes holds labels itself
          { class: "tl-form-field", title: f.description ?? "" },
          h("span", {}, `${f.title ?? name}${required.has(name) ? " *" : ""}`),
          field,
        ),
      ),
    ),
    h("div", { class: "tl-decide-row" }, ...buttons),
    error,
  );
  local.decisions.set(key, { el, error, sent: () => {} });
  return el;
}
