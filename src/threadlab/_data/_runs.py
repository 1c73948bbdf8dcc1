"""What a run did (`Run`), and what a parent knows of each child (`ChildInfo`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .._errors import ThreadlabError
from ._messages import Message
from ._seen import SeenRequest

__all__ = [
    "Approval",
    "ApprovalRequest",
    "Budget",
    "ChildInfo",
    "ForkPoint",
    "Run",
    "RunStatus",
    "SessionStatus",
    "StopReason",
    "ThreadStatus",
]

RunStatus = Literal["completed", "failed", "interrupted", "stopped", "queued", "waiting"]
"""How a run ended; see `Run.status`."""

StopReason = Literal[
    "completed",
    "failed",
    "interrupted",
    "queued",
    "stopped: budget",
    "stopped: max_steps",
    "stopped: max_consecutive_failures",
    "waiting: approval",
    "waiting: model step",
    "waiting: subagent",
    "waiting: tool call",
]
"""Why a run ended, as a value a program can branch on (`Run.stop_reason`): the status, and for
"stopped" and "waiting" which limit or which wait. `Run.error` says the same in words."""

_REASON_OF_STATUS: dict[str, StopReason] = {
    "completed": "completed",
    "failed": "failed",
    "interrupted": "interrupted",
    "queued": "queued",
    "waiting": "waiting: approval",
}

SessionStatus = Literal["completed", "failed"]
"""How a session ended, as its parent sees it."""

ThreadStatus = Literal["queued", "running", "waiting", "idle", "completed", "failed", "terminated"]
"""What a thread is doing now (`Thread.status`; `ChildInfo.status` for a child): "running"
while a run of it is live, in this process or another; "waiting" once its last run ended
"waiting" (a call waits for a decision, a step-mode pause, a blocking child that paused),
until a run goes on from there; "idle" otherwise. A child also reports its lifecycle:
"queued" while it waits for the runtime's engine (`tl.Runtime(engine=...)`), "completed" or
"failed" after its single session (a child that could not run at all is "failed" too),
"terminated" once its run was cancelled."""


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
    """Its progress argument's value, when the tool has one ("deleting old.log")."""
    message_id: str | None = None
    """The assistant message that made the call (a model may repeat a call id in later
    replies; the decision is bound to this call of this message)."""


@dataclass(frozen=True)
class Approval:
    """An approver's decision: run the call (with these `arguments` instead, when given), or
    not (`reason` says why).

    Examples:
        >>> Approval(False, reason="not on Fridays").approved
        False
    """

    approved: bool
    arguments: Mapping[str, Any] | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Budget:
    """The most one run may spend, its descendants' model calls included: a model step that
    would start past it ends the run "stopped", naming the budget. Costs come from known
    prices only (`Run.cost_usd`). The `_per_day` limits bound what a member (`tl.Runtime(
    user=)`) spends in a day (UTC), every process on the store together: the store keeps
    the account.

    Examples:
        >>> Budget(max_tokens=20_000).max_cost_usd is None
        True
        >>> Budget(max_cost_usd=0)
        Traceback (most recent call last):
        ...
        threadlab._errors.ThreadlabError: Budget: max_cost_usd must be positive, got 0
    """

    max_tokens: int | None = None
    """Input and output tokens together."""
    max_cost_usd: float | None = None
    """US dollars."""
    max_tokens_per_day: int | None = None
    """A member's tokens in a day, across processes."""
    max_cost_usd_per_day: float | None = None
    """A member's US dollars in a day, across processes."""

    def __post_init__(self) -> None:
        for name in ("max_tokens", "max_cost_usd", "max_tokens_per_day", "max_cost_usd_per_day"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int | float) or value <= 0
            ):
                raise ThreadlabError(f"Budget: {name} must be positive, got {value!r}")


@dataclass(frozen=True)
class Run:
    """What one `send()` did.

    Examples:
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
    next_request: SeenRequest | None = None
    """With stop reason "waiting: model step" (`send(step="model")`): the request the next
    model step is about to send — its messages (system prompt included, redacted), the tools
    on offer and the options; `resume()` sends it."""
    cost_usd: float | None = 0.0
    """What its model calls cost, its descendants' included, from known prices (US dollars);
    None when a step's price is unknown."""
    stop_reason: StopReason | None = None
    """Why it ended: `status`, and which limit stopped it or what it waits for
    ("stopped: budget", "waiting: approval", …). Given from `status` when not set, except for
    "stopped", which always says its limit."""

    def __post_init__(self) -> None:
        if self.stop_reason is None and self.status in _REASON_OF_STATUS:
            object.__setattr__(self, "stop_reason", _REASON_OF_STATUS[self.status])

    def __repr__(self) -> str:
        shown = (self.text or "")[:60]
        return f"Run(status={self.status!r}, text={shown!r}, error={self.error!r})"


class ChildInfo(BaseModel):
    """A child thread as its parent's registry lists it (`state.children`)."""

    model_config = ConfigDict(frozen=True)
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

    Examples:
        >>> ForkPoint("thr_1", "call_2").at
        'call_2'
    """

    thread_id: str
    """The thread it was forked from."""
    at: str
    """The message or tool call id it was forked at."""
