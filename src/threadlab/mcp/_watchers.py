"""Who watches which resource (`resources/subscribe`): each client session's subscriptions, at
most `MAX_SUBSCRIPTIONS` of them, ended with the session, and how to tell each watcher that a
resource changed (`notifications/resources/updated` on its SDK session)."""

from __future__ import annotations

import contextlib
from typing import Any

__all__ = ["MAX_SUBSCRIPTIONS", "Watchers"]

MAX_SUBSCRIPTIONS = 100
"""The most resources one client session may watch at once."""
_INVALID_REQUEST = -32600


class Watchers:
    """The subscriptions to one endpoint's resources of one kind, by URI and by session."""

    def __init__(self) -> None:
        self._by_uri: dict[str, dict[str, Any]] = {}  # uri -> session -> how to tell it
        self._by_session: dict[str, set[str]] = {}  # session -> the uris it watches

    def subscribe(self, uri: str, session: str, channel: Any) -> None:
        """Tell `session` (through `channel`) when `uri` changes; an MCP error past the
        session's limit."""
        from mcp.shared.exceptions import MCPError

        held = self._by_session.setdefault(session, set())
        if uri not in held and len(held) >= MAX_SUBSCRIPTIONS:
            raise MCPError(_INVALID_REQUEST, (
                f"this session watches {len(held)} resources, the most one may: unsubscribe"
                " from one (resources/unsubscribe) before subscribing to another"
            ), {"limit": MAX_SUBSCRIPTIONS})  # fmt: skip
        held.add(uri)
        self._by_uri.setdefault(uri, {})[session] = channel

    def unsubscribe(self, uri: str, session: str) -> None:
        held = self._by_session.get(session)
        if held is not None:
            held.discard(uri)
            if not held:
                del self._by_session[session]
        watching = self._by_uri.get(uri)
        if watching is not None:
            watching.pop(session, None)
            if not watching:
                del self._by_uri[uri]

    def session_ended(self, session: str) -> None:
        """Drop the subscriptions of a session that ended."""
        for uri in list(self._by_session.get(session, ())):
            self.unsubscribe(uri, session)

    def count(self) -> int:
        """How many subscriptions are held, all sessions together."""
        return sum(len(held) for held in self._by_session.values())

    async def tell(self, uri: str) -> None:
        """Tell every session watching `uri` that it changed."""
        for channel in list(self._by_uri.get(uri, {}).values()):
            with contextlib.suppress(Exception):  # a session that went away
                await channel.send_resource_updated(uri)
