"""What one run has done and what is open, apart from the loop that advances it: its outcome
so far, the calls persisted without a result, the failures in a row, and what it spent.

The steps (`_steps.py`) change it only through these methods, so how a run ended is said in
one place: `going` until a step stops it, fails it or leaves it waiting."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .._data import (
    ApprovalRequest,
    Run,
    SeenRequest,
    StopReason,
    ToolCall,
    unfinished_result,
)
from ..threads import ThreadContext
from ._frames import Frame
from ._spending import Spend

__all__ = ["RunState"]


@dataclass
class RunState:
    """One run's record while it runs."""

    outcome: Run
    """What the caller gets when the run ends, as it stands now."""
    spend: Spend
    """The run's spending, under the budget of the run at its root."""
    failures: int = 0
    """Failed tool calls in a row."""
    open_calls: dict[str, tuple[Frame, ToolCall]] = field(default_factory=dict)
    """Calls of persisted assistant messages that have no result yet, by call id."""
    last_text_a: str | None = None
    """A dual_ai session's last answer of side A (its result when the session runs out)."""
    ended: StopReason | None = None
    """Why the run ended, once a step ended it (a limit, a failure, a wait); None while it
    goes on. A run that ends with no step ending it completed (the outcome says so from the
    start)."""

    @property
    def going(self) -> bool:
        """Whether the run goes on: no step stopped, failed or paused it."""
        return self.ended is None

    def record(self, **changes: Any) -> None:
        """Record something about the outcome (text, usage, the session's result…)."""
        self.outcome = dataclasses.replace(self.outcome, **changes)

    def stop(self, reason: StopReason, error: str) -> None:
        """A limit ended the run."""
        self.ended = reason
        self.record(status="stopped", stop_reason=reason, error=error)

    def fail(self, error: str) -> None:
        """The model or its provider failed."""
        self.ended = "failed"
        self.record(status="failed", stop_reason="failed", error=error)

    def wait(self, reason: StopReason, error: str, requests: tuple[ApprovalRequest, ...]) -> None:
        """The run pauses until a decision is made on `requests`."""
        self.ended = reason
        self.record(
            status="waiting",
            stop_reason=reason,
            error=error,
            pending=(*self.outcome.pending, *requests),
        )

    def pause_before_model(self, request: SeenRequest) -> None:
        """The run pauses before a model step that would send `request`."""
        self.ended = "waiting: model step"
        self.record(
            status="waiting",
            stop_reason=self.ended,
            error="paused before a model step: resume() sends it",
            next_request=request,
        )

    def pause_before_tool(self, call: ToolCall) -> None:
        """The run pauses before `call` runs (its caller stopped following it): the call and
        those after it in its message stay unanswered, for a resume to run."""
        self.ended = "waiting: tool call"
        self.record(
            status="waiting",
            stop_reason=self.ended,
            error=f"paused before tool call {call.id} ({call.name}): resume() runs it",
        )

    def opened(self, frame: Frame, calls: tuple[ToolCall, ...]) -> None:
        """`calls` were persisted and wait for their results."""
        for call in calls:
            self.open_calls[call.id] = (frame, call)

    def answered(self, call: ToolCall) -> None:
        """`call`'s result is persisted (or it stays open for a later run)."""
        self.open_calls.pop(call.id, None)

    def close_open_calls(self, context: ThreadContext) -> None:
        """Give every open call its "cancelled" result (the run ends without running it)."""
        if not self.open_calls:
            return
        context.persist(
            [
                frame.stamp(unfinished_result(call, "cancelled"))
                for frame, call in self.open_calls.values()
            ]
        )
        self.open_calls.clear()
