"""`Elicitation`: someone in the middle of a call asks the user something — an MCP server
threadlab uses, or one of this runtime's own tools (`state.elicit`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Elicitation", "Elicitor"]


@dataclass(frozen=True)
class Elicitation:
    """What is asked (form mode, as MCP's `elicitation/create`): a message and a JSON Schema of
    flat fields (strings, numbers, booleans, enums, with defaults), during a call by a thread —
    of an MCP server's tool (`server` names the server), or of one of the runtime's own tools
    that asks with `state.elicit` (`tool` names it, and `server` is "").

    Examples:
        >>> Elicitation("files", "Overwrite?", {"type": "object", "properties": {}}).server
        'files'
    """

    server: str
    """The server's name, as `define_mcp_server` named it ("" when a tool of the runtime
    asks)."""
    message: str
    """What the server (or the tool) says to the person."""
    schema: Mapping[str, Any] = field(default_factory=dict)
    """The requested schema: the form's fields."""
    thread_id: str | None = None
    """The thread whose call the server is answering (None when it cannot be told)."""
    tool_call_id: str | None = None
    """That call."""
    tool: str | None = None
    """The runtime's own tool that asks (`state.elicit`); None when a server asks."""


Elicitor = Callable[[Elicitation], Mapping[str, Any] | Awaitable[Mapping[str, Any] | None] | None]
"""Answers an elicitation: the form's values (fields left out take the schema's defaults), or
None to decline; sync or async."""
