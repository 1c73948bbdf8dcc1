"""The step loop of one run: drain the queue, assemble context, stream the model, persist the
assistant message, run its tool calls one by one in returned order — persisting each result
before the next starts — and check the stop conditions.

One `TurnLoop` serves a whole run: an ai_human turn (with handoffs), or a dual_ai session of
alternating sides, and the nested turns of prompt tools inside either, each as a `Frame`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..models._base import ModelRequest, ToolSpec
from ._composition import tools_for
from ._definitions import PromptDefinition, ToolDefinition
from ._events import ToolCallFinishedEvent, ToolCallStartedEvent
from ._frames import Frame, StepBudget
from ._graph import ThreadGraph
from ._hooks import HookRunner
from ._messages import Message, ToolCall, unfinished_result
from ._pipeline import content_of, run_tool_call
from ._prompting import MessageWindow, earlier_context, render_system, side_view
from ._run import RunStatus
from ._state import ExecutionInfo, ThreadState
from ._streaming import collect_stream
from ._subagents import Supervisor
from ._values import Side, ToolResult

if TYPE_CHECKING:
    from ._thread import Thread

__all__ = ["RunOutcome", "TurnLoop"]

_INTERRUPTED = "interrupted: the run was stopped before this call finished"


@dataclass
class RunOutcome:
    status: RunStatus = "completed"
    text: str | None = None
    error: str | None = None
    usage: dict[str, int] | None = None
    messages: list[Message] = field(default_factory=list)
    session_status: str | None = None
    result: str | None = None
    attachments: tuple[str, ...] = ()


class TurnLoop:
    def __init__(
        self, thread: Thread, graph: ThreadGraph, run_id: str, *, wait_children: bool = True
    ) -> None:
        self.thread = thread
        self.graph = graph
        self.run_id = run_id
        self.rt = thread._rt
        self.wait_children = wait_children
        self.failures = 0
        self.outcome = RunOutcome()
        self.supervisor = Supervisor(self)
        self._open: dict[str, tuple[Frame, ToolCall]] = {}
        self._last_text_a: str | None = None

    async def before_user_message(self, user: Message) -> Message:
        """The `before_create_message` hooks of side A's prompt, for the run's first message
        (which is persisted together with the run's lease, outside any await)."""
        prompt = self.graph.prompts[self.graph.agent.side_a.prompt]
        hooks = self._hooks(prompt)
        if not hooks.has("before_create_message"):
            return user
        changed = await hooks.run(
            "before_create_message", self._state_for(prompt), user, transform=True
        )
        return changed if isinstance(changed, Message) else user

    async def run(self, user: Message) -> RunOutcome:
        """Run a turn (or a session) for `user`, already persisted as the last message."""
        try:
            start = len(self.thread._history) - 1
            dual = self.graph.agent.type == "dual_ai"
            first = self._top_frame(self.graph.agent.side_a, start, "a" if dual else None)
            self.outcome.messages.append(user)
            prompt = self.graph.prompts[first.prompt_name]
            hooks = self._hooks(prompt)
            if hooks.has("after_create_message"):
                await hooks.run("after_create_message", self._state(first, prompt), user)
            await self.supervisor.start_immediate(first, user)
            await (self._session(start) if dual else self._ai_human(first))
            # Non-blocking children started in this run: wait for them, then let the thread
            # handle the results they queued, until nothing is pending.
            while self.wait_children and self.outcome.status == "completed":
                waited = await self.supervisor.wait()
                if self.thread._has_queued():
                    agent = self.graph.agent
                    await (
                        self._session(start)
                        if dual
                        else self._ai_human(self._top_frame(agent.side_a, start, None))
                    )
                elif not waited:
                    break
        except BaseException:
            # Cancelled, interrupted or crashed mid-step: every call of a persisted assistant
            # message still gets exactly one result, before the exception goes on; the
            # children this run started are cancelled and repaired alike.
            await self.supervisor.cancel_all()
            self._close_open_calls()
            raise
        self._settle_session()
        return self.outcome

    # top-level shapes

    async def _ai_human(self, frame: Frame) -> None:
        while True:
            await self._turn(frame)
            if frame.ending != "handoff" or self.outcome.status != "completed":
                return
            self.graph = self.thread._graph_now()
            frame = self._top_frame(
                self.graph.agent.side_a, frame.turn_start, None, budget=frame.budget
            )

    async def _session(self, start: int) -> None:
        agent = self.graph.agent
        limit = agent.max_session_turns or self.rt.max_session_turns
        label: Any = "a"
        for _ in range(limit):
            side = agent.side_a if label == "a" else agent.side_b
            assert side is not None
            frame = self._top_frame(side, start, label)
            await self._turn(frame)
            if self.outcome.status != "completed":
                return
            if frame.ending in ("session_stop", "session_fail"):
                result = frame.session_result or ToolResult()
                self.outcome.session_status = (
                    "completed" if frame.ending == "session_stop" else "failed"
                )
                self.outcome.result = _result_text(result)
                self.outcome.attachments = tuple(result.attachments)
                return
            label = "b" if label == "a" else "a"
        self.outcome.session_status = "failed"
        self.outcome.result = self._last_text_a
        self.outcome.error = f"the session reached max_session_turns ({limit})"

    def _settle_session(self) -> None:
        if self.outcome.session_status is not None:
            return
        ok = self.outcome.status == "completed"
        self.outcome.session_status = "completed" if ok else "failed"
        self.outcome.result = self.outcome.text if ok else self.outcome.error

    def _top_frame(
        self, side: Side, start: int, label: Any, budget: StepBudget | None = None
    ) -> Frame:
        return Frame(
            prompt_name=side.prompt,
            side=side,
            budget=budget or StepBudget(side.max_steps or self.rt.max_steps),
            label=label,
            dual=label is not None,
            turn_start=start,
        )

    # the step loop

    async def _turn(self, frame: Frame) -> None:
        while True:
            if frame.depth == 0:
                for queued in self.thread._drain_queue():
                    await self._commit(frame, queued, label_free=True)
            if frame.budget.used >= frame.budget.limit:
                self._stop(f"the turn reached max_steps ({frame.budget.limit}) model calls")
                return
            frame.budget.used += 1
            prompt = self._prompt(frame)
            hooks = self._hooks(prompt)
            tools = tools_for(self, frame, prompt)
            assistant = await self._model_step(frame, prompt, hooks, tools)
            if assistant is None:
                return
            if assistant.content:
                frame.last_text = assistant.content
                if frame.depth == 0:
                    self.outcome.text = assistant.content
                    if frame.label == "a":
                        self._last_text_a = assistant.content
            if not assistant.tool_calls:
                if frame.side.stop_on_response:
                    return
                continue
            await self._run_calls(frame, assistant, prompt, hooks, tools)
            if self.outcome.status != "completed" or frame.ending is not None:
                return

    async def _model_step(
        self,
        frame: Frame,
        prompt: PromptDefinition,
        hooks: HookRunner,
        tools: dict[str, ToolDefinition],
    ) -> Message | None:
        state = self._state(frame, prompt)
        env = self.thread._env_required()
        system = render_system(
            prompt, self.graph.registry, lambda n: env.resolve(n, prompt), env.kind
        )
        head = [Message(role="system", content=system)] if system else []
        context: Sequence[Message] = self._context(frame, prompt, head)
        if hooks.has("filter_messages"):
            filtered = await hooks.run(
                "filter_messages", state, list(context[len(head) :]), transform=True
            )
            context = head + list(filtered)
        if hooks.has("prefilter_llm_history"):
            context = list(
                await hooks.run("prefilter_llm_history", state, list(context), transform=True)
            )
        frame.caller_view = context
        request = ModelRequest(
            messages=context,
            tools=[self._spec(t, frame) for t in tools.values()],
            tool_choice=prompt.tool_choice,
            parallel_tool_calls=prompt.parallel_tool_calls,
        )
        base = frame.event_base(self.thread._base())

        async def on_started(event: ToolCallStartedEvent) -> None:
            if hooks.has("tool_call_started"):
                await hooks.run("tool_call_started", state, event)

        try:
            model = self.thread._model_for(prompt)
            stream = model.stream(request)
            draft = await collect_stream(stream, tools, self.thread._emit, on_started, base)
        except Exception as exc:  # provider and model failures end the turn, never the cell
            name = getattr(prompt.model, "name", prompt.model)
            frame.error = self.thread._redact(f"model {name!r} failed: {exc}")
            if frame.depth == 0:
                self.outcome.status = "failed"
                self.outcome.error = frame.error
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
        assistant = await self._commit(frame, assistant, hooks, state)
        for call in assistant.tool_calls:
            self._open[call.id] = (frame, call)
        frame.current_message_id = assistant.id
        return assistant

    def _context(
        self, frame: Frame, prompt: PromptDefinition, head: list[Message]
    ) -> Sequence[Message]:
        history = self.thread._history
        if frame.nested is not None:
            earlier = earlier_context(
                frame.caller_context, prompt.include_chat, prompt.include_past_tools
            )
            return head + earlier + frame.nested
        if frame.dual:
            return head + side_view(history, frame.turn_start, frame.label or "a")
        if frame.earlier is None:
            frame.earlier = earlier_context(
                history[: frame.turn_start], prompt.include_chat, prompt.include_past_tools
            )
        # A window, not a copy: long turns would otherwise copy the history at every step.
        return MessageWindow(head + frame.earlier, history, frame.turn_start)

    async def _run_calls(
        self,
        frame: Frame,
        assistant: Message,
        prompt: PromptDefinition,
        hooks: HookRunner,
        tools: dict[str, ToolDefinition],
    ) -> None:
        limit = self.rt.max_consecutive_failures
        for call in assistant.tool_calls:
            started = time.perf_counter()
            state = self._state(frame, prompt, call)
            if self.failures >= limit or self.outcome.status != "completed":
                reason = self.outcome.error or f"{self.failures} consecutive failed tool calls"
                result = ToolResult("error", error=f"not run: the run stopped ({reason})")
            else:
                result = await run_tool_call(call, tools, state, self._missing_for)
                if hooks.has("before_store_tool_result"):
                    result = await hooks.run(
                        "before_store_tool_result", state, result, transform=True
                    )
            await self._store_result(frame, call, result, started, hooks, state)
            frame.records.append((call, result))
            if result.status == "success":
                self.failures = 0
                self._note_ending(frame, call, result)
            else:
                self.failures += 1
        if self.failures >= limit and self.outcome.status == "completed":
            self._stop(
                f"{self.failures} consecutive tool calls failed (max_consecutive_failures={limit})"
            )

    def _note_ending(self, frame: Frame, call: ToolCall, result: ToolResult) -> None:
        if frame.depth != 0 or frame.ending in ("session_stop", "session_fail"):
            return
        side = frame.side
        if call.name == side.session_stop:
            frame.ending, frame.session_result = "session_stop", result
        elif call.name == side.session_fail:
            frame.ending, frame.session_result = "session_fail", result
        elif call.name == side.stop_tool and frame.ending is None:
            frame.ending = "stop_tool"

    async def _store_result(
        self,
        frame: Frame,
        call: ToolCall,
        result: ToolResult,
        started: float,
        hooks: HookRunner,
        state: ThreadState,
    ) -> None:
        message = Message(
            role="tool",
            content=_result_text(result),
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
                **frame.event_base(self.thread._base()),
            )
        )
        await self._commit(frame, message, hooks, state)
        self._open.pop(call.id, None)
        follow = (
            "after_tool_call_success" if result.status == "success" else "after_tool_call_failure"
        )
        if hooks.has(follow):
            await hooks.run(follow, state, (call, result))

    def _close_open_calls(self) -> None:
        if not self._open:
            return
        self.thread._persist_now(
            [
                frame.stamp(unfinished_result(call, _INTERRUPTED))
                for frame, call in self._open.values()
            ]
        )
        self._open.clear()

    def _stop(self, reason: str) -> None:
        self.outcome.status = "stopped"
        self.outcome.error = reason

    # helpers

    async def _commit(
        self,
        frame: Frame,
        message: Message,
        hooks: HookRunner | None = None,
        state: ThreadState | None = None,
        *,
        label_free: bool = False,
    ) -> Message:
        if not label_free:
            message = frame.stamp(message)
        if hooks is not None and state is not None and hooks.has("before_create_message"):
            message = await hooks.run("before_create_message", state, message, transform=True)
        (message,) = self.thread._persist_now([message], frame.event_base(self.thread._base()))
        if frame.nested is not None:
            frame.nested.append(message)
        else:
            self.outcome.messages.append(message)
        if hooks is not None and state is not None and hooks.has("after_create_message"):
            await hooks.run("after_create_message", state, message)
        return message

    def _prompt(self, frame: Frame) -> PromptDefinition:
        # Resolved at every step, so a redefined prompt takes effect from the next step.
        self.graph = self.thread._graph_now()
        prompt = self.graph.prompts.get(frame.prompt_name) or self.graph.registry.prompt(
            frame.prompt_name
        )
        if prompt is None:
            raise LookupError(f"prompt {frame.prompt_name!r} is no longer defined")
        return prompt

    def _hooks(self, prompt: PromptDefinition) -> HookRunner:
        ids = prompt.hooks or self.graph.agent.hooks
        return HookRunner(self.graph.registry, ids, self.rt.hook_timeout)

    def _spec(self, tool: ToolDefinition, frame: Frame) -> ToolSpec:
        kind = getattr(tool, "kind_hint", None) or "function"
        if frame.depth == 0 and tool.name == frame.side.session_stop:
            kind = "session_stop"
        elif frame.depth == 0 and tool.name == frame.side.session_fail:
            kind = "session_fail"
        return self.rt._tool_spec(tool, kind)

    def _state(
        self, frame: Frame, prompt: PromptDefinition, call: ToolCall | None = None
    ) -> ThreadState:
        execution = ExecutionInfo(
            self.run_id,
            frame.budget.used,
            prompt.name,
            call.id if call else None,
            frame.label,
        )
        return ThreadState(
            self.thread,
            execution,
            prompt,
            call.name if call else None,
            frame.event_base(self.thread._base()),
        )

    def _state_for(self, prompt: PromptDefinition) -> ThreadState:
        return ThreadState(self.thread, ExecutionInfo(self.run_id, 0, prompt.name), prompt)

    def _missing_for(self, tool: ToolDefinition) -> list[tuple[str, str]]:
        env = self.thread._env_required()
        return [
            (v.name, f"tool {tool.name!r}")
            for v in tool.variables
            if v.required and not env.resolve(v.name, None, tool.name)
        ]


def _result_text(result: ToolResult) -> str:
    if result.status == "success":
        return content_of(result.result) if result.result is not None else ""
    return result.error or "the tool reported an error"
