"""The steps a run is made of, as values: a model step, a tool call, a wait for a decision on
one, and a wait for the run's children. Each step's handler (`_advance.py`) does it and names
the step that follows, or none when the turn is over; the loop only advances them one at a
time. A new kind of pause (before a model step, say) is one more kind here."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .._data import Message, ToolCall
from ..definitions import PromptDefinition, ToolDefinition
from ._frames import Frame
from ._hooks import HookRunner

__all__ = ["DecisionStep", "ModelStep", "RunStep", "ToolCallStep", "WaitForChildren"]


@dataclass(frozen=True)
class ModelStep:
    """Send the model the turn's input and persist what it answers."""

    frame: Frame
    pause_passed: bool = False
    """The run paused before this step (step mode) and goes on now: it is sent, not paused
    before again."""


@dataclass(frozen=True)
class ToolCallStep:
    """Run one call of a persisted assistant message and persist its result before the next
    step: the calls of a message are steps in the order the model returned them."""

    frame: Frame
    assistant: Message
    """The message whose calls run (only the open ones, when a run resumes it)."""
    index: int
    """Which of its calls."""
    prompt: PromptDefinition
    hooks: HookRunner = field(compare=False)
    tools: dict[str, ToolDefinition] = field(compare=False)
    then_model: bool = True
    """Whether a model step follows the message's last call (not when a resumed run only
    answers the calls its history left open)."""
    decided: bool = False
    """Whether the decision the call needs is made (or it needs none)."""
    edited: ToolCall | None = None
    """The call as a decision edited it."""
    rejection: str | None = None
    """Why a decision refused it: its result is this error, and it does not run."""

    @property
    def call(self) -> ToolCall:
        """The call this step runs."""
        return self.edited or self.assistant.tool_calls[self.index]

    def next(self) -> ToolCallStep | None:
        """The step of the message's next call (None after its last)."""
        if self.index + 1 >= len(self.assistant.tool_calls):
            return None
        return replace(self, index=self.index + 1, decided=False, edited=None, rejection=None)


@dataclass(frozen=True)
class DecisionStep:
    """Wait for the decision `call_step`'s call needs: the approver's, one already on record,
    or a person's later (the run then ends "waiting")."""

    call_step: ToolCallStep


@dataclass(frozen=True)
class WaitForChildren:
    """Wait for the non-blocking children this run started; answer what they (or another
    process) queued for this thread meanwhile."""

    turn_start: int
    dual: bool


RunStep = ModelStep | ToolCallStep | DecisionStep | WaitForChildren
"""Every kind of step."""
