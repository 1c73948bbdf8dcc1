"""`Run`: the outcome of one `send()`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ._messages import Message

__all__ = ["Run", "RunStatus"]

RunStatus = Literal["completed", "failed", "interrupted", "stopped", "queued"]


@dataclass(frozen=True)
class Run:
    """What a run did.

    `status`: "completed" (the turn ended normally), "failed" (the model or provider failed;
    `error` says why), "interrupted" (cancelled), "stopped" (a safety limit ended it), or
    "queued" (the thread was running in another process; the message waits in its queue).
    """

    id: str
    thread_id: str
    status: RunStatus
    text: str | None = None
    error: str | None = None
    usage: dict[str, int] | None = None
    messages: list[Message] = field(default_factory=list)
    # The session outcome, as a parent sees it: "completed" or "failed", the result text (the
    # session tool's result, or the last answer) and the result's attachments.
    session_status: Literal["completed", "failed"] | None = None
    result: str | None = None
    attachments: tuple[str, ...] = ()

    def __repr__(self) -> str:
        shown = (self.text or "")[:60]
        return f"Run(status={self.status!r}, text={shown!r}, error={self.error!r})"
