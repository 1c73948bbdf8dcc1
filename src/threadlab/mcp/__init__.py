"""The registry's tools served over the Model Context Protocol (`tl.mcp.serve`), for Claude
Code, Cursor, VS Code or any MCP client; each call is a thread of the store (the
`threadlab[mcp]` extra). Also what a host of tools' apps (MCP Apps) uses: the event a call
keeps its app in, and `call_for_app`, which runs an app's own tool calls."""

from ..definitions import APP_EVENT
from ..runtime import APP_CALL_EVENT, call_for_app
from ._serve import MCPService, serve

__all__ = ["APP_CALL_EVENT", "APP_EVENT", "MCPService", "call_for_app", "serve"]
