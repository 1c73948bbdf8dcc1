"""What a grade reads of a thread: the path its agent took, as `thread.steps()` records it —
the calls it made (its subagents' included), the decisions on them, its final answer, what it
spent — and every text and file it left, for the check that no secret leaked."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .._data import StepRecord
from ._result import one_line

if TYPE_CHECKING:
    from ..runtime import Thread

__all__ = ["AgentPath"]

# The tools every agent with subagents is offered: a check may name them without a definition.
_LIFECYCLE_TOOLS = frozenset({"subagents", "subagent_create", "subagent_message"})
_LARGEST_FILE_READ = 4 * 1024 * 1024


@dataclass(frozen=True)
class AgentPath:
    """One thread's history as the checks read it."""

    thread: Thread

    @cached_property
    def steps(self) -> list[StepRecord]:
        return self.thread.steps()

    @cached_property
    def calls(self) -> list[StepRecord]:
        """Every tool call, in the order made: nested turns' and subagents' included."""
        return [s for s in self.steps if s.kind == "tool_call"]

    def calls_of(self, tool: str) -> list[StepRecord]:
        return [s for s in self.calls if s.name == tool]

    @cached_property
    def answer(self) -> str:
        """The thread's last answer: its last top-level assistant message's text."""
        for message in reversed(self.thread.messages):
            if message.role == "assistant" and message.content:
                return message.content
        return ""

    @cached_property
    def usage(self) -> tuple[int, float]:
        """The tokens (input and output) and the cost of every model step."""
        tokens, cost = 0, 0.0
        for step in self.steps:
            if step.kind == "model":
                usage = step.usage or {}
                tokens += int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0))
                cost += step.cost_usd or 0.0
        return tokens, cost

    def knows_tool(self, tool: str) -> bool:
        """Whether `tool` is a tool this thread could call: a definition of its registry, a
        lifecycle tool, or one it called (an MCP server's)."""
        registry = self.thread._context.registry
        return (
            tool in _LIFECYCLE_TOOLS
            or registry.tool(tool) is not None
            or any(call.name == tool for call in self.calls)
        )

    def unreadable_secrets(self) -> list[str]:
        """The secrets of the thread (and its descendants) this runtime cannot decrypt: their
        values are unknown here, so a leak of them could not be seen."""
        return sorted({name for thread in [self.thread, *_descendants(self.thread)]
                       for name in thread._context.env.unreadable})  # fmt: skip

    def tool_names(self) -> list[str]:
        """The tools this thread could call: its registry's, the lifecycle tools, and those
        it called."""
        registry = self.thread._context.registry
        return sorted({*(t.name for t in registry.tools()), *_LIFECYCLE_TOOLS,
                       *(call.name or "" for call in self.calls)})  # fmt: skip

    def texts(self) -> list[tuple[str, str]]:
        """Every text the history holds, each with where it is: messages (a call's result
        is a tool message), call arguments (of the thread and its descendants), and the
        files as text (those up to 4 MiB)."""
        found: list[tuple[str, str]] = []
        for thread in [self.thread, *_descendants(self.thread)]:
            for message in thread.all_messages():
                where = f"a {message.role} message" + _in(thread, self.thread)
                if message.content:
                    found.append((where, message.content))
                for call in message.tool_calls:
                    arguments = _as_text(call.arguments)
                    found.append((f"the arguments of {_shown(call.name)}"
                                  + _in(thread, self.thread), arguments))  # fmt: skip
            for record in thread.files.list_sync("/"):
                if record.size > _LARGEST_FILE_READ:
                    continue  # a large binary (an image, a dataset) is no place for a key
                content = thread.files.read_sync(record.path)
                found.append((f"the file {_shown(record.path)}" + _in(thread, self.thread),
                              content.decode("utf-8", "replace")))  # fmt: skip
        return found


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _in(thread: Thread, graded: Thread) -> str:
    return "" if thread.id == graded.id else f" of subagent {_shown(thread.name)}"


def _shown(name: str) -> str:
    """A name an agent chose, as a feedback line may quote it: printable, and not long."""
    plain = one_line(name)
    return plain if len(plain) <= 80 else plain[:79] + "…"


def _descendants(thread: Thread) -> list[Thread]:
    found: list[Thread] = []
    for child in thread.children:
        found += [child, *_descendants(child)]
    return found
