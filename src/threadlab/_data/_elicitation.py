"""`Elicitation`: an MCP server, in the middle of a call, asks the user something."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Elicitation", "Elicitor"]


@dataclass(frozen=True)
class Elicitation:
    """What a server asks (`elicitation/create`, form mode): a message and a JSON Schema of
    flat fields (strings, numbers, booleans, enums, with defaults), during a call of one of its
    tools by a thread.

    Examples:
        >>> Elicitation("files", "Overwrite?", {"type": "object", "properties": {}}).server
        'files'
    """

    server: str
    """The server's name, as `define_mcp_server` named it."""
    message: str
    """What the server says to the person."""
    schema: Mapping[str, Any] = field(default_factory=dict)
    """The requested schema: the form's fields."""
    thread_id: str | None = None
    """The thread whose call the server is answering (None when it cannot be told)."""
    tool_call_id: str | None = None
    """That call."""


Elicitor = Callable[[Elicitation], Mapping[str, Any] | Awaitable[Mapping[str, Any] | None] | None]
"""Answers an elicitation: the form's values (fields left out take the schema's defaults), or
None to decline; sync or async."""
