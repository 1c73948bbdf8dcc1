"""The step loop of one run: drain the queue, assemble context, stream the model, persist the
assistant message, run its tool calls one by one in returned order — persisting each result
before the next starts — and check the stop conditions."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..models._base import ModelRequest, ToolSpec
from ._definitions import PromptDefinition, ToolDefinition
from ._events import ToolCallFinishedEvent, ToolCallStartedEvent
from ._graph import ThreadGraph
from ._hooks import HookRunner
from ._messages import Message, ToolCall
from ._pipeline import content_of, run_tool_call
from ._prompting import MessageWindow, earlier_context, render_system
from ._run import RunStatus
from ._state import ExecutionInfo, ThreadState
from ._streaming import collect_stream
from ._values import ToolResult

if TYPE_CHECKING:
    from ._thread import Thread

__all__ = ["RunOutcome", "TurnLoop"]


@dataclass
class RunOutcome:
    status: RunStatus = "completed"
    text: str | None = None
    error: str | None = None
    usage: dict[str, int] | None = None
    messages: list[Message] = field(default_factory=list)


class TurnLoop:
    """Runs one turn of a thread's side A (an ai_human agent or a bare prompt)."""

    def __init__(self, thread: Thread, graph: ThreadGraph, run_id: str) -> None:
        self.thread = thread
        self.graph = graph
        self.run_id = run_id
        self.rt = thread._rt
        self.side = graph.agent.side_a
        self.max_steps = self.side.max_steps or self.rt.max_steps
        self.failures = 0
        self.steps = 0
        self.outcome = RunOutcome()
        self._open_calls: list[ToolCall] = []

    async def run(self, user: Message) -> RunOutcome:
        turn_start = len(self.thread._history)
        try:
            await self._commit(user)
            earlier: list[Message] | None = None
            while True:
                for queued in self.thread._drain_queue():
                    await self._commit(queued)
                if self.steps >= self.max_steps:
                    return self._stop(f"the turn reached max_steps ({self.max_steps}) model calls")
                self.steps += 1
                prompt = self._prompt()
                if earlier is None:
                    earlier = earlier_context(
                        self.thread._history[:turn_start],
                        prompt.include_chat,
                        prompt.include_past_tools,
                    )
                hooks = self._hooks(prompt)
                tools = self._tools(prompt)
                assistant = await self._model_step(prompt, hooks, tools, earlier, turn_start)
                if assistant is None:
                    return self.outcome
                if assistant.content:
                    self.outcome.text = assistant.content
                if not assistant.tool_calls:
                    if self.side.stop_on_response:
                        return self.outcome
                    continue
                stop_tool_succeeded = await self._run_calls(assistant, prompt, hooks, tools)
                if self.outcome.status == "stopped":
                    return self.outcome
                if stop_tool_succeeded:
                    return self.outcome
        except BaseException:
            # Cancelled, interrupted or crashed mid-step: every call of the persisted assistant
            # message still gets exactly one result, before the exception goes on.
            self._close_open_calls("interrupted: the run was stopped before this call finished")
            raise

    # steps

    async def _model_step(
        self,
        prompt: PromptDefinition,
        hooks: HookRunner,
        tools: dict[str, ToolDefinition],
        earlier: list[Message],
        turn_start: int,
    ) -> Message | None:
        state = self._state(prompt)
        env = self.thread._env_required()
        system = render_system(
            prompt, self.graph.registry, lambda n: env.resolve(n, prompt), env.kind
        )
        head = [Message(role="system", content=system)] if system else []
        context: Sequence[Message]
        if hooks.has("filter_messages"):
            history = earlier + self.thread._history[turn_start:]
            history = list(await hooks.run("filter_messages", state, history, transform=True))
            context = head + history
        else:
            context = MessageWindow(head + earlier, self.thread._history, turn_start)
        if hooks.has("prefilter_llm_history"):
            context = list(
                await hooks.run("prefilter_llm_history", state, list(context), transform=True)
            )
        request = ModelRequest(
            messages=context,
            tools=[self._spec(t) for t in tools.values()],
            tool_choice=prompt.tool_choice,
            parallel_tool_calls=prompt.parallel_tool_calls,
        )
        model = self.thread._model_for(prompt)

        async def on_started(event: ToolCallStartedEvent) -> None:
            if hooks.has("tool_call_started"):
                await hooks.run("tool_call_started", state, event)

        try:
            draft = await collect_stream(
                model.stream(request), tools, self.thread._emit, on_started, self.thread._base()
            )
        except Exception as exc:  # provider and model failures end the run, never the cell
            name = getattr(model, "name", type(model).__name__)
            self.outcome.status = "failed"
            self.outcome.error = self.thread._redact(f"model {name!r} failed: {exc}")
            return None
        if draft.usage:
            total = self.outcome.usage or {}
            for key, value in draft.usage.items():
                total[key] = total.get(key, 0) + value
            self.outcome.usage = total
        assistant = Message(
            role="assistant",
            content=draft.text or None,
            tool_calls=tuple(draft.calls),
            usage=draft.usage,
        )
        assistant = await self._commit(assistant, hooks, state)
        self._open_calls = list(assistant.tool_calls)
        return assistant

    async def _run_calls(
        self,
        assistant: Message,
        prompt: PromptDefinition,
        hooks: HookRunner,
        tools: dict[str, ToolDefinition],
    ) -> bool:
        stop_tool_succeeded = False
        for call in assistant.tool_calls:
            if self.failures >= self.rt.max_consecutive_failures:
                result = ToolResult(
                    "error",
                    error="not run: the run stopped after"
                    f" {self.failures} consecutive failed tool calls",
                )
                started = time.perf_counter()
            else:
                state = self._state(prompt, call.id, call.name)
                started = time.perf_counter()
                result = await run_tool_call(call, tools, state, self._missing_for)
                if hooks.has("before_store_tool_result"):
                    result = await hooks.run(
                        "before_store_tool_result", state, result, transform=True
                    )
            await self._store_result(call, result, started, hooks, prompt)
            if result.status == "success":
                self.failures = 0
                if call.name == self.side.stop_tool:
                    stop_tool_succeeded = True
            else:
                self.failures += 1
        if self.failures >= self.rt.max_consecutive_failures:
            self._stop(
                f"{self.failures} consecutive tool calls failed"
                f" (max_consecutive_failures={self.rt.max_consecutive_failures})"
            )
        return stop_tool_succeeded

    async def _store_result(
        self,
        call: ToolCall,
        result: ToolResult,
        started: float,
        hooks: HookRunner,
        prompt: PromptDefinition,
    ) -> None:
        if result.status == "success":
            content = content_of(result.result) if result.result is not None else ""
        else:
            content = result.error or "the tool reported an error"
        message = Message(
            role="tool",
            content=content,
            tool_call_id=call.id,
            name=call.name,
            tool_status=result.status,
            attachments=result.attachments,
        )
        self.thread._emit(
            ToolCallFinishedEvent(
                tool_call_id=call.id,
                name=call.name,
                status=result.status,
                duration_ms=(time.perf_counter() - started) * 1000,
                **self.thread._base(),
            )
        )
        state = self._state(prompt, call.id, call.name)
        await self._commit(message, hooks, state)
        self._open_calls = [c for c in self._open_calls if c.id != call.id]
        follow = (
            "after_tool_call_success" if result.status == "success" else "after_tool_call_failure"
        )
        if hooks.has(follow):
            await hooks.run(follow, state, (call, result))

    def _close_open_calls(self, reason: str) -> None:
        if not self._open_calls:
            return
        self.thread._persist_now(
            [
                Message(
                    role="tool",
                    content=reason,
                    tool_call_id=call.id,
                    name=call.name,
                    tool_status="error",
                )
                for call in self._open_calls
            ]
        )
        self._open_calls = []

    def _stop(self, reason: str) -> RunOutcome:
        self.outcome.status = "stopped"
        self.outcome.error = reason
        return self.outcome

    # helpers

    async def _commit(
        self, message: Message, hooks: HookRunner | None = None, state: ThreadState | None = None
    ) -> Message:
        if hooks is not None and state is not None and hooks.has("before_create_message"):
            message = await hooks.run("before_create_message", state, message, transform=True)
        message = self.thread._persist_now([message])[0]
        self.outcome.messages.append(message)
        if hooks is not None and state is not None and hooks.has("after_create_message"):
            await hooks.run("after_create_message", state, message)
        return message

    def _prompt(self) -> PromptDefinition:
        # Resolved at every step, so a redefined prompt takes effect from the next step.
        self.graph = self.thread._graph_now()
        return self.graph.prompts[self.side.prompt]

    def _hooks(self, prompt: PromptDefinition) -> HookRunner:
        ids = prompt.hooks or self.graph.agent.hooks
        return HookRunner(self.graph.registry, ids, self.rt.hook_timeout)

    def _tools(self, prompt: PromptDefinition) -> dict[str, ToolDefinition]:
        return {n: self.graph.tools[n] for n in prompt.tool_names() if n in self.graph.tools}

    def _spec(self, tool: ToolDefinition) -> ToolSpec:
        return self.thread._rt._tool_spec(tool)

    def _state(
        self, prompt: PromptDefinition, call_id: str | None = None, tool: str | None = None
    ) -> ThreadState:
        execution = ExecutionInfo(self.run_id, self.steps, prompt.name, call_id)
        return ThreadState(self.thread, execution, prompt, tool)

    def _missing_for(self, tool: ToolDefinition) -> list[tuple[str, str]]:
        env = self.thread._env_required()
        prompt = self.graph.prompts[self.side.prompt]
        return [
            (v.name, f"tool {tool.name!r}")
            for v in tool.variables
            if v.required and not env.resolve(v.name, prompt, tool.name)
        ]
