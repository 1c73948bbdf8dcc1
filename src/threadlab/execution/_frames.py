"""A frame is one turn being executed: a side's turn at the top level of a thread, or a
prompt tool's nested turn inside it. A frame is fixed when its turn begins (where its
messages go, its budget, whose turn it is); what the turn's steps produce (its calls' results,
its last answer, how it ended) is its `TurnSoFar`, the one part that changes."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from .._data import EventOrigin, Message, SideName, ToolCall, ToolResult
from ..definitions import Side

__all__ = ["Frame", "StepBudget", "TurnSoFar"]


@dataclass
class StepBudget:
    """Model calls allowed in one top-level turn; nested turns draw from the same budget."""

    limit: int
    used: int = 0


@dataclass
class TurnSoFar:
    """What a turn has produced so far: the one part of a frame its steps change."""

    nested: list[Message] | None = None  # a nested turn's own messages
    earlier: list[Message] | None = None  # earlier turns as this prompt may see them
    records: list[tuple[ToolCall, ToolResult]] = field(default_factory=list)
    last_text: str | None = None
    ending: Literal["stop_tool", "handoff", "session_stop", "session_fail"] | None = None
    handed_to: str | None = None  # a handoff's agent: it answers once this turn has ended
    session_result: ToolResult | None = None
    error: str | None = None  # why the model failed in this turn
    current_message_id: str | None = None  # the assistant message whose calls are running
    caller_view: Sequence[Message] = ()  # the context of the latest model call


@dataclass(frozen=True, eq=False)  # a turn is itself: two turns never compare equal
class Frame:
    """One turn being executed: where its messages go and when it stops, fixed when the turn
    begins; what its steps produce goes into `so_far`."""

    prompt_name: str
    side_config: Side  # the prompt it runs, its stop rules, its subagent relationships
    budget: StepBudget
    side: SideName | None = None  # whose turn, in dual_ai threads
    depth: int = 0
    parent_id: str | None = None  # the caller's assistant message, for nested turns
    parent_tool_call_id: str | None = None
    turn_start: int = 0  # index in the thread's top-level history where this turn began
    caller_messages: Sequence[Message] = ()  # what the caller of a nested turn saw
    so_far: TurnSoFar = field(default_factory=TurnSoFar)

    @property
    def dual(self) -> bool:
        """Whether this turn is one side's in a dual_ai session."""
        return self.side is not None

    def event_base(self, thread_base: EventOrigin) -> EventOrigin:
        return {
            **thread_base,
            "depth": self.depth,
            "parent_tool_call_id": self.parent_tool_call_id,
        }

    def stamp(self, message: Message) -> Message:
        """Give a message this frame's place: depth, parent links and side."""
        if (
            message.depth == self.depth
            and message.parent_id == self.parent_id
            and message.side == self.side
        ):
            return message
        return message.model_copy(
            update={
                "depth": self.depth,
                "parent_id": self.parent_id,
                "parent_tool_call_id": self.parent_tool_call_id,
                "side": self.side,
            }
        )
