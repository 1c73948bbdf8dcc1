"""Decisions on tool calls that need one (a tool's `approval`): whether a call needs one, the
decisions a thread has on record, and asking the runtime's approver — whose failure (it
raised, ran past the hook timeout, or answered something that is no decision) rejects the
call with that reason rather than running it."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable
from typing import Any

from .._data import (
    Approval,
    ApprovalDecidedEvent,
    ApprovalRequest,
    ApprovalRequestedEvent,
    ToolCall,
)
from ..definitions import ToolDefinition, is_async_callable
from ..threads import ThreadContext, ThreadState
from ._thread_pool import on_pooled_thread

__all__ = [
    "Approver",
    "ask",
    "decisions",
    "needs_decision",
    "pending_requests",
    "rule_says",
]

Approver = Callable[[ApprovalRequest], Any]
"""`(request) -> bool | Approval | None`, sync or async. None: no decision here, the run
pauses ("waiting") as it does without an approver. An approver with a `timeout_s` attribute
is given that long instead of the hook timeout; `timeout_s = None` waits as long as it takes
(a person deciding in a view). Its `decided_by` ("approver" unless it says "view") is who the
`approval_decided` event names."""


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


def decisions(context: ThreadContext) -> dict[str, ApprovalDecidedEvent]:
    """The decisions on record in the thread, by call id (the last one counts)."""
    return {
        e.tool_call_id: e for e in context.history.events() if isinstance(e, ApprovalDecidedEvent)
    }


def pending_requests(context: ThreadContext) -> list[ApprovalRequest]:
    """The calls of the thread that wait for a decision, in the order they asked."""
    decided = decisions(context)
    waiting: dict[str, ApprovalRequest] = {}
    for event in context.history.events():
        if isinstance(event, ApprovalRequestedEvent) and event.tool_call_id not in decided:
            waiting[event.tool_call_id] = ApprovalRequest(
                context.id, event.tool_call_id, event.name, event.arguments
            )
    return list(waiting.values())


async def ask(approver: Approver, request: ApprovalRequest, limit_s: float) -> Approval | None:
    """The approver's decision on `request`, within `limit_s` seconds (or the approver's own
    `timeout_s`); a rejection naming what went wrong when it could not decide; None when it
    leaves the decision to later. A sync approver is asked from a pooled thread, so one that
    hangs cannot hold up the loop."""
    limit: float | None = getattr(approver, "timeout_s", limit_s)
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
