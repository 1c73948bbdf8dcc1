"""What every step of one run works with: the host's services, the thread, its definitions
as of this step, the run's state, and the few things each step does the same way (persist a
message with its hooks, build a tool's `ThreadState`, name a tool's spec)."""

from __future__ import annotations

from typing import Literal

from .._data import Message, SideName, ToolCall
from .._errors import DefinitionError
from ..definitions import PromptDefinition, ThreadDefinitions, ToolDefinition
from ..models import ToolPurpose, ToolSpec
from ..threads import ExecutionInfo, ThreadContext, ThreadState
from ._advance import drive
from ._allowance import DailyAllowance
from ._frames import Frame
from ._hooks import HookRunner, is_message
from ._host import Limits, RunHost
from ._request_log import RequestLog
from ._run_state import RunState
from ._runtime_tool import RuntimeTool
from ._stepping import NO_STEPPING, Stepping
from ._steps import ModelStep
from ._subagents import ChildRunner, Supervisor

__all__ = ["RunScope"]


class RunScope:
    """One run's fixed parts and its state, handed to each step it advances (the `Running`
    the step handlers are written against)."""

    def __init__(
        self,
        host: RunHost,
        context: ThreadContext,
        definitions: ThreadDefinitions,
        state: RunState,
        run_child: ChildRunner,
        *,
        stepping: Stepping = NO_STEPPING,
    ) -> None:
        self.host = host
        self.context = context
        self.definitions = definitions
        """The definitions, re-read at each step (a redefined prompt applies from the next)."""
        self.state = state
        self.run_id = state.outcome.id
        self.limits: Limits = host.limits
        self.stepping = stepping
        """Where the run pauses for a person (a debugger's step)."""
        self.allowance = DailyAllowance.of(host.store, context.identity.record.member, host.budget)
        """The member's daily allowance, when one applies."""
        self.requests = RequestLog(context)
        self.supervisor = Supervisor(self, run_child)
        self._system: Message | None = None  # the last system message, while its text holds

    async def run_turn(self, frame: Frame, *, pause_passed: bool = False) -> None:
        """Advance `frame`'s turn from a model step until no step follows; `pause_passed`:
        the run paused before that model step and goes on from there."""
        await drive(self, ModelStep(frame, pause_passed))

    async def commit(
        self,
        frame: Frame,
        message: Message,
        hooks: HookRunner | None = None,
        state: ThreadState | None = None,
        *,
        side: SideName | Literal["frame"] | None = "frame",
    ) -> Message:
        """Persist `message` in `frame` (its depth, parent links and — unless `side` names
        one — the frame's side), with the message hooks around it."""
        message = frame.stamp(message)
        if side != "frame" and message.side != side:
            message = message.model_copy(update={"side": side})
        if hooks is not None and state is not None and hooks.has("before_create_message"):
            message = await hooks.run(
                "before_create_message", state, message, transform=True, expect=is_message
            )
        (message,) = self.context.persist([message], frame.event_base(self.context.base()))
        if frame.so_far.nested is not None:
            frame.so_far.nested.append(message)
        else:
            self.state.outcome.messages.append(message)
        if hooks is not None and state is not None and hooks.has("after_create_message"):
            await hooks.run("after_create_message", state, message)
        return message

    def system_message(self, text: str) -> Message:
        # The same text at most steps: one record for them rather than a new one each step.
        if self._system is None or self._system.content != text:
            self._system = Message(role="system", content=text)
        return self._system

    def prompt_for(self, frame: Frame) -> PromptDefinition:
        """`frame`'s prompt as defined now."""
        self.definitions = self.context.refresh_definitions()
        prompt = self.definitions.prompts.get(
            frame.prompt_name
        ) or self.definitions.registry.prompt(frame.prompt_name)
        if prompt is None:
            raise DefinitionError(f"prompt {frame.prompt_name!r} is no longer defined")
        return prompt

    def hooks_for(self, prompt: PromptDefinition | None) -> HookRunner:
        """The hooks `prompt` lists (else the agent's)."""
        ids = (prompt.hooks if prompt else ()) or self.definitions.agent.hooks
        return HookRunner(
            self.definitions.registry, ids, self.limits.hook_timeout, self.context.redact
        )

    def spec_for(self, tool: ToolDefinition, frame: Frame) -> ToolSpec:
        """`tool` as offered to the model in `frame`."""
        purpose: ToolPurpose = tool.purpose if isinstance(tool, RuntimeTool) else "function"
        if frame.depth == 0 and tool.name == frame.side_config.session_stop:
            purpose = "session_stop"
        elif frame.depth == 0 and tool.name == frame.side_config.session_fail:
            purpose = "session_fail"
        return self.host.tool_spec(tool, purpose)

    def state_for(
        self, frame: Frame, prompt: PromptDefinition, call: ToolCall | None = None
    ) -> ThreadState:
        """The `ThreadState` a tool (or a hook) gets in `frame`."""
        return ThreadState(
            self.context,
            self.execution_info(frame, prompt, call),
            prompt,
            call.name if call else None,
            frame.event_base(self.context.base()),
            self.host.caller,
        )

    def execution_info(
        self, frame: Frame, prompt: PromptDefinition, call: ToolCall | None = None
    ) -> ExecutionInfo:
        """What `state.execution` says inside `frame`."""
        return ExecutionInfo(
            self.run_id, frame.budget.used, prompt.name, call.id if call else None, frame.side
        )

    def state_outside_calls(self, prompt: PromptDefinition) -> ThreadState:
        """The `ThreadState` of a hook that runs before any step."""
        return ThreadState(
            self.context, ExecutionInfo(self.run_id, 0, prompt.name), prompt,
            caller=self.host.caller,
        )  # fmt: skip

    def missing_for(self, tool: ToolDefinition) -> list[tuple[str, str]]:
        """`tool`'s required variables that do not resolve, named for the error."""
        env = self.context.env
        return [
            (v.name, f"tool {tool.name!r}")
            for v in tool.variables
            if v.required and not env.resolve(v.name, None, tool.name)
        ]
