"""The tool-call step: one call of a persisted assistant message — its decision, its run (or
why it does not run), its result persisted as a tool message, the failure count — and what
follows it."""

from __future__ import annotations

import time
from dataclasses import replace

from .._data import HookName, ToolCall, ToolCallFinishedEvent, ToolResult
from .._errors import PathError
from ..threads import ThreadState
from ._approvals import needs_decision
from ._frames import Frame
from ._hooks import HookRunner
from ._running import Running
from ._steps import DecisionStep, ModelStep, RunStep, ToolCallStep
from ._tool_call import result_message, run_tool_call

__all__ = ["run_call"]


async def run_call(scope: Running, step: ToolCallStep) -> RunStep | None:
    """Run `step`'s call and persist its result; the next call's step, the next model step,
    or None (the turn ended, stopped, or waits)."""
    state, limit = scope.state, scope.limits.max_consecutive_failures
    frame, call = step.frame, step.call
    thread_state = scope.state_for(frame, step.prompt, call)
    runnable = state.going and state.failures < limit
    if runnable and not step.decided:
        tool = step.tools.get(call.name)
        if frame.depth == 0 and not await scope.stepping.may_go_on():
            state.pause_before_tool(call)
            return None
        # Step mode stops before top-level calls only; a tool's own `approval` holds at every
        # depth (a nested call's decision is made at once, or the call refused: see decide).
        asked_by_step = frame.depth == 0 and scope.stepping.tools
        if asked_by_step or await needs_decision(tool, call, thread_state):
            return DecisionStep(step)
    started = time.perf_counter()  # its duration is its run, not a wait for its decision
    traceback_text: str | None = None
    if not runnable:
        reason = state.outcome.error or f"{state.failures} consecutive failed tool calls"
        result = ToolResult("error", error=f"not run: the run stopped ({reason})")
    elif step.rejection is not None:
        result = ToolResult("error", error=step.rejection)
    else:
        waited_for = scope.context.identity.meta.waiting_on.get(call.id)
        if waited_for is not None:  # its blocking child paused: it goes on now
            result = await scope.supervisor.resume_waiting(waited_for)
        else:
            result, traceback_text = await run_tool_call(
                call, step.tools, thread_state, scope.missing_for
            )
        if _waits_with_child(scope, call):
            return None  # unanswered until the child is decided on and done
        if step.hooks.has("before_store_tool_result"):
            result = await step.hooks.run(
                "before_store_tool_result",
                thread_state,
                result,
                transform=True,
                expect=lambda value: isinstance(value, ToolResult),
            )
    result = _checked_attachments(scope, result)
    await _store_result(
        scope, frame, call, result, started, step.hooks, thread_state, traceback_text
    )
    frame.so_far.records.append((call, result))
    if result.status == "success":
        state.failures = 0
        _note_ending(frame, call, result)
    else:
        state.failures += 1
    following = step.next()
    if following is not None:
        return following
    if state.failures >= limit and state.going:
        state.stop(
            "stopped: max_consecutive_failures",
            f"{state.failures} consecutive tool calls failed (max_consecutive_failures={limit})",
        )
    if not step.then_model or not state.going or frame.so_far.ending is not None:
        return None
    return ModelStep(frame)


def decided(step: ToolCallStep, call: ToolCall, rejection: str | None) -> ToolCallStep:
    """`step` once its decision is made: run `call` (perhaps edited), or refuse it."""
    edited = call if call != step.call else None
    return replace(step, decided=True, edited=edited or step.edited, rejection=rejection)


def _waits_with_child(scope: Running, call: ToolCall) -> bool:
    """Whether `call` ran a blocking child that paused for a decision: this run then waits
    with it (its requests are this run's), and the call stays open; the thread remembers
    which child to resume for it. A call whose child ended is forgotten."""
    identity = scope.context.identity
    waiting = scope.supervisor.take_waiting()
    remembered = dict(identity.meta.waiting_on)
    if waiting is None:
        if remembered.pop(call.id, None) is not None:
            identity.set_meta(waiting_on=remembered)
        return False
    child_id, requests = waiting
    identity.set_meta(waiting_on={**remembered, call.id: child_id})
    scope.state.wait(
        "waiting: subagent",
        f"tool call {call.id} ({call.name}) waits for its subagent's decision",
        requests,
    )
    return True


def _checked_attachments(scope: Running, result: ToolResult) -> ToolResult:
    """A result's attachments must be files of this thread; they are stored normalised."""
    if not result.attachments:
        return result
    try:
        paths = tuple(scope.context.files.require(p).path for p in result.attachments)
    except PathError as exc:
        return ToolResult("error", error=f"the result names an unusable attachment: {exc}")
    return result.model_copy(update={"attachments": paths})


def _note_ending(frame: Frame, call: ToolCall, result: ToolResult) -> None:
    if frame.depth != 0 or frame.so_far.ending in ("session_stop", "session_fail"):
        return
    side_config = frame.side_config
    if call.name == side_config.session_stop:
        frame.so_far.ending, frame.so_far.session_result = "session_stop", result
    elif call.name == side_config.session_fail:
        frame.so_far.ending, frame.so_far.session_result = "session_fail", result
    elif call.name == side_config.stop_tool and frame.so_far.ending is None:
        frame.so_far.ending = "stop_tool"


async def _store_result(
    scope: Running,
    frame: Frame,
    call: ToolCall,
    result: ToolResult,
    started: float,
    hooks: HookRunner,
    state: ThreadState,
    traceback_text: str | None = None,
) -> None:
    context = scope.context
    redactor = context.redactor
    message = result_message(call, result, redactor)
    context.events.emit(
        ToolCallFinishedEvent(
            tool_call_id=call.id,
            name=call.name,
            status=result.status,
            duration_ms=(time.perf_counter() - started) * 1000,
            traceback=redactor.text(traceback_text) if traceback_text else None,
            **frame.event_base(context.base()),
        )
    )
    await scope.commit(frame, message, hooks, state)
    scope.state.answered(call)
    follow: HookName = (
        "after_tool_call_success" if result.status == "success" else "after_tool_call_failure"
    )
    if hooks.has(follow):
        await hooks.run(follow, state, (call, result))
