"""Tools of Model Context Protocol servers as function tools: a runtime's sessions with the
servers `tl.define_mcp_server` names, on the official `mcp` SDK (the `threadlab[mcp]`
extra)."""

from ._connection import MCPConnection
from ._pool import MCPPool, current_pool

__all__ = ["MCPConnection", "MCPPool", "current_pool"]
