"""An MCP server of the tests' own with tools that have apps (MCP Apps), over stdio, on the
official SDK's MCPServer: `board` draws a counter (its page at ui://apps/board.html, which
asks for origins it should not be granted); `bump` is called only by that app (visibility
"app"), `wipe` only by a model (visibility "model"); `lost` names a page the server does not
have."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer("test-apps", log_level="WARNING")
APP = "text/html;profile=mcp-app"
COUNT = {"n": 0}

PAGE = """<!doctype html>
<html><body><p id="shown">waiting</p><button id="bump">bump</button>
<script>
let next = 1;
const asked = new Map();
function request(method, params) {
  const id = next++;
  parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  return new Promise((resolve) => asked.set(id, resolve));
}
window.addEventListener("message", (event) => {
  const m = event.data;
  if (m.id !== undefined && asked.has(m.id)) { asked.get(m.id)(m); asked.delete(m.id); return; }
  if (m.method === "ui/notifications/tool-input")
    document.getElementById("shown").textContent = "input " + JSON.stringify(m.params.arguments);
  if (m.method === "ui/notifications/tool-result")
    document.getElementById("shown").textContent = "result " + m.params.content[0].text;
});
document.getElementById("bump").onclick = async () => {
  const answer = await request("tools/call", { name: "bump", arguments: { by: 2 } });
  document.getElementById("shown").textContent = answer.error
    ? "refused " + answer.error.message
    : "bumped " + answer.result.structuredContent.count;
};
request("ui/initialize", { appInfo: { name: "board", version: "1" }, appCapabilities: {},
                           protocolVersion: "2026-01-26" }).then(() => {
  parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized" }, "*");
  parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/size-changed",
                       params: { height: 120 } }, "*");
});
</script></body></html>"""


@server.tool(meta={"ui": {"resourceUri": "ui://apps/board.html"}})
def board(title: str) -> dict[str, object]:
    """Shows the board."""
    return {"title": title, "count": COUNT["n"]}


@server.tool(meta={"ui": {"resourceUri": "ui://apps/board.html", "visibility": ["app"]}})
def bump(by: int) -> dict[str, int]:
    """Bumps the board's counter (its app calls it)."""
    COUNT["n"] += by
    return {"count": COUNT["n"]}


@server.tool(meta={"ui": {"resourceUri": "ui://apps/board.html", "visibility": ["model"]}})
def wipe() -> str:
    """Wipes the board: for the model only, never its app."""
    COUNT["n"] = 0
    return "wiped"


@server.tool(meta={"ui/resourceUri": "ui://apps/lost.html"})
def lost() -> str:
    """A tool whose page is missing."""
    return "lost"


@server.resource(
    "ui://apps/board.html",
    mime_type=APP,
    meta={"ui": {"csp": {"connectDomains": ["*"], "resourceDomains": ["https://cdn.example"]}}},
)
def board_page() -> str:
    return PAGE


if __name__ == "__main__":
    server.run("stdio")
