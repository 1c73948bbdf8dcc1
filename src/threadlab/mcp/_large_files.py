"""How large a served file (or resource, or prompt) may be to reach an MCP client whole.

On the 2025 protocols' streamable HTTP every response travels as one server-sent event, and
the official SDK's client reads an event of at most 1 MiB (its `DEFAULT_MAX_SSE_EVENT_SIZE`):
past that it fails the request ("Server-sent event exceeded the 1048576 byte limit"). One
response is one JSON-RPC message, so it cannot be split across events. A `resources/read` of a
file or of a defined resource, or a `prompts/get`, that would not fit is therefore refused,
naming it, its size and the limit, before anything is sent — the session goes on. The
2026-07-28 protocol answers a request as plain JSON, which has no such limit: there it is
served whole. In a call's answer (which may travel as an event on either protocol) a file
that would not fit goes as a link to its resource."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["answers_as_events", "event_limit", "fits", "room", "too_large", "wire_size"]

_INVALID_REQUEST = -32600

# The event's own lines and the JSON-RPC envelope around a result: what the limit holds
# besides the result itself.
_ENVELOPE = 4096


def event_limit() -> int:
    """The most bytes of one server-sent event the SDK's client reads."""
    from mcp.client.streamable_http import DEFAULT_MAX_SSE_EVENT_SIZE

    return DEFAULT_MAX_SSE_EVENT_SIZE


def room() -> int:
    """The most bytes a result sent as one event may take."""
    return event_limit() - _ENVELOPE


def wire_size(model: Any) -> int:
    """The bytes of `model` (an SDK type) as JSON on the wire, as its largest spelling: every
    character past ASCII escaped, as one of the SDK's transports writes it."""
    return len(json.dumps(model.model_dump(mode="json", by_alias=True, exclude_none=True),
                          separators=(",", ":")))  # fmt: skip


def fits(model: Any) -> bool:
    return wire_size(model) <= room()


def answers_as_events(ctx: Any) -> bool:
    """Whether the request `ctx` is answered as a server-sent event: on the 2025 protocols'
    streamable HTTP, always (the 2026-07-28 protocol answers a request that sent nothing on
    its way as JSON)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    return getattr(ctx, "protocol_version", None) not in MODERN_PROTOCOL_VERSIONS


def too_large(kind: str, name: str, size: int, elsewhere: str = "") -> Exception:
    """The MCP error refusing `kind` ("Resource", "Prompt") `name` of `size` bytes, too large
    for one event; `elsewhere`: where else it can be had, as ", or ..."."""
    from mcp.shared.exceptions import MCPError

    limit = event_limit()
    return MCPError(_INVALID_REQUEST, (
        f"{kind} too large to send: {name} is {size:,} bytes, and on this protocol a response"
        f" travels as one server-sent event, which the MCP SDK's client reads up to {limit:,}"
        " bytes (1 MiB); ask for it on protocol 2026-07-28 (answered as JSON there)"
        f"{elsewhere}"
    ), {"name": name, "size": size, "limit": limit})  # fmt: skip
