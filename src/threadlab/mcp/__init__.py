"""The registry's tools served over the Model Context Protocol (`tl.mcp.serve`), for Claude
Code, Cursor, VS Code or any MCP client; each call is a thread of the store (the
`threadlab[mcp]` extra)."""

from ._serve import MCPService, serve

__all__ = ["MCPService", "serve"]
