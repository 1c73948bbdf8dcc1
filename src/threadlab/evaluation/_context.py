"""What a scorer is given: the case, the thread its run made, the run, and what was
expected."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .._data import Run, ToolCall
from ..runtime import Thread
from ._cases import Case

__all__ = ["EvalContext"]


@dataclass(frozen=True)
class EvalContext:
    """One row's outcome, as scorers read it."""

    case: Case
    thread: Thread
    run: Run
    model: str
    """The model's name as the report shows it."""

    @property
    def expected(self) -> Any:
        """The case's `expected`."""
        return self.case.expected

    @property
    def output(self) -> str:
        """The run's final text ("" when it had none)."""
        return self.run.text or ""

    def tool_calls(self) -> list[ToolCall]:
        """Every tool call the thread's model made, nested prompt turns included."""
        return [c for m in self.thread.all_messages() for c in (m.tool_calls or ())]
