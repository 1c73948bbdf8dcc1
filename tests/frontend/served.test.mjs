// An MCP endpoint's view: its token only from the kernel, never from its state.
import assert from "node:assert/strict";
import { test } from "node:test";
import { fakeModel, local, view } from "./setup.mjs";

const { servedEndpoint } = await view("served.js");
const STATE = { url: "http://127.0.0.1:8123/mcp", tools: ["shout", "count"], guarded: true };

test("without the kernel's message the token is said to be kept nowhere", () => {
  const el = document.createElement("div");
  servedEndpoint(fakeModel({ ...STATE, token: "from-the-state" }), el, local());
  assert.match(el.textContent, /MCP endpoint http:\/\/127\.0\.0\.1:8123\/mcp/);
  assert.match(el.textContent, /serving shout, count/);
  assert.ok(el.querySelector("[data-testid=served-token-gone]"));
  assert.doesNotMatch(el.textContent, /from-the-state/); // a token in the state is not shown
});

test("the token and the configuration the kernel sent, with copy buttons", () => {
  const el = document.createElement("div");
  const secret = { token: "tok-123", config: '{"headers": {"Authorization": "Bearer tok-123"}}' };
  servedEndpoint(fakeModel(STATE), el, local({ secret }));
  assert.equal(el.querySelector("[data-testid=served-token]").textContent, "tok-123");
  assert.match(el.querySelector("[data-testid=served-config]").textContent, /Bearer tok-123/);
  assert.equal(el.querySelectorAll(".tl-copy").length, 2);
});

test("served without a token says so", () => {
  const el = document.createElement("div");
  servedEndpoint(fakeModel({ ...STATE, guarded: false }), el, local());
  assert.match(el.textContent, /served without a token/);
});
