"""`StepRecord`: one step of a thread's history as every reader sees it — a model step, a tool
call, a pause, a subagent's moment, a dual_ai turn — with its place (thread, depth, the step
that contains or caused it), its times and status as of its own end, and what it did.

A record is derived from the stored messages and events (`thread.steps()`): plain data, the
same on every read of the same history."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "Decision",
    "PauseReason",
    "StepKind",
    "StepRecord",
    "StepStatus",
    "SubagentMoment",
    "record_of",
]

StepKind = Literal["model", "tool_call", "pause", "subagent", "turn"]
"""What a step is."""
StepStatus = Literal["running", "completed", "waiting", "interrupted", "failed"]
"""Where a step stands as of its own end: "running" only while the run it belongs to has not
ended; "waiting" a pause no run has gone on from yet; "interrupted" a call whose run ended
without its result; "failed" a subagent's run that failed. A tool call's outcome is its
`tool_status`, beside its status."""
PauseReason = Literal["before_tool", "before_model", "decision"]
"""Why a run paused: step mode before a tool call or a model step, or a call that needs a
decision (its tool's `approval`)."""
SubagentMoment = Literal["created", "reported", "finished"]
"""A subagent step's moment: its thread was created, it reported to its parent, one of its
runs ended."""


@dataclass(frozen=True)
class Decision:
    """The decision on a call that needed one."""

    approved: bool
    """Whether the call ran."""
    by: str
    """Who decided: "approver", "api", "view" or "mcp"."""
    at: float
    """When (epoch seconds)."""
    edited: bool = False
    """Whether it ran with other arguments than the model's (the step's `arguments`)."""
    reason: str | None = None
    """Why it was rejected, when a reason was given."""


@dataclass(frozen=True)
class StepRecord:
    """One step of a thread's history (`thread.steps()`).

    Examples:
        >>> step = StepRecord("msg_1", "model", "thr_1", 0, None, 1.0, 1.5, "completed")
        >>> step.duration_s, step.ended
        (0.5, True)
    """

    id: str
    """Stable across reads: a model step's message id; "call:" with the message and call
    ids; "pause:", "subagent:" and "turn:" with what they are about."""
    kind: StepKind
    thread_id: str
    """The thread it happened in: the thread read, or one of its descendants."""
    depth: int
    """0 in a thread's own conversation; 1 and more inside a prompt tool's nested turn."""
    parent_id: str | None
    """The step that contains or caused it: a prompt tool's call for the steps of its nested
    turn, the call that created a subagent for that child's steps, the call a pause for a
    decision holds back; None at the top."""
    started_at: float
    """When it started (epoch seconds): a model step when its request could be sent (after
    the step before it, or when its run started: time paused is not the model's), a call
    when it started running."""
    ended_at: float | None
    """When it ended; None while it runs or waits."""
    status: StepStatus
    usage: dict[str, int] | None = None
    """A model step's tokens, as its provider reported them."""
    cost_usd: float | None = None
    """A model step's cost, from known prices only."""
    # model
    message_id: str | None = None
    """A model step: its answer; a call: that answer (the model step that made it); a turn:
    the message it answers."""
    model: str | None = None
    """A model step: the model that answered."""
    replayed: bool = False
    """A model step answered from a recording (`tl.models.ReplayModel`)."""
    # tool_call (tool_call_id also names a pause's call)
    tool_call_id: str | None = None
    name: str | None = None
    """A call's tool; a subagent's instance label; the agent a handoff's turn is."""
    arguments: Any = None
    """A call's arguments as it ran (the edited ones when a decision edited them)."""
    proposed_arguments: Any = None
    """The model's arguments, when a decision edited them (else None)."""
    progress: str | None = None
    """The value of the call's progress argument."""
    result: str | None = None
    """The call's result as stored (its error message, for an error)."""
    tool_status: Literal["success", "error"] | None = None
    traceback: str | None = None
    """A call whose tool raised: the traceback, as stored (redacted like the rest)."""
    decision: Decision | None = None
    # pause
    reason: PauseReason | None = None
    # subagent
    child_thread_id: str | None = None
    event: SubagentMoment | None = None
    """A subagent step's moment: "created", "reported" or "finished"."""
    # turn
    side: str | None = None
    """A turn of a dual_ai session: the side ("a" or "b") that answers. A handoff's turn
    has none: its `name` is the agent that answers from there on, its `parent_id` the call
    that handed the thread over."""
    seq: float = field(default=0.0, repr=False)
    """Its place in the store's order of events (where the step opens): what orders a
    thread's steps and its descendants' in one list."""
    _request: Callable[[], Any] | None = field(default=None, repr=False, compare=False)

    @property
    def request(self) -> Any:
        """A model step: what the model was sent (`thread.model_request`), read when asked;
        None for other kinds."""
        return self._request() if self._request is not None else None

    @property
    def ended(self) -> bool:
        """Whether it has ended (a past step never reads "running")."""
        return self.ended_at is not None

    @property
    def duration_s(self) -> float | None:
        """How long it took, once it ended."""
        return None if self.ended_at is None else max(0.0, self.ended_at - self.started_at)


def record_of(fields: dict[str, Any]) -> StepRecord:
    """The step record of `fields` (a subset of its fields; the rest keep their defaults),
    made without the frozen class's per-field `__setattr__`: reading a long thread makes
    thousands, and that was a tenth of the reading's time."""
    record = object.__new__(StepRecord)
    record.__dict__.update(fields)
    return record
