"""Decisions on tool calls that need one (a tool's `approval`): whether a call needs one, the
decisions a thread has on record, and asking the runtime's approver — whose failure (it
raised, ran past the hook timeout, or answered something that is no decision) rejects the
call with that reason rather than running it."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any, Literal, Protocol, runtime_checkable

from .._data import (
    Approval,
    ApprovalDecidedEvent,
    ApprovalRequest,
    ApprovalRequestedEvent,
    CallKey,
    ToolCall,
    answers,
)
from .._errors import ThreadBusyError, ThreadlabError
from ..definitions import ToolDefinition, is_async_callable
from ..threads import ThreadContext, ThreadReader, ThreadState
from ._thread_pool import on_pooled_thread

__all__ = [
    "Approver",
    "NamedApprover",
    "TimedApprover",
    "ask",
    "claim_decision",
    "decided_by",
    "decision_on",
    "needs_decision",
    "pending_requests",
    "progress_of",
    "rule_says",
]

Approver = Callable[[ApprovalRequest], Any]
"""`(request) -> bool | Approval | None`, sync or async. None: no decision here, the run
pauses ("waiting") as it does without an approver. An approver with a `timeout_s` attribute
is given that long instead of the hook timeout; `timeout_s = None` waits as long as it takes
(a person deciding in a view). Its `decided_by` ("approver" unless it says "view") is who the
`approval_decided` event names."""


@runtime_checkable
class TimedApprover(Protocol):
    """An approver that sets how long it may take (None: as long as it takes)."""

    timeout_s: float | None


@runtime_checkable
class NamedApprover(Protocol):
    """An approver that says who decides: "view" for a person's buttons."""

    decided_by: Literal["approver", "view"]


def decided_by(approver: Approver) -> Literal["approver", "view"]:
    """Who a decision of `approver` is recorded as made by."""
    return approver.decided_by if isinstance(approver, NamedApprover) else "approver"


async def needs_decision(tool: ToolDefinition | None, call: ToolCall, state: ThreadState) -> bool:
    """Whether `call` must wait for a decision before it runs."""
    return await rule_says(tool.approval if tool is not None else None, call, state)


async def rule_says(rule: Any, call: ToolCall, state: ThreadState) -> bool:
    """What an `approval` rule (None, "always" or a predicate) says of `call`."""
    if rule is None:
        return False
    if rule == "always":
        return True
    verdict = rule(call, state)
    if inspect.isawaitable(verdict):
        verdict = await verdict
    return bool(verdict)


def progress_of(tool: ToolDefinition | None, call: ToolCall) -> str | None:
    """The value of the call's progress argument ("deleting old.log"), when its tool has one
    and the model gave it as text."""
    argument = tool.progress_argument if tool is not None else None
    if not argument or not isinstance(call.arguments, dict):
        return None
    value = call.arguments.get(argument)
    return value if isinstance(value, str) else None


def _key(event: ApprovalRequestedEvent | ApprovalDecidedEvent) -> CallKey:
    # A store from before decisions named their message: "" stands for any message.
    return (event.message_id or "", event.tool_call_id)


def _on_record(
    context: ThreadReader,
) -> tuple[dict[CallKey, ApprovalRequestedEvent], dict[CallKey, ApprovalDecidedEvent]]:
    """The thread's requests (the last for each call) and decisions (the first for each
    call: the one that won its claim), by call key."""
    requested: dict[CallKey, ApprovalRequestedEvent] = {}
    decided: dict[CallKey, ApprovalDecidedEvent] = {}
    for event in context.history.events():
        if isinstance(event, ApprovalRequestedEvent):
            requested[_key(event)] = event
        elif isinstance(event, ApprovalDecidedEvent):
            decided.setdefault(_key(event), event)
    return requested, decided


def decision_on(
    context: ThreadReader, message_id: str | None, call: ToolCall
) -> ApprovalDecidedEvent | None:
    """The decision bound to `call` of message `message_id`: made on this very call (its
    message and id) and on the arguments it has now. A call whose id repeats an earlier
    one's, or whose arguments changed since the decision (an edited branch), has none."""
    requested, decided = _on_record(context)
    for key in ((message_id or "", call.id), ("", call.id)):
        decision = decided.get(key)
        request = requested.get(key)
        if decision is not None and request is not None:
            if request.arguments == context.redactor.value(call.arguments):
                return decision
            return None
    return None


def pending_requests(context: ThreadReader) -> list[ApprovalRequest]:
    """The calls of the thread that wait for a decision, in the order they asked: asked,
    undecided and unanswered."""
    requested, decided = _on_record(context)
    if not requested:
        return []
    answered = answers(context.history.all())
    answered_ids = {call_id for _, call_id in answered}
    waiting: list[ApprovalRequest] = []
    for key, event in requested.items():
        done = key in answered if key[0] else key[1] in answered_ids
        if key not in decided and not done:
            waiting.append(
                ApprovalRequest(
                    context.id,
                    event.tool_call_id,
                    event.name,
                    event.arguments,
                    event.progress,
                    event.message_id,
                )
            )
    return waiting


def claim_decision(
    context: ThreadContext, decision: ApprovalDecidedEvent, *, in_run: bool = False
) -> ApprovalDecidedEvent:
    """Record `decision` as a claim on its call, in one store transaction that holds the
    thread's lock: it is stored only if the call still waits (asked, undecided, unanswered)
    and — unless the run deciding it is this one (`in_run`) — nobody runs the thread. Of
    decisions racing from several processes exactly one is stored; the others raise
    `ThreadlabError` (`ThreadBusyError` while the thread runs) and record nothing."""
    with context.transaction():
        context.leases.lock(context.id)
        if not in_run and context.leases.held_now(context.id):
            raise ThreadBusyError(f"thread {context.id} is running: decide once its run has ended")
        key = _key(decision)
        waiting = {(r.message_id or "", r.tool_call_id) for r in pending_requests(context)}
        if key not in waiting:
            raise ThreadlabError(
                f"tool call {decision.tool_call_id!r} of thread {context.id} does not wait"
                " for a decision (decided already, answered, or never asked for one)"
            )
        stored = context.events.emit(decision.model_copy(update=context.base()))
        context.events.flush()
    return stored


async def ask(approver: Approver, request: ApprovalRequest, limit_s: float) -> Approval | None:
    """The approver's decision on `request`, within `limit_s` seconds (or the approver's own
    `timeout_s`); a rejection naming what went wrong when it could not decide; None when it
    leaves the decision to later. A sync approver is asked from a pooled thread, so one that
    hangs cannot hold up the loop."""
    limit = approver.timeout_s if isinstance(approver, TimedApprover) else limit_s
    try:
        async with asyncio.timeout(limit):
            if is_async_callable(approver):
                answer = await approver(request)
            else:
                answer = await on_pooled_thread(approver, request, name="threadlab-approver")
                if inspect.isawaitable(answer):
                    answer = await answer
    except TimeoutError:
        return Approval(False, reason=f"the approver did not decide within {limit:g} s")
    except Exception as exc:  # the approver's bug must not run the call
        return Approval(False, reason=f"the approver failed: {type(exc).__name__}: {exc}")
    if answer is None or isinstance(answer, Approval):
        return answer
    if isinstance(answer, bool):
        return Approval(answer, reason=None if answer else "rejected by the approver")
    return Approval(
        False,
        reason=f"the approver answered {type(answer).__name__}, not a bool, tl.Approval or None",
    )
