"""Tools of Model Context Protocol servers as function tools: a runtime's sessions with the
servers `tl.define_mcp_server` names, on the official `mcp` SDK (the `threadlab[mcp]`
extra)."""

from ._connection import MCPConnection
from ._pool import MCPPool, ServerSampler, current_pool
from ._results import MAX_RESULT_CHARS
from ._server_requests import CallScope, ask_person, form_refusal

__all__ = [
    "MAX_RESULT_CHARS",
    "CallScope",
    "MCPConnection",
    "MCPPool",
    "ServerSampler",
    "ask_person",
    "current_pool",
    "form_refusal",
]
