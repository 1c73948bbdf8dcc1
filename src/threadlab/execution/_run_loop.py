"""The step loop of one run: drain the queue, assemble the model's input, stream the model,
persist the assistant message, run its tool calls one by one in returned order — persisting
each result before the next starts — and check the stop conditions.

One `RunLoop` serves a whole run: an ai_human turn (with handoffs), or a dual_ai session of
alternating sides, and the nested turns of prompt tools inside either, each as a `Frame`.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Coroutine, Sequence
from typing import Any, Literal

from .._data import (
    ApprovalDecidedEvent,
    ApprovalRequest,
    ApprovalRequestedEvent,
    HookName,
    Message,
    Run,
    SideName,
    ToolCall,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
    ToolResult,
    answers,
    is_text,
    unfinished_result,
)
from .._errors import DefinitionError, PathError, ReplayDivergedError
from ..definitions import PromptDefinition, Side, ThreadGraph, ToolDefinition
from ..models import ModelRequest, ToolPurpose, ToolSpec, provider_name, step_cost
from ..threads import ExecutionInfo, ThreadContext, ThreadState
from ._approvals import (
    ask,
    claim_decision,
    decision_on,
    needs_decision,
    pending_requests,
    progress_of,
)
from ._exposed_tools import tools_for
from ._frames import Frame, StepBudget
from ._hooks import HookRunner
from ._host import RunHost
from ._prompting import MessageWindow, earlier_messages, render_system, side_view
from ._request_log import RequestLog
from ._runtime_tool import RuntimeTool
from ._spending import SPENDING, Spend
from ._streaming import collect_stream
from ._subagents import ChildRunner, Supervisor
from ._tool_call import result_message, result_text, run_tool_call

__all__ = ["RunLoop"]


class RunLoop:
    """Everything one run does, from its first message until the thread is idle again."""

    def __init__(
        self,
        host: RunHost,
        context: ThreadContext,
        graph: ThreadGraph,
        run_id: str,
        run_child: ChildRunner,
        *,
        wait_children: bool = True,
        step: bool = False,
    ) -> None:
        self.host = host
        self.step = step  # every top-level call waits for a decision (a debugger's step)
        self.context = context
        self.graph = graph
        self.run_id = run_id
        self.limits = host.limits
        self.wait_children = wait_children
        self.failures = 0
        self.outcome = Run(run_id, context.id, "completed")
        self.supervisor = Supervisor(self, run_child)
        self._open: dict[str, tuple[Frame, ToolCall]] = {}
        self._last_text_a: str | None = None
        self._system: Message | None = None  # the last system message, while its text holds
        self.requests = RequestLog(context)
        above = SPENDING.get()  # a child's run adds to its parent's, under the root's budget
        self.spend = Spend(host.budget if above is None else None, above)

    def update(self, **changes: Any) -> None:
        """Record something about the run's outcome."""
        self.outcome = dataclasses.replace(self.outcome, **changes)

    @property
    def completed(self) -> bool:
        """Whether the run is still going normally (not failed, stopped or interrupted)."""
        return self.outcome.status == "completed"

    async def before_user_message(self, user: Message) -> Message:
        """The `before_create_message` hooks of side A's prompt, for the run's first message
        (which is persisted together with the run's lease, outside any await)."""
        prompt = self.graph.prompts[self.graph.agent.side_a.prompt]
        hooks = self.hooks_for(prompt)
        if not hooks.has("before_create_message"):
            return user
        changed = await hooks.run(
            "before_create_message",
            self._state_outside_calls(prompt),
            user,
            transform=True,
            expect=_is_message,
        )
        return changed if isinstance(changed, Message) else user

    async def run(self, user: Message) -> Run:
        """Run a turn (or a session) for `user`, already persisted as the last message."""
        return await self._guarded(self._from_message(user))

    async def resume(self) -> Run:
        """Go on from the stored history, with no new message: run the unanswered calls of
        the last assistant message in order (the results before them are kept), then step
        until the turn ends. The turn is counted from the last user message."""
        return await self._guarded(self._from_history())

    async def _guarded(self, body: Coroutine[Any, Any, None]) -> Run:
        spending = SPENDING.set(self.spend)
        try:
            await body
        except BaseException:
            # Cancelled, interrupted or crashed mid-step: every call of a persisted assistant
            # message still gets exactly one result, before the exception goes on (first, and
            # without awaiting, so a second cancel cannot skip it); the children this run
            # started are cancelled and repaired alike, shielded from that second cancel.
            self._close_open_calls()
            await asyncio.shield(self.supervisor.cancel_all())
            raise
        finally:
            SPENDING.reset(spending)
            self.update(cost_usd=self.spend.cost_usd)
        self._settle_session()
        return self.outcome

    async def _from_message(self, user: Message) -> None:
        start = len(self.context.history.top) - 1
        dual = self.graph.agent.type == "dual_ai"
        first = self._top_frame(self.graph.agent.side_a, start, "a" if dual else None)
        self.outcome.messages.append(user)
        prompt = self.graph.prompts[first.prompt_name]
        hooks = self.hooks_for(prompt)
        if hooks.has("after_create_message"):
            await hooks.run("after_create_message", self.state_for(first, prompt), user)
        await self.supervisor.start_immediate(first, user)
        await (self._session(start) if dual else self._ai_human(first))
        await self._answer_children(start, dual)

    async def _from_history(self) -> None:
        history = self.context.history.top
        start = _turn_start(history)
        dual = self.graph.agent.type == "dual_ai"
        side: SideName | None = (history[-1].side or "a") if dual else None
        agent = self.graph.agent
        side_config = agent.side_b if side == "b" and agent.side_b else agent.side_a
        frame = self._top_frame(side_config, start, side)
        calling = _calling(history)
        if calling is not None:
            await self._run_open_calls(frame, calling)
        if self.completed and not self._session_ended(frame):
            if side is not None:  # a dual_ai session goes on from the side whose turn it was
                following = side if frame.ending is None else _other(side)
                await self._session(start, first=following)
            elif frame.ending is None:
                await self._ai_human(frame)
        await self._answer_children(start, dual)

    async def _run_open_calls(self, frame: Frame, assistant: Message) -> None:
        """Run the calls of `assistant` that have no result yet, in `frame`."""
        answered = answers(self.context.history.top)
        open_calls = tuple(c for c in assistant.tool_calls if (assistant.id, c.id) not in answered)
        if not open_calls:
            return
        prompt = self._prompt(frame)
        hooks = self.hooks_for(prompt)
        tools = tools_for(self, frame, prompt)
        frame.current_message_id = assistant.id
        base = frame.event_base(self.context.base())
        for call in open_calls:
            self._open[call.id] = (frame, call)
            # Its card and the hook, as when the call streamed in: it was never started.
            event = self.context.events.emit(
                ToolCallStartedEvent(
                    tool_call_id=call.id,
                    name=call.name,
                    progress=progress_of(tools.get(call.name), call),
                    **base,
                )
            )
            if hooks.has("tool_call_started"):
                await hooks.run("tool_call_started", self.state_for(frame, prompt), event)
        await self._run_calls(
            frame, assistant.model_copy(update={"tool_calls": open_calls}), prompt, hooks, tools
        )

    async def _answer_children(self, start: int, dual: bool) -> None:
        """Non-blocking children started in this run: wait for them, then let the thread
        handle the results they queued, until nothing is pending."""
        while self.wait_children and self.completed:
            waited = await self._wait_for_children()
            if self.context.inbox.waiting():
                agent = self.graph.agent
                await (
                    self._session(start)
                    if dual
                    else self._ai_human(self._top_frame(agent.side_a, start, None))
                )
            elif not waited:
                break

    async def _wait_for_children(self) -> bool:
        """Wait for the children still running, here or at workers. A message queued for
        this thread meanwhile (a child's report, a message from another process) ends the
        wait early: the thread answers it now, then waits on. A store that can tell
        (PostgreSQL) wakes the wait at once; otherwise the queue is looked at every
        `poll_interval` seconds."""
        loop = asyncio.get_running_loop()
        woken = asyncio.Event()
        me = self.context.id

        def heard(thread_id: str) -> None:  # on the store's listening thread
            if thread_id == me:
                loop.call_soon_threadsafe(woken.set)

        stop = self.host.store.watch_queue(heard)
        try:
            return await self.supervisor.wait(
                woken, self.context.inbox.waiting, self.limits.poll_interval
            )
        finally:
            stop()

    # top-level shapes

    async def _ai_human(self, frame: Frame) -> None:
        while True:
            await self.run_turn(frame)
            if frame.ending != "handoff" or not self.completed:
                return
            self.graph = self.context.refresh_graph()
            frame = self._top_frame(
                self.graph.agent.side_a, frame.turn_start, None, budget=frame.budget
            )

    async def _session(self, start: int, first: SideName = "a") -> None:
        agent = self.graph.agent
        limit = agent.max_session_turns or self.limits.max_session_turns
        side: SideName = first
        for _ in range(limit):
            side_config = agent.side_a if side == "a" else agent.side_b
            assert side_config is not None  # a dual_ai agent has both sides
            frame = self._top_frame(side_config, start, side)
            await self.run_turn(frame)
            if not self.completed or self._session_ended(frame):
                return
            side = _other(side)
        self.update(
            session_status="failed",
            result=self._last_text_a,
            error=f"the session reached max_session_turns ({limit})",
        )

    def _session_ended(self, frame: Frame) -> bool:
        """Whether `frame`'s turn ended its dual_ai session (recorded in the outcome)."""
        if frame.ending not in ("session_stop", "session_fail"):
            return False
        result = frame.session_result or ToolResult()
        self.update(
            session_status="completed" if frame.ending == "session_stop" else "failed",
            result=result_text(result),
            attachments=tuple(result.attachments),
        )
        return True

    def _settle_session(self) -> None:
        if self.outcome.session_status is not None:
            return
        ok = self.completed
        self.update(
            session_status="completed" if ok else "failed",
            result=self.outcome.text if ok else self.outcome.error,
        )

    def _top_frame(
        self,
        side_config: Side,
        start: int,
        side: SideName | None,
        budget: StepBudget | None = None,
    ) -> Frame:
        return Frame(
            prompt_name=side_config.prompt,
            side_config=side_config,
            budget=budget or StepBudget(side_config.max_steps or self.limits.max_steps),
            side=side,
            turn_start=start,
        )

    # the step loop

    async def run_turn(self, frame: Frame) -> None:
        """Step until `frame`'s turn ends: an answer without tool calls (where the side stops
        on a response), an ending tool, a safety limit, or a model failure."""
        while True:
            if frame.depth == 0:
                for queued in self.context.inbox.take_all():
                    # Messages to a dual_ai thread are addressed to side A.
                    await self.commit(frame, queued, side="a" if frame.dual else None)
            if frame.budget.used >= frame.budget.limit:
                self._stop(f"the turn reached max_steps ({frame.budget.limit}) model calls")
                return
            over = self.spend.over_budget()
            if over is not None:
                self._stop(over)
                return
            frame.budget.used += 1
            prompt = self._prompt(frame)
            hooks = self.hooks_for(prompt)
            tools = tools_for(self, frame, prompt)
            assistant = await self._model_step(frame, prompt, hooks, tools)
            if assistant is None:
                return
            if assistant.content:
                frame.last_text = assistant.content
                if frame.depth == 0:
                    self.update(text=assistant.content)
                    if frame.side == "a":
                        self._last_text_a = assistant.content
            if not assistant.tool_calls:
                if frame.side_config.stop_on_response:
                    return
                continue
            await self._run_calls(frame, assistant, prompt, hooks, tools)
            if not self.completed or frame.ending is not None:
                return

    async def _model_step(
        self,
        frame: Frame,
        prompt: PromptDefinition,
        hooks: HookRunner,
        tools: dict[str, ToolDefinition],
    ) -> Message | None:
        state = self.state_for(frame, prompt)
        env = self.context.env
        system = render_system(
            prompt, self.graph.registry, lambda n: env.resolve(n, prompt), env.type_of
        )
        head = [self._system_message(system)] if system else []
        model_input: Sequence[Message] = self._model_input(frame, prompt, head)
        if hooks.has("filter_messages"):
            filtered = await hooks.run(
                "filter_messages",
                state,
                list(model_input[len(head) :]),
                transform=True,
                expect=_is_message_list,
            )
            model_input = head + list(filtered)
        if hooks.has("prefilter_llm_history"):
            model_input = list(
                await hooks.run(
                    "prefilter_llm_history",
                    state,
                    list(model_input),
                    transform=True,
                    expect=_is_message_list,
                )
            )
        frame.caller_view = model_input
        request = ModelRequest(
            messages=model_input,
            tools=[self._spec(t, frame) for t in tools.values()],
            tool_choice=prompt.tool_choice,
            parallel_tool_calls=prompt.parallel_tool_calls,
            max_output_tokens=self.spend.tokens_left(),
        )
        base = frame.event_base(self.context.base())

        async def on_started(event: ToolCallStartedEvent) -> None:
            if hooks.has("tool_call_started"):
                await hooks.run("tool_call_started", state, event)

        chosen = self._model_choice(prompt, frame)
        try:
            model = self.host.resolve_model(chosen, lambda name: env.resolve(name, prompt))
            sent = self.requests.record(frame, request, dict(getattr(model, "options", {})))
            stream = model.stream(request)
            draft = await collect_stream(
                stream,
                tools,
                self.context.events.emit,
                on_started,
                base,
                self.context.redactor,
                live=self.context.events.listening,
            )
        except Exception as exc:  # provider and model failures end the turn, never the cell
            name = getattr(chosen, "name", chosen)
            said = (
                str(exc)
                if isinstance(exc, ReplayDivergedError)
                else f"model {name!r} failed: {exc}"
            )
            frame.error = self.context.redact(said)
            if frame.depth == 0:
                self.update(status="failed", error=frame.error)
            return None
        if draft.usage:
            total = dict(self.outcome.usage or {})
            for key, value in draft.usage.items():
                total[key] = total.get(key, 0) + value
            self.update(usage=total)
        model_id = draft.model or (
            str(getattr(model, "model", None) or getattr(model, "name", "") or "") or None
        )
        cost = step_cost(model, draft.usage)
        self.spend.add(draft.usage, cost, model_id or "?")
        text = draft.text if is_text(draft.text) else _as_text(draft.text)
        assistant = Message(
            role="assistant",
            content=text or None,
            tool_calls=tuple(draft.calls),
            reasoning=draft.reasoning,
            usage=draft.usage,
            model=model_id,
            provider=provider_name(model),
            cost_usd=cost,
            request=sent,
            response_id=draft.response_id,
        )
        assistant = await self.commit(frame, assistant, hooks, state)
        self.requests.sent(frame, assistant.id)
        for call in assistant.tool_calls:
            self._open[call.id] = (frame, call)
        frame.current_message_id = assistant.id
        return assistant

    def _model_choice(self, prompt: PromptDefinition, frame: Frame) -> Any:
        # An override replaces the model of the thread's own prompts (its sides); a prompt
        # tool's nested turn keeps the model its prompt declares.
        override = self.context.model_override
        return override if override is not None and frame.depth == 0 else prompt.model

    def _model_input(
        self, frame: Frame, prompt: PromptDefinition, head: list[Message]
    ) -> Sequence[Message]:
        """The messages the model is sent at this step, after `head` (the system text)."""
        history = self.context.history.top
        if frame.nested is not None:
            earlier = earlier_messages(
                frame.caller_messages, prompt.include_chat, prompt.include_past_tools
            )
            return head + earlier + frame.nested
        if frame.dual:
            return head + side_view(history, frame.turn_start, frame.side or "a")
        if frame.earlier is None:
            frame.earlier = earlier_messages(
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
        limit = self.limits.max_consecutive_failures
        for index, call in enumerate(assistant.tool_calls):
            started = time.perf_counter()
            state = self.state_for(frame, prompt, call)
            trace: str | None = None
            decided = None
            if self.completed and self.failures < limit:
                try:
                    decided = await self._decision(frame, call, tools.get(call.name), state)
                except BaseException:
                    if self.outcome.status == "waiting":
                        # Interrupted while a person decides: this call and the ones after
                        # it were never started, so they stay open, not "interrupted".
                        for rest in assistant.tool_calls[index:]:
                            self._open.pop(rest.id, None)
                    raise
                if decided is None:
                    return  # it waits for a decision: it and the calls after it stay open
                call = decided[0]
                started = time.perf_counter()  # its duration is its run, not the wait
            if self.failures >= limit or not self.completed:
                reason = self.outcome.error or f"{self.failures} consecutive failed tool calls"
                result = ToolResult("error", error=f"not run: the run stopped ({reason})")
            elif decided is not None and decided[1] is not None:
                result = ToolResult("error", error=decided[1])
            else:
                waited_for = self.context.identity.meta.waiting_on.get(call.id)
                if waited_for is not None:  # its blocking child paused: it goes on now
                    result = await self.supervisor.resume_waiting(waited_for)
                else:
                    result, trace = await run_tool_call(call, tools, state, self._missing_for)
                if self._waits_with_child(call):
                    return  # unanswered until the child is decided on and done
                if hooks.has("before_store_tool_result"):
                    result = await hooks.run(
                        "before_store_tool_result",
                        state,
                        result,
                        transform=True,
                        expect=lambda value: isinstance(value, ToolResult),
                    )
            result = self._checked_attachments(result)
            await self._store_result(frame, call, result, started, hooks, state, trace)
            frame.records.append((call, result))
            if result.status == "success":
                self.failures = 0
                self._note_ending(frame, call, result)
            else:
                self.failures += 1
        if self.failures >= limit and self.completed:
            self._stop(
                f"{self.failures} consecutive tool calls failed (max_consecutive_failures={limit})"
            )

    async def _decision(
        self, frame: Frame, call: ToolCall, tool: ToolDefinition | None, state: ThreadState
    ) -> tuple[ToolCall, str | None] | None:
        """How `call` goes on: (the call to run, None), (the call, its rejection's text), or
        None when it waits for a decision (the run then ends "waiting"). A decision is bound
        to this call of this message, with these arguments: one made on another call that
        had the same id does not count."""
        if frame.depth or not (self.step or await needs_decision(tool, call, state)):
            return call, None
        message_id = frame.current_message_id
        decided = decision_on(self.context, message_id, call) or self._replayed_decision(
            frame, call
        )
        approver = self.host.approver
        request = ApprovalRequest(
            self.context.id, call.id, call.name, call.arguments, progress_of(tool, call), message_id
        )
        answer = None
        requested = any(
            (r.message_id, r.tool_call_id) == (message_id, call.id)
            for r in pending_requests(self.context)
        )
        if decided is None and approver is not None:
            if not requested:
                self._request(frame, call, request)
                requested = True
            try:
                answer = await ask(approver, request, self.limits.hook_timeout)
            except BaseException:
                self._wait_for(call, request)  # the request stays on record, undecided
                raise
        if answer is not None:
            decided = claim_decision(
                self.context,
                ApprovalDecidedEvent(
                    tool_call_id=call.id,
                    approved=answer.approved,
                    edited=answer.arguments is not None,
                    arguments=dict(answer.arguments) if answer.arguments is not None else None,
                    reason=answer.reason,
                    by=getattr(approver, "decided_by", "approver"),
                    message_id=message_id,
                    **frame.event_base(self.context.base()),
                ),
                in_run=True,
            )
        if decided is None:
            if not requested:
                self._request(frame, call, request)
            self._wait_for(call, request)
            return None
        if not decided.approved:
            reason = decided.reason
            return call, f"rejected: {reason}" if reason else "rejected (no reason was given)"
        if decided.edited:
            return call.model_copy(update={"arguments": decided.arguments}), None
        return call, None

    def _waits_with_child(self, call: ToolCall) -> bool:
        """Whether `call` ran a blocking child that paused for a decision: this run then
        waits with it (its requests are this run's), and the call stays open; the thread
        remembers which child to resume for it. A call whose child ended is forgotten."""
        waiting = self.supervisor.take_waiting()
        remembered = dict(self.context.identity.meta.waiting_on)
        if waiting is None:
            if remembered.pop(call.id, None) is not None:
                self.context.identity.set_meta(waiting_on=remembered)
            return False
        child_id, requests = waiting
        self.context.identity.set_meta(waiting_on={**remembered, call.id: child_id})
        self.update(
            status="waiting",
            error=f"tool call {call.id} ({call.name}) waits for its subagent's decision",
            pending=(*self.outcome.pending, *requests),
        )
        return True

    def _replayed_decision(self, frame: Frame, call: ToolCall) -> ApprovalDecidedEvent | None:
        """A replayed call gets the decision the recording made on it, on record again."""
        recorded = getattr(self.context.model_override, "decision_for", None)
        decided = recorded(call) if recorded is not None else None
        if not isinstance(decided, ApprovalDecidedEvent):
            return None
        tool = self.graph.registry.tool(call.name)
        message_id = frame.current_message_id
        self._request(
            frame,
            call,
            ApprovalRequest(
                self.context.id, call.id, call.name, call.arguments, progress_of(tool, call),
                message_id,
            ),
        )  # fmt: skip
        place = {"type", "at", "thread_id", "thread_path", "depth", "parent_tool_call_id"}
        copied = decided.model_dump(exclude=place | {"message_id"})
        return claim_decision(
            self.context,
            ApprovalDecidedEvent(
                **copied, message_id=message_id, **frame.event_base(self.context.base())
            ),
            in_run=True,
        )

    def _wait_for(self, call: ToolCall, request: ApprovalRequest) -> None:
        """The run ends "waiting" for a decision on `call`."""
        self.update(
            status="waiting",
            error=f"tool call {call.id} ({call.name}) waits for a decision",
            pending=(*self.outcome.pending, request),
        )

    def _request(self, frame: Frame, call: ToolCall, request: ApprovalRequest) -> None:
        self.context.events.emit(
            ApprovalRequestedEvent(
                tool_call_id=call.id,
                name=call.name,
                arguments=call.arguments,
                message_id=request.message_id,
                progress=request.progress,
                **frame.event_base(self.context.base()),
            )
        )
        # Stored at once: while a person decides, another process lists it as pending.
        self.context.events.flush()

    def _checked_attachments(self, result: ToolResult) -> ToolResult:
        """A result's attachments must be files of this thread; they are stored normalised."""
        if not result.attachments:
            return result
        try:
            paths = tuple(self.context.files.require(p).path for p in result.attachments)
        except PathError as exc:
            return ToolResult("error", error=f"the result names an unusable attachment: {exc}")
        return result.model_copy(update={"attachments": paths})

    def _note_ending(self, frame: Frame, call: ToolCall, result: ToolResult) -> None:
        if frame.depth != 0 or frame.ending in ("session_stop", "session_fail"):
            return
        side_config = frame.side_config
        if call.name == side_config.session_stop:
            frame.ending, frame.session_result = "session_stop", result
        elif call.name == side_config.session_fail:
            frame.ending, frame.session_result = "session_fail", result
        elif call.name == side_config.stop_tool and frame.ending is None:
            frame.ending = "stop_tool"

    async def _store_result(
        self,
        frame: Frame,
        call: ToolCall,
        result: ToolResult,
        started: float,
        hooks: HookRunner,
        state: ThreadState,
        trace: str | None = None,
    ) -> None:
        redactor = self.context.redactor
        message = result_message(call, result, redactor)
        self.context.events.emit(
            ToolCallFinishedEvent(
                tool_call_id=call.id,
                name=call.name,
                status=result.status,
                duration_ms=(time.perf_counter() - started) * 1000,
                traceback=redactor.text(trace) if trace else None,
                **frame.event_base(self.context.base()),
            )
        )
        await self.commit(frame, message, hooks, state)
        self._open.pop(call.id, None)
        follow: HookName = (
            "after_tool_call_success" if result.status == "success" else "after_tool_call_failure"
        )
        if hooks.has(follow):
            await hooks.run(follow, state, (call, result))

    def _close_open_calls(self) -> None:
        if not self._open:
            return
        self.context.persist(
            [
                frame.stamp(unfinished_result(call, "cancelled"))
                for frame, call in self._open.values()
            ]
        )
        self._open.clear()

    def _stop(self, reason: str) -> None:
        self.update(status="stopped", error=reason)

    # helpers

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
                "before_create_message", state, message, transform=True, expect=_is_message
            )
        (message,) = self.context.persist([message], frame.event_base(self.context.base()))
        if frame.nested is not None:
            frame.nested.append(message)
        else:
            self.outcome.messages.append(message)
        if hooks is not None and state is not None and hooks.has("after_create_message"):
            await hooks.run("after_create_message", state, message)
        return message

    def _system_message(self, text: str) -> Message:
        # The same text at most steps: one record for them rather than a new one each step.
        if self._system is None or self._system.content != text:
            self._system = Message(role="system", content=text)
        return self._system

    def _prompt(self, frame: Frame) -> PromptDefinition:
        # Resolved at every step, so a redefined prompt takes effect from the next step.
        self.graph = self.context.refresh_graph()
        prompt = self.graph.prompts.get(frame.prompt_name) or self.graph.registry.prompt(
            frame.prompt_name
        )
        if prompt is None:
            raise DefinitionError(f"prompt {frame.prompt_name!r} is no longer defined")
        return prompt

    def hooks_for(self, prompt: PromptDefinition | None) -> HookRunner:
        """The hooks `prompt` lists (else the agent's)."""
        ids = (prompt.hooks if prompt else ()) or self.graph.agent.hooks
        return HookRunner(self.graph.registry, ids, self.limits.hook_timeout, self.context.redact)

    def _spec(self, tool: ToolDefinition, frame: Frame) -> ToolSpec:
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
        )

    def execution_info(
        self, frame: Frame, prompt: PromptDefinition, call: ToolCall | None = None
    ) -> ExecutionInfo:
        """What `state.execution` says inside `frame`."""
        return ExecutionInfo(
            self.run_id, frame.budget.used, prompt.name, call.id if call else None, frame.side
        )

    def _state_outside_calls(self, prompt: PromptDefinition) -> ThreadState:
        return ThreadState(self.context, ExecutionInfo(self.run_id, 0, prompt.name), prompt)

    def _missing_for(self, tool: ToolDefinition) -> list[tuple[str, str]]:
        env = self.context.env
        return [
            (v.name, f"tool {tool.name!r}")
            for v in tool.variables
            if v.required and not env.resolve(v.name, None, tool.name)
        ]


def _as_text(text: str) -> str:
    """A model's text with each lone surrogate (which no store or provider takes) replaced
    by U+FFFD, the replacement character."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def _is_message(value: object) -> bool:
    return isinstance(value, Message)


def _is_message_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(m, Message) for m in value)


def _turn_start(history: Sequence[Message]) -> int:
    """Where the open turn starts: the last top-level user message (0 when there is none)."""
    for index in range(len(history) - 1, -1, -1):
        if history[index].role == "user":
            return index
    return 0


def _calling(history: Sequence[Message]) -> Message | None:
    """The assistant message whose calls the history ends in (followed by results only)."""
    for message in reversed(history):
        if message.role == "assistant":
            return message if message.tool_calls else None
        if message.role != "tool":
            return None
    return None


def _other(side: SideName) -> SideName:
    return "b" if side == "a" else "a"
