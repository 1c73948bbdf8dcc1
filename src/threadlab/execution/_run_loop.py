"""A run from its first message until the thread is idle again: the loop that advances its
steps (`_steps.py`) one at a time, over the shape of its top level (`_shapes.py`), with its
state (`RunState`) apart.

The steps: a model step persists the assistant message with its calls; each call is a step
that runs it — after its decision, when it needs one — and persists its result before the
next; a model step follows the last call unless the turn ended; the run's non-blocking
children are waited for at the end. A run resumed from its history starts at the calls the
history left open.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Coroutine, Sequence
from typing import Any

from .._data import Message, Run, SideName, ToolCallStartedEvent, answers
from ..definitions import ThreadDefinitions
from ..store import LeaseLostError
from ..threads import ThreadContext
from ._advance import drive
from ._approvals import progress_of
from ._exposed_tools import tools_for
from ._frames import Frame
from ._hooks import is_message
from ._host import RunHost
from ._run_scope import RunScope
from ._run_state import RunState
from ._shapes import ai_human, hand_over, other_side, session, session_ended, top_frame
from ._spending import SPENDING, Spend
from ._stepping import NO_STEPPING, Stepping
from ._steps import ToolCallStep, WaitForChildren
from ._subagents import ChildRunner

__all__ = ["RunLoop"]


class RunLoop:
    """Everything one run does, from its first message until the thread is idle again."""

    def __init__(
        self,
        host: RunHost,
        context: ThreadContext,
        definitions: ThreadDefinitions,
        run_id: str,
        run_child: ChildRunner,
        *,
        wait_children: bool = True,
        step: Stepping = NO_STEPPING,
    ) -> None:
        above = SPENDING.get()  # a child's run adds to its parent's, under the root's budget
        self.state = RunState(
            # What the caller gets unless a step ends the run otherwise (RunState.ended).
            Run(run_id, context.id, "completed"),
            Spend(host.budget if above is None else None, above),
        )
        self.scope = RunScope(host, context, definitions, self.state, run_child, stepping=step)
        self.state.spend.allowance = self.scope.allowance
        self.context = context
        self.wait_children = wait_children

    @property
    def outcome(self) -> Run:
        """The run's outcome as it stands."""
        return self.state.outcome

    async def before_user_message(self, user: Message) -> Message:
        """The `before_create_message` hooks of side A's prompt, for the run's first message
        (which is persisted together with the run's lease, outside any await)."""
        scope = self.scope
        prompt = scope.definitions.prompts[scope.definitions.agent.side_a.prompt]
        hooks = scope.hooks_for(prompt)
        if not hooks.has("before_create_message"):
            return user
        changed = await hooks.run(
            "before_create_message",
            scope.state_outside_calls(prompt),
            user,
            transform=True,
            expect=is_message,
        )
        return changed if isinstance(changed, Message) else user

    async def run(self, user: Message) -> Run:
        """Run a turn (or a session) for `user`, already persisted as the last message."""
        return await self._guarded(self._from_message(user))

    async def resume(self) -> Run:
        """Go on from the stored history, with no new message: run the unanswered calls of
        the last assistant message in order (the results before them are kept), then step
        until the turn ends. The turn is counted from the last user message. A run that
        paused before a model step sends that step now (and pauses before the next)."""
        return await self._guarded(self._from_history())

    async def _guarded(self, body: Coroutine[Any, Any, None]) -> Run:
        state = self.state
        spending = SPENDING.set(state.spend)
        try:
            await body
        except BaseException:
            # Cancelled, interrupted or crashed mid-step: every call of a persisted assistant
            # message still gets exactly one result, before the exception goes on (first, and
            # without awaiting, so a second cancel cannot skip it); the children this run
            # started are cancelled and repaired alike, shielded from that second cancel. A
            # run whose lease was taken over writes none: the process that took the thread
            # over answered them.
            with contextlib.suppress(LeaseLostError):
                state.close_open_calls(self.context)
            await asyncio.shield(self.scope.supervisor.cancel_all())
            raise
        finally:
            SPENDING.reset(spending)
            state.record(cost_usd=state.spend.cost_usd)
            if state.spend.sampled:  # model calls a server asked for during the run's calls
                usage = dict(state.outcome.usage or {})
                for key, value in state.spend.sampled.items():
                    usage[key] = usage.get(key, 0) + value
                state.record(usage=usage)
        if state.outcome.session_status is None:
            ok = state.going
            state.record(
                session_status="completed" if ok else "failed",
                result=state.outcome.text if ok else state.outcome.error,
            )
        return state.outcome

    async def _from_message(self, user: Message) -> None:
        scope = self.scope
        start = len(self.context.history.top) - 1
        dual = scope.definitions.agent.type == "dual_ai"
        first = top_frame(scope, scope.definitions.agent.side_a, start, "a" if dual else None)
        self.state.outcome.messages.append(user)
        prompt = scope.definitions.prompts[first.prompt_name]
        hooks = scope.hooks_for(prompt)
        if hooks.has("after_create_message"):
            await hooks.run("after_create_message", scope.state_for(first, prompt), user)
        await scope.supervisor.start_immediate(first, user)
        await (session(scope, start) if dual else ai_human(scope, first))
        await self._answer_children(start, dual)

    async def _from_history(self) -> None:
        scope = self.scope
        history = self.context.history.top
        start = _turn_start(history)
        dual = scope.definitions.agent.type == "dual_ai"
        side: SideName | None = (history[-1].side or "a") if dual else None
        agent = scope.definitions.agent
        side_config = agent.side_b if side == "b" and agent.side_b else agent.side_a
        frame = top_frame(scope, side_config, start, side)
        # A run that paused before a model step sends it now (and pauses before the next):
        # read from where the last run ended, as stored (a branch reads its own history).
        passed = self.context.last_stop_reason() == "waiting: model step"
        calling = _calling(history)
        if calling is not None:
            await self._run_open_calls(frame, calling)
            handed = self.context.handed_to({c.id for c in calling.tool_calls})
            if handed is not None and frame.so_far.ending is None:
                # A call of this message handed the thread over before the pause: now that
                # the message's calls have run, the handoff takes effect.
                frame.so_far.ending, frame.so_far.handed_to = "handoff", handed
        if self.state.going and not session_ended(scope, frame):
            if side is not None:  # a dual_ai session goes on from the side whose turn it was
                following = side if frame.so_far.ending is None else other_side(side)
                await session(scope, start, first=following, pause_passed=passed)
            elif frame.so_far.ending is None:
                await ai_human(scope, frame, pause_passed=passed)
            elif (handed_frame := hand_over(scope, frame)) is not None:
                await ai_human(scope, handed_frame)
        await self._answer_children(start, dual)

    async def _run_open_calls(self, frame: Frame, assistant: Message) -> None:
        """Run the calls of `assistant` that have no result yet, in `frame`."""
        scope = self.scope
        answered = answers(self.context.history.top)
        open_calls = tuple(c for c in assistant.tool_calls if (assistant.id, c.id) not in answered)
        if not open_calls:
            return
        prompt = scope.prompt_for(frame)
        hooks = scope.hooks_for(prompt)
        tools = tools_for(scope, frame, prompt)
        frame.so_far.current_message_id = assistant.id
        base = frame.event_base(self.context.base())
        self.state.opened(frame, open_calls)
        for call in open_calls:
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
                await hooks.run("tool_call_started", scope.state_for(frame, prompt), event)
        resumed = assistant.model_copy(update={"tool_calls": open_calls})
        await drive(scope, ToolCallStep(frame, resumed, 0, prompt, hooks, tools, then_model=False))

    async def _answer_children(self, start: int, dual: bool) -> None:
        """Non-blocking children started in this run: wait for them, then let the thread
        handle the results they queued, until nothing is pending."""
        if self.wait_children and self.state.going:
            await drive(self.scope, WaitForChildren(start, dual))


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
