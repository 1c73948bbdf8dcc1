// A server's form under the call that waits for it: the fields its schema asks for, with
// their defaults; Submit sends the values, a missing required field is said, Decline sends
// nothing of the form.
import assert from "node:assert/strict";
import { test } from "node:test";
import { aCard, aTrace, fakeModel, local, view } from "./setup.mjs";

const { elicitationForm } = await view("elicitation.js");
const { conversation } = await view("conversation.js");

const schema = {
  type: "object",
  properties: {
    name: { type: "string", title: "Name" },
    size: { type: "integer", default: 3 },
    colour: { type: "string", enum: ["green", "blue"], default: "green" },
    hero: { type: "string", oneOf: [{ const: "h1", title: "Superman" }, { const: "h2" }] },
    confirm: { type: "boolean" },
    fish: {
      type: "array",
      items: { anyOf: [{ const: "f1", title: "Tuna" }, { const: "f2" }] },
      default: ["f1"],
    },
  },
  required: ["name"],
};
const asked = () =>
  aCard({
    status: "running",
    elicitation: { state: "asked", server: "shop", message: "Your details?", schema },
  });

test("the form shows the question, the fields and their defaults", () => {
  const form = elicitationForm(fakeModel(), local(), asked());
  assert.equal(
    form.querySelector("[data-testid=form-ask]").textContent,
    "‖ shop (MCP server): Your details?",
  );
  assert.equal(form.querySelector("[data-field=size]").value, "3");
  const colour = form.querySelector("[data-field=colour]");
  assert.equal(colour.options[colour.selectedIndex].textContent, "green");
  const hero = form.querySelector("[data-field=hero]");
  assert.deepEqual(
    [...hero.options].map((o) => o.textContent),
    ["—", "Superman", "h2"],
  );
  assert.equal(form.querySelector("[data-field='fish=f1']").checked, true);
  assert.equal(form.querySelector("[data-field='fish=f2']").checked, false);
  assert.match(form.textContent, /Name \*/); // required
});

test("a tool of the runtime that asks its caller is named as the one who asks", () => {
  const card = aCard({
    status: "running",
    elicitation: { state: "asked", server: "", tool: "book", message: "Which day?", schema },
  });
  const form = elicitationForm(fakeModel(), local(), card);
  assert.equal(
    form.querySelector("[data-testid=form-ask]").textContent,
    "‖ book (tool): Which day?",
  );
});

test("Submit sends the values, typed as the schema says; a missing required field is said", () => {
  const model = fakeModel();
  const form = elicitationForm(model, local(), asked());
  form.querySelector("[data-testid=form-submit]").click();
  assert.equal(form.querySelector("[data-testid=form-error]").textContent, "Name is needed");
  assert.deepEqual(model.sent, []);
  form.querySelector("[data-field=name]").value = "Ada";
  form.querySelector("[data-field=size]").value = "7";
  form.querySelector("[data-field=confirm]").checked = true;
  const hero = form.querySelector("[data-field=hero]");
  hero.value = "0"; // Superman, the first choice
  form.querySelector("[data-testid=form-submit]").click();
  assert.deepEqual(model.sent, [
    {
      op: "elicit",
      thread: "t1",
      call: "call_1",
      action: "accept",
      content: { name: "Ada", size: 7, colour: "green", hero: "h1", confirm: true, fish: ["f1"] },
    },
  ]);
  assert.ok(form.querySelector("[data-testid=form-submit]").disabled);
});

test("Decline sends no values", () => {
  const model = fakeModel();
  const form = elicitationForm(model, local(), asked());
  form.querySelector("[data-testid=form-decline]").click();
  assert.deepEqual(model.sent, [
    { op: "elicit", thread: "t1", call: "call_1", action: "decline", content: {} },
  ]);
});

test("what the person typed survives the view's redraws", () => {
  const state = local();
  const form = elicitationForm(fakeModel(), state, asked());
  form.querySelector("[data-field=name]").value = "Ada";
  assert.equal(elicitationForm(fakeModel(), state, asked()), form);
});

test("the form is under its call in a live view only (a stored trace has the answer)", () => {
  const trace = aTrace();
  trace.cards.call_1 = asked();
  const forms = (model) =>
    conversation(model, trace, "t1", local()).filter(
      (p) => p.getAttribute?.("data-testid") === "elicitation-form",
    );
  assert.equal(forms(fakeModel({ live: true })).length, 1);
  assert.equal(forms(fakeModel({ live: false })).length, 0);
  assert.equal(forms(fakeModel({ live: true, offline: true })).length, 0);
});

test("the fields come in the server's order, whatever order the schema's keys arrived in", () => {
  const c = asked();
  c.elicitation.order = ["size", "name", "unknown"];
  const form = elicitationForm(fakeModel(), local(), c);
  const named = [...form.querySelectorAll("[data-field]")].map((e) => e.getAttribute("data-field"));
  assert.deepEqual(named.slice(0, 2), ["size", "name"]);
  assert.equal(named.length, 7); // every field once (fish has two boxes), none made up
});

test("a server named for what it does is not said twice over", () => {
  const card = aCard({
    status: "running",
    elicitation: { state: "asked", server: "asking", message: "Your name?", schema },
  });
  const ask = elicitationForm(fakeModel(), local(), card).querySelector("[data-testid=form-ask]");
  assert.equal(ask.textContent, "‖ asking (MCP server): Your name?");
});
