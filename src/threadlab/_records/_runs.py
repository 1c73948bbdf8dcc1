"""What a run did (`Run`), and what a parent knows of each child (`ChildInfo`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ._messages import Message

__all__ = [
    "Approval",
    "ApprovalRequest",
    "ChildInfo",
    "ForkPoint",
    "Run",
    "RunStatus",
    "SessionStatus",
    "ThreadStatus",
]

RunStatus = Literal["completed", "failed", "interrupted", "stopped", "queued", "waiting"]
"""How a run ended; see `Run.status`."""

SessionStatus = Literal["completed", "failed"]
"""How a session ended, as its parent sees it."""

ThreadStatus = Literal["queued", "running", "waiting", "idle", "completed", "failed", "terminated"]
"""A thread is "running" or "idle"; a child also reports its lifecycle: "completed" or
"failed" after its single session, "terminated" once its run was cancelled, "queued" while
it waits for a worker (`Runtime(children="workers")`)."""


@dataclass(frozen=True)
class ApprovalRequest:
    """A tool call that waits for a decision (`run.pending`, `thread.pending`), or that an
    approver is asked about."""

    thread_id: str
    """The thread the call is in (a descendant's, for a parent's `pending`)."""
    tool_call_id: str
    """The call."""
    name: str
    """Its tool."""
    arguments: Any
    """The arguments the model gave it."""
    progress: str | None = None
    """Its progress argument's value, when the tool has one."""


@dataclass(frozen=True)
class Approval:
    """An approver's decision: run the call (with these `arguments` instead, when given), or
    not (`reason` says why).

    Example:
        >>> Approval(False, reason="not on Fridays").approved
        False
    """

    approved: bool
    arguments: Mapping[str, Any] | None = None
    reason: str | None = None


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
    pending: tuple[ApprovalRequest, ...] = ()
    """With status "waiting": the calls that wait for a decision."""

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
