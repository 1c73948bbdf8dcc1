"""Repairing the history a run left behind when its owner is gone (a killed process, a
worker that stopped, an interrupted run): every tool call gets exactly one result."""

from __future__ import annotations

from .._data import (
    CallKey,
    Message,
    ThreadStatusEvent,
    answers,
    unanswered_calls,
    unfinished_result,
    unfinished_text,
)
from ..store import RunRecord
from ..threads import ThreadContext, ThreadReader
from ._approvals import pending_requests
from ._reports import WORKER_STOPPED, report_failure

__all__ = ["hand_over_left", "repair"]


def repair(context: ThreadContext, runs: list[RunRecord] | None = None) -> bool:
    """When no one is running the thread, give every tool call without a result its missing
    result (whether its run's owner died, or its run was marked interrupted before every
    call was answered) and close runs whose owner is gone. Persists only those results: it
    never calls a model or re-runs a tool. A call that waited for a decision when its owner
    died was never started: it and the calls after it in its message stay open, the call
    still waiting (approve or reject it, then resume).

    A child left to workers whose worker died is reported failed to its parent by whoever
    repairs it first (its parent's process, another worker, a notebook opening it): nobody
    else would tell the parent. True when this call closed runs whose owner is gone."""
    leases = context.leases
    runs = leases.running(context.id) if runs is None else runs
    if leases.any_live(runs) or context.running:
        return False  # its owner is at work: the calls without results are still running
    orphaned = list(runs)
    if not orphaned and not context.identity.meta.interrupted:
        return False  # nothing can be unanswered: spare reading the whole history
    waiting, missing = _unanswered(context)
    if not missing and not orphaned:
        if context.identity.meta.interrupted:
            context.identity.set_meta(interrupted=False)
        return False
    reason = unfinished_text("owner_gone")
    with context.transaction():
        leases.lock(context.id)
        # Another process may have repaired it meanwhile: then there is nothing left to do.
        still = {r.id for r in leases.running(context.id)}
        if orphaned and not still & {r.id for r in orphaned}:
            return False
        # The abandoned runs end first: their leases with them, so an owner that was only
        # stopped (and goes on later) is refused from here on. What it committed before is
        # read now, inside this transaction: only the calls still open get a result.
        for run in orphaned:
            leases.finish(run.id, "interrupted", None, reason)
        if orphaned:
            # Its history says the run stopped (its owner could not): a resume goes on from
            # what was stored, not from the pause that run had gone on from.
            context.events.emit(ThreadStatusEvent(status="idle", **context.base()))
            context.events.flush()
            waiting, missing = _unanswered(context)
        if missing:
            context.persist(missing)
        if waiting:
            context.identity.set_meta(waiting=True)  # the run ended waiting, as it would have
        if orphaned and context.parent_id is not None:
            context.identity.set_child_status("idle" if context.identity.resumable else "failed")
            parent = context.parent()
            # The engine runs its threads on after a worker died (and reports itself when it
            # gives up): only a child of the polling workers of earlier versions is reported
            # failed by whoever repairs it (nobody else would tell its parent).
            if parent is not None and context.identity.meta.runs_on == "workers":
                report_failure(parent, context, WORKER_STOPPED)
        if context.identity.meta.interrupted:
            context.identity.set_meta(interrupted=False)
    return bool(orphaned)


def _unanswered(context: ThreadContext) -> tuple[set[CallKey], list[Message]]:
    """The calls that wait for a decision (`_never_started`), and a result for every other
    call without one, read from the store as it is now."""
    context.history.reload(force=True)
    waiting = _never_started(context)
    missing = [
        unfinished_result(
            call,
            "owner_gone",
            depth=m.depth,
            parent_id=m.parent_id,
            parent_tool_call_id=m.parent_tool_call_id,
            side=m.side,
        )
        for m, call in unanswered_calls(context.history.all())
        if (m.id, call.id) not in waiting
    ]
    return waiting, missing


def _never_started(context: ThreadReader) -> set[CallKey]:
    """The calls that wait for a decision, and the calls after each in its message: none of
    them was started, so none is interrupted. A call in a prompt tool's nested turn is not
    one of them: its turn cannot be gone on with later, so it gets its result as any open
    call does (and its request, answered, no longer waits)."""
    keys: set[CallKey] = set()
    for request in pending_requests(context):
        message = context.history.find(request.message_id) if request.message_id else None
        if message is None:
            keys |= {(m.id, request.tool_call_id) for m in context.history.all()}
            continue
        if message.depth:
            continue
        ids = [c.id for c in message.tool_calls]
        if request.tool_call_id in ids:
            keys |= {(message.id, i) for i in ids[ids.index(request.tool_call_id) :]}
    return keys


def hand_over_left(context: ThreadContext) -> None:
    """A turn that handed the thread over and ended before the handoff took effect (its run
    was interrupted, or its owner died, after the handoff's call): the thread is the agent's
    it was handed to, as its history records. A handoff whose message still has calls
    without results is left to the resume that runs them (the handoff then takes effect as
    that turn ends)."""
    top = context.history.top
    last = next((m for m in reversed(top) if m.role == "assistant" and not m.side), None)
    if last is None or not last.tool_calls:
        return
    answered = answers(top)
    if any((last.id, call.id) not in answered for call in last.tool_calls):
        return
    handed = context.handed_to({call.id for call in last.tool_calls})
    if handed is not None and handed != context.identity.answering_agent:
        context.identity.set_meta(answering_agent=handed)
