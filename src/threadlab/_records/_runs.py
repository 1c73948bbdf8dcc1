"""What a run did (`Run`), and what a parent knows of each child (`ChildInfo`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict

from ._messages import Message

__all__ = ["ChildInfo", "ForkPoint", "Run", "RunStatus", "SessionStatus", "ThreadStatus"]

RunStatus = Literal["completed", "failed", "interrupted", "stopped", "queued"]
"""How a run ended; see `Run.status`."""

SessionStatus = Literal["completed", "failed"]
"""How a session ended, as its parent sees it."""

ThreadStatus = Literal["queued", "running", "idle", "completed", "failed", "terminated"]
"""A thread is "running" or "idle"; a child also reports its lifecycle: "completed" or
"failed" after its single session, "terminated" once its run was cancelled, "queued" while
it waits for a worker (`Runtime(children="workers")`)."""


@dataclass(frozen=True)
class Run:
    """What one `send()` did.

    Example:
        >>> Run("run_1", "thr_1", "completed", text="done")
        Run(status='completed', text='done', error=None)
    """

    id: str
    """The run's id."""
    thread_id: str
    """The thread it ran on."""
    status: RunStatus
    """"completed" (the turn ended normally), "failed" (the model or provider failed; `error`
    says why), "interrupted" (cancelled), "stopped" (a safety limit ended it), or "queued" (the
    thread was running elsewhere; the message waits in its queue)."""
    text: str | None = None
    """The last assistant text of the turn."""
    error: str | None = None
    """None, or a readable reason for a run that did not complete."""
    usage: dict[str, int] | None = None
    """Token usage summed over the run's model calls (None when no model reported any)."""
    messages: list[Message] = field(default_factory=list)
    """The top-level messages the run added, in order."""
    session_status: SessionStatus | None = None
    """The session outcome as a parent sees it."""
    result: str | None = None
    """The session's result text: the session tool's result, or the last answer."""
    attachments: tuple[str, ...] = ()
    """The session result's attachments (paths in this thread)."""

    def __repr__(self) -> str:
        shown = (self.text or "")[:60]
        return f"Run(status={self.status!r}, text={shown!r}, error={self.error!r})"


class ChildInfo(BaseModel):
    """A child thread as its parent's registry lists it (`state.children`)."""

    model_config = ConfigDict(frozen=True, use_attribute_docstrings=True)
    reference: str
    """The child's address for its parent (its thread id)."""
    agent: str
    """The agent the child runs."""
    name: str
    """The instance label the parent gave it."""
    description: str
    """The agent's tool description."""
    blocking: bool
    """Whether the parent waits for each of its runs."""
    resumable: bool
    """Whether it can be messaged again after its first session."""
    status: ThreadStatus
    """Its lifecycle status."""


@dataclass(frozen=True)
class ForkPoint:
    """Where a branch came from: `thread.forked_from`.

    Example:
        >>> ForkPoint("thr_1", "call_2").at
        'call_2'
    """

    thread_id: str
    """The thread it was forked from."""
    at: str
    """The message or tool call id it was forked at."""
