"""What a run needs from the runtime that hosts it, as a small interface: the registry and
store, the limits, the approver and budget, model resolution, tool specs, and making child
threads. The runtime implements it; nothing in this package imports the runtime."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

from .._data import Budget
from ..definitions import AgentDefinition, Registry, Resolve, Subagent, ToolDefinition
from ..models import Model, ToolPurpose, ToolSpec
from ..store import Store
from ..threads import Caller, ThreadContext
from ._approvals import Approver
from ._stepping import Stepping

__all__ = ["Limits", "RunHost"]


@dataclass(frozen=True)
class Limits:
    """The safety limits of every run of a runtime."""

    max_consecutive_failures: int = 10
    max_steps: int = 50
    max_session_turns: int = 20
    hook_timeout: float = 10.0
    poll_interval: float = 1.0


class RunHost(Protocol):
    """The runtime, as a run sees it."""

    @property
    def registry(self) -> Registry: ...
    @property
    def store(self) -> Store: ...
    @property
    def limits(self) -> Limits: ...
    @property
    def approver(self) -> Approver | None:
        """Asked before each call that needs a decision (None: such a call pauses the run)."""
        ...

    @property
    def budget(self) -> Budget | None:
        """What every run may spend, its descendants' model calls included."""
        ...

    @property
    def caller(self) -> Caller:
        """Whom a tool's `state.elicit` and `state.sample` ask, outside a served call (the
        elicitor; the thread's own model)."""
        ...

    async def prepare_definitions(self) -> None:
        """Make the definitions a run may need available before its definitions is read (the
        tools of MCP servers are listed from the servers)."""
        ...

    def resolve_model(self, chosen: Any, variables: Resolve) -> Model:
        """The model for a name or model object (`DefinitionError` if there is none);
        `variables` gives a remote model its key."""
        ...

    def tool_spec(self, tool: ToolDefinition, purpose: ToolPurpose) -> ToolSpec:
        """A tool as offered to a model."""
        ...

    def create_child(
        self, parent: ThreadContext, relationship: Subagent, label: str, agent: AgentDefinition
    ) -> ThreadContext:
        """A new child thread of `parent` (`MissingVariableError`, and nothing created, when
        its required variables do not resolve)."""
        ...

    def hand_off(self, context: ThreadContext, step: Stepping = ...) -> asyncio.Future[Any]:
        """Leave the thread (its message queued, `runs_on` "engine") to the runtime's engine,
        which runs it elsewhere (a Ray task, run again if its worker dies) under this
        runtime's limits, approver and budget, pausing where `step` says; its
        outcome and report reach the store. The future ends when the engine is done with
        it, however the run ended: until then nobody here repairs the thread."""
        ...
