"""One small honest test double: a comm that records what a widget sends."""

from __future__ import annotations

import time
from typing import Any, ClassVar

import comm
from comm.base_comm import BaseComm

from ..helpers import synced_state


class RecordingComm(BaseComm):
    sent: ClassVar[list[tuple[float, str, Any]]] = []

    def publish_msg(
        self,
        msg_type: str,
        data: Any = None,
        metadata: Any = None,
        buffers: Any = None,
        **keys: Any,
    ) -> None:
        RecordingComm.sent.append((time.monotonic(), msg_type, data))


def install(monkeypatch: Any) -> list[tuple[float, str, Any]]:
    RecordingComm.sent = []
    monkeypatch.setattr(comm, "create_comm", lambda **kw: RecordingComm(**kw))
    return RecordingComm.sent


def updates(sent: list[tuple[float, str, Any]]) -> list[tuple[float, Any]]:
    """State updates (the messages a view receives while it is displayed), the values sent
    as JSON text (a trace, a history's points) parsed as the front end parses them."""
    return [
        (at, synced_state(data["state"]))
        for at, kind, data in sent
        if kind == "comm_msg" and isinstance(data, dict) and data.get("method") == "update"
    ]


def patches(sent: list[tuple[float, str, Any]]) -> list[dict[str, Any]]:
    """Live patches (custom messages with op "patch"), in the order they were sent."""
    return [
        data["content"]
        for _, kind, data in sent
        if kind == "comm_msg"
        and isinstance(data, dict)
        and data.get("method") == "custom"
        and data["content"].get("op") == "patch"
    ]


def cards_sent(sent: list[tuple[float, str, Any]]) -> list[dict[str, Any]]:
    """Every card the front end was sent, whole traces and patches alike."""
    cards = [c for _, s in updates(sent) if "trace" in s for c in s["trace"]["cards"].values()]
    return cards + [c for p in patches(sent) for c in p.get("cards", {}).values()]


def customs_of(sent: list[tuple[float, str, Any]]) -> list[Any]:
    """The custom messages (replies to the front end's requests) a view sent."""
    return [d["content"] for _, k, d in sent if k == "comm_msg" and d.get("method") == "custom"]
