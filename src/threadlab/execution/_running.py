"""A run as its steps see it (`RunScope` is the one there is): what the step handlers use,
declared here so they need not import the scope that drives them."""

from __future__ import annotations

from typing import Literal, Protocol

from .._data import Message, SideName, ToolCall
from ..definitions import PromptDefinition, ThreadDefinitions, ToolDefinition
from ..models import ToolSpec
from ..threads import ExecutionInfo, ThreadContext, ThreadState
from ._allowance import DailyAllowance
from ._frames import Frame
from ._hooks import HookRunner
from ._host import Limits, RunHost
from ._request_log import RequestLog
from ._run_state import RunState
from ._stepping import Stepping
from ._subagents import Supervisor

__all__ = ["Running"]


class Running(Protocol):
    """One run's fixed parts, its state, and what each step does the same way."""

    host: RunHost
    context: ThreadContext
    definitions: ThreadDefinitions
    state: RunState
    run_id: str
    limits: Limits
    stepping: Stepping
    allowance: DailyAllowance | None
    requests: RequestLog
    supervisor: Supervisor

    async def run_turn(self, frame: Frame, *, pause_passed: bool = False) -> None: ...

    async def commit(
        self,
        frame: Frame,
        message: Message,
        hooks: HookRunner | None = None,
        state: ThreadState | None = None,
        *,
        side: SideName | Literal["frame"] | None = "frame",
    ) -> Message: ...

    def system_message(self, text: str) -> Message: ...
    def prompt_for(self, frame: Frame) -> PromptDefinition: ...
    def hooks_for(self, prompt: PromptDefinition | None) -> HookRunner: ...
    def spec_for(self, tool: ToolDefinition, frame: Frame) -> ToolSpec: ...
    def state_for(
        self, frame: Frame, prompt: PromptDefinition, call: ToolCall | None = None
    ) -> ThreadState: ...
    def execution_info(
        self, frame: Frame, prompt: PromptDefinition, call: ToolCall | None = None
    ) -> ExecutionInfo: ...
    def missing_for(self, tool: ToolDefinition) -> list[tuple[str, str]]: ...
