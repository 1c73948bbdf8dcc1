"""How large a served file may be to reach an MCP client whole.

On the 2025 protocols' streamable HTTP every response travels as one server-sent event, and
the official SDK's client reads an event of at most 1 MiB (its `DEFAULT_MAX_SSE_EVENT_SIZE`):
past that it fails the request ("Server-sent event exceeded the 1048576 byte limit"). One
response is one JSON-RPC message, so it cannot be split across events. A `resources/read` of a
file that would not fit is therefore refused, naming the file, its size and the limit, before
anything is sent — the session goes on. The 2026-07-28 protocol answers a read as plain JSON,
which has no such limit: there the file is served whole. In a call's answer (which may travel
as an event on either protocol) a file that would not fit goes as a link to its resource."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["answers_as_events", "event_limit", "fits", "room", "wire_size"]

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
