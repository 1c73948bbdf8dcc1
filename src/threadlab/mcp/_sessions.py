"""The MCP sessions of a served endpoint's clients: which one a request belongs to, and word
when one ends, so that what a session held (its subscriptions, its waiting calls, its log
level) goes with it.

A session is the `mcp-session-id` of the 2025 protocols' streamable HTTP; the 2026-07-28
protocol's requests stand alone, with none ("" here). It ends when the client closes it (HTTP
DELETE), the SDK drops it for idling, or the endpoint stops: then the SDK unwinds the
connection's exit stack, where the first request of the session left a callback."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._client_channel import session_id

__all__ = ["Sessions"]


class Sessions:
    """The sessions seen by one endpoint; `on_end(session)` is called once as each ends."""

    def __init__(self, on_end: Callable[[str], None]) -> None:
        self._on_end = on_end
        self._watched: set[str] = set()

    def of(self, ctx: Any) -> str:
        """The session of the request `ctx` ("" where the transport has none), watched for
        its end from its first request on."""
        session = session_id(ctx)
        if session and session not in self._watched:
            # The SDK's request context does not name its connection; its session proxy
            # holds it. Should that change, sessions are still told apart, and what they hold
            # is bounded per session, only kept until the endpoint stops.
            connection = getattr(getattr(ctx, "session", None), "_connection", None)
            ends = getattr(connection, "exit_stack", None)
            if ends is not None:
                self._watched.add(session)
                ends.callback(self._ended, session)
        return session

    def _ended(self, session: str) -> None:
        self._watched.discard(session)
        self._on_end(session)
