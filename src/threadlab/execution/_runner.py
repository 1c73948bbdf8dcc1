"""One run of a thread, from the outside: take the thread's lease (or queue the message when
another process holds it), persist the user's message, run the loop, and record the outcome
(repairing first what a run whose owner is gone left behind, `_repair`)."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable, Iterable
from typing import Literal, TypeGuard

from .._data import (
    Message,
    Run,
    RunFinishedEvent,
    ThreadStatusEvent,
    is_text,
    new_id,
)
from .._errors import MissingVariableError, StoreError, ThreadlabError
from ..store import LeaseLostError, RunRecord
from ..threads import Listener, ThreadContext
from ._host import RunHost
from ._repair import hand_over_left, repair
from ._reports import deliver_report, report_failure
from ._run_loop import RunLoop
from ._stepping import NO_STEPPING, Stepping
from ._subagents import child_outcome

__all__ = [
    "execute_run",
    "fail_queued",
    "fail_unstarted",
    "needs_a_step",
    "resume_child",
    "resume_run",
    "run_queued",
]


async def execute_run(
    host: RunHost,
    context: ThreadContext,
    content: str | None,
    attachments: Iterable[str],
    listener: Listener | None = None,
    *,
    wait_children: bool = True,
    step: Stepping = NO_STEPPING,
) -> Run:
    """Send `content` to the thread and run until it is idle (`content` None: resume what
    the history leaves open, `resume_run`). Model and provider errors end the run as
    "failed"; cancellation persists an "interrupted" result for every unfinished call before
    it propagates. `step`: where the run pauses for a person (`Stepping`)."""
    if content is None:
        return await resume_run(host, context, listener, wait_children=wait_children, step=step)
    if not is_text(content):
        where = next(i for i, c in enumerate(content) if 0xD800 <= ord(c) <= 0xDFFF)
        raise ThreadlabError(
            f"the message is not valid UTF-8 text: a lone surrogate at character {where}"
            " (nothing was sent)"
        )
    await host.prepare_definitions()
    if isinstance(attachments, str):  # one path, not its characters
        attachments = [attachments]
    paths = tuple(context.files.require(p).path for p in attachments)
    async with context.lock:
        runs = context.leases.running(context.id)
        # Messages to a dual_ai thread are addressed to side A.
        agent = context.registry.agent(context.identity.answering_agent)
        side: Literal["a"] | None = "a" if agent and agent.type == "dual_ai" else None
        message = Message(role="user", content=content, attachments=paths, side=side)
        if context.leases.any_live(runs):
            context.inbox.put(message)
            return Run(new_id("run"), context.id, "queued")
        loop = _prepare(host, context, runs, wait_children, step)
        message = await loop.before_user_message(message)

        def take() -> Message:
            return message

        def busy() -> None:  # someone claimed it meanwhile: the message waits its turn
            context.inbox.put(message)

        run = await _claim_and_run(context, loop, take, busy, listener)
        return run if run is not None else Run(new_id("run"), context.id, "queued")


async def resume_run(
    host: RunHost,
    context: ThreadContext,
    listener: Listener | None = None,
    *,
    wait_children: bool = True,
    step: Stepping = NO_STEPPING,
    report: Callable[[Run], None] | None = None,
) -> Run:
    """Run what the stored history leaves open, with no new message: the unanswered calls of
    the last assistant message, then model steps until the turn ends; a history that ends
    with a user message or with results, or a queued message, gets its model step. Nothing
    open: a completed run that called no model. Another process running the thread:
    "queued" (it is at work on it). `report` is called with the outcome as the run ends.
    """
    await host.prepare_definitions()
    async with context.lock:
        runs = context.leases.running(context.id)
        if context.leases.any_live(runs):
            return Run(new_id("run"), context.id, "queued")
        loop = _prepare(host, context, runs, wait_children, step)
        if not needs_a_step(context.history.top) and not context.inbox.waiting():
            done = Run(loop.outcome.id, context.id, "completed")
            if listener is not None:  # a stream still ends with its run's end (not stored)
                listener(RunFinishedEvent(run_id=done.id, status=done.status, **context.base()))
            return done
        claimed = _claim(context, loop.outcome.id, None, lambda: None, listener)
        if claimed is None:
            return Run(new_id("run"), context.id, "queued")
        return await _run_claimed(context, loop, claimed, report)


async def resume_child(host: RunHost, child: ThreadContext) -> Run:
    """Resume a non-blocking child that paused for a decision (its parent went on): once it
    ends, its parent hears of it as it would have (a report, with implicit communication)."""
    parent = child.parent()

    def report(run: Run) -> None:
        implicit = child.identity.parent_communication == "implicit"
        if parent is not None and implicit and run.status != "waiting":
            deliver_report(parent, child, child_outcome(parent, child, run))

    return await resume_run(host, child, report=report)


def needs_a_step(history: list[Message]) -> bool:
    """Whether a top-level history leaves something open: a user message or results the
    model has not answered yet, or calls without their results."""
    return bool(history) and (history[-1].role in ("user", "tool") or bool(history[-1].tool_calls))


async def run_queued(
    host: RunHost, context: ThreadContext, report: Callable[[Run], None] | None = None
) -> Run | None:
    """Run the thread on the oldest message waiting in its queue (the rest are read at its
    first step), as a worker does; None when nothing waits or another process runs it.
    Taking the message and the lease is one transaction: of two workers exactly one runs
    it, and a message is never lost between them. `report` is called with the outcome in the
    transaction that ends the run (a child's report to its parent commits with it)."""
    await host.prepare_definitions()
    async with context.lock:
        runs = context.leases.running(context.id)
        if context.leases.any_live(runs) or not context.inbox.waiting():
            return None
        loop = _prepare(host, context, runs, wait_children=True)

        def take() -> Message | None:
            return context.inbox.take_oldest()

        # Another worker claimed it meanwhile: the message stays where it is, first in line.
        return await _claim_and_run(context, loop, take, lambda: None, None, report)


def fail_unstarted(context: ThreadContext, error: str) -> Run:
    """A run that could not start at all (a worker lacks a variable or a definition it
    needs): recorded as a run that ended "failed" with `error` (its lease taken and ended in
    one transaction, its `run_finished` stored), so whoever waits on the thread reads why."""
    outcome = Run(new_id("run"), context.id, "failed", error=error)
    with context.transaction():
        context.leases.take(outcome.id, context.id)
        _finish(context, outcome)
    context.leases.release(outcome.id)
    return outcome


def fail_queued(context: ThreadContext, error: str) -> None:
    """A thread left to another process that cannot run there (a definition or variable it
    lacks, a secret key it does not have): the messages waiting for it are answered by a
    failure, not retried forever. A child's parent hears it failed; a thread queued on its
    own (an evaluation's case) has its run recorded as failed, with `error`, where its waiter
    looks."""
    with context.transaction():
        context.inbox.take_all()
        context.identity.set_child_status("failed")
        parent = context.parent()
        if parent is not None:
            report_failure(parent, context, error)
        else:
            fail_unstarted(context, error)


def _prepare(
    host: RunHost,
    context: ThreadContext,
    runs: list[RunRecord],
    wait_children: bool,
    step: Stepping = NO_STEPPING,
) -> RunLoop:
    """A loop for the thread's next run, once what a dead owner left is repaired."""
    context.identity.reread()  # another process's run may have changed it since
    repair(context, runs)
    context.history.reload()
    hand_over_left(context)
    definitions = context.refresh_definitions()
    missing = context.env.missing()
    if missing:
        raise MissingVariableError(missing)
    run_child = functools.partial(_run_child, host)
    return RunLoop(
        host, context, definitions, new_id("run"), run_child, wait_children=wait_children, step=step
    )


async def _claim_and_run(
    context: ThreadContext,
    loop: RunLoop,
    take: Callable[[], Message | None],
    busy: Callable[[], None],
    listener: Listener | None,
    report: Callable[[Run], None] | None = None,
) -> Run | None:
    """Claim the thread and run the loop on the message `take` gives (None: the claim lost,
    or there was nothing to take, and nothing ran)."""
    claimed = _claim(context, loop.outcome.id, take, busy, listener)
    if claimed is None:
        return None
    return await _run_claimed(context, loop, claimed, report)


class _Claimed:
    """A won claim: the message that opens the run (None when it resumes the history), and
    how to stop listening once the run ends."""

    __slots__ = ("message", "unsubscribe")

    def __init__(self, message: Message | None, unsubscribe: Callable[[], None] | None) -> None:
        self.message = message
        self.unsubscribe = unsubscribe


def _claim(
    context: ThreadContext,
    run_id: str,
    take: Callable[[], Message | None] | None,
    busy: Callable[[], None],
    listener: Listener | None,
) -> _Claimed | None:
    """Take the thread's lease for run `run_id`, with the message `take` gives (`take` None:
    a run that resumes the history, with no message); None when the claim lost or there was
    nothing to take.

    Checking that nobody runs the thread and taking the lease happen in one immediate
    transaction, so of two senders (tasks, OS threads or processes) exactly one runs and the
    other queues its message (`busy`, called in that transaction). The lease, the running
    status and the user's message commit together. `take` is asked only once the claim is
    won, so a message taken from the queue is never put back behind newer ones."""
    leases = context.leases
    unsubscribe = context.events.subscribe(listener) if listener else None
    claimed = False
    message: Message | None = None
    try:
        with context.transaction():
            leases.lock(context.id)
            if leases.held_now(context.id):
                busy()
            elif take is None or (message := take()) is not None:
                context.running = claimed = True
                leases.take(run_id, context.id)
                # What other processes' runs left since this handle last read it (a
                # handoff: the agent that answers now), read under the claim's lock.
                context.identity.reread()
                if context.parent_id is not None:
                    context.identity.set_child_status("running")
                context.events.bind_loop()
                context.events.emit(ThreadStatusEvent(status="running", **context.base()))
                if message is not None:
                    (message,) = context.persist([message])
    except BaseException:
        claimed = False
        raise
    finally:
        if not claimed:
            leases.release(run_id)
            context.running = False
            if unsubscribe is not None:
                unsubscribe()
    return _Claimed(message, unsubscribe) if claimed else None


async def _run_claimed(
    context: ThreadContext,
    loop: RunLoop,
    claimed: _Claimed,
    report: Callable[[Run], None] | None,
) -> Run:
    """Run the loop under a won claim (on its message, or resuming), heartbeat the lease,
    and record the outcome; the lease ends with the run, however it ends. A run whose lease
    another process took over meanwhile ends "interrupted", writing nothing more."""
    run_id = loop.outcome.id
    beat = asyncio.create_task(context.leases.heartbeat(run_id))
    try:
        try:
            message = claimed.message
            # A handoff another process's run made between preparing and claiming: the
            # agent handed to answers (unchanged definitions are the ones resolved).
            loop.scope.definitions = context.refresh_definitions()
            outcome = await (loop.run(message) if message is not None else loop.resume())
        except StoreError as exc:
            # The store itself failed (a full disk, a damaged file): the run ends failed if
            # that can still be written, and the caller hears why, naming the file.
            with contextlib.suppress(StoreError):
                _finish(context, Run(run_id, context.id, "failed", error=str(exc)), report)
            raise
        except Exception as exc:  # a definition broke mid-run: the run fails, visibly
            if _lost_here(exc, context):
                return _taken_over(context, run_id, exc)
            outcome = Run(run_id, context.id, "failed", error=context.redact(str(exc)))
        except BaseException:
            if loop.outcome.status == "waiting":  # interrupted while a decision was asked for
                ended = loop.outcome
            else:
                ended = Run(
                    run_id, context.id, "interrupted", error="interrupted", session_status="failed"
                )  # its stop reason follows from its status
            # Taken over meanwhile: its end is for the other process to write.
            with contextlib.suppress(LeaseLostError):
                _finish(context, ended, report)
            raise
        try:
            return _finish(context, outcome, report)
        except LeaseLostError as exc:
            if not _lost_here(exc, context):
                raise
            return _taken_over(context, run_id, exc)
    finally:
        context.running = False
        context.leases.release(run_id)
        beat.cancel()
        if claimed.unsubscribe is not None:
            claimed.unsubscribe()


def _lost_here(error: Exception, context: ThreadContext) -> TypeGuard[LeaseLostError]:
    """Whether `error` refused a write of this run: its thread's lease was taken over (a
    child's lost lease is the child's run's to end)."""
    return isinstance(error, LeaseLostError) and error.thread_id == context.id


def _taken_over(context: ThreadContext, run_id: str, lost: LeaseLostError) -> Run:
    """The end of a run whose lease another process took over (this one was stopped past it):
    nothing more is written — that process answered its open calls and runs the thread now.
    Live listeners still hear the run end (a stream ends with its `run_finished`)."""
    outcome = Run(run_id, context.id, "interrupted", error=str(lost), session_status="failed")
    context.events.relay(
        RunFinishedEvent(
            run_id=run_id, status=outcome.status, error=outcome.error, **context.base()
        )
    )
    return outcome


async def _run_child(
    host: RunHost, child: ThreadContext, content: str | None, paths: list[str]
) -> Run:
    return await execute_run(host, child, content, paths)


def _finish(
    context: ThreadContext, outcome: Run, report: Callable[[Run], None] | None = None
) -> Run:
    if outcome.status == "interrupted":
        # Looked at when the thread is next opened: a call may still lack its result.
        context.identity.set_meta(interrupted=True)
    context.next_request, context.next_request_of = outcome.next_request, outcome.id
    if (outcome.status == "waiting") != context.identity.meta.waiting:
        context.identity.set_meta(waiting=outcome.status == "waiting")
    base = context.base()
    context.events.emit(ThreadStatusEvent(status="idle", **base))
    context.events.emit(
        RunFinishedEvent(
            run_id=outcome.id,
            status=outcome.status,
            text=outcome.text,
            error=outcome.error,
            stop_reason=outcome.stop_reason,
            **base,
        )
    )
    # One transaction: whoever waits on this thread sees its report, its final status and
    # the end of its lease together, never the status without the report.
    with context.transaction():
        if report is not None:
            report(outcome)
        if context.parent_id is not None:
            if outcome.status == "interrupted":
                context.identity.set_child_status("terminated")
            elif outcome.status == "waiting":
                context.identity.set_child_status("waiting")
            elif context.identity.resumable:
                context.identity.set_child_status("idle")
            else:
                context.identity.set_child_status(
                    "completed" if outcome.session_status == "completed" else "failed"
                )
        context.events.flush()
        if outcome.status != "waiting":  # a run that waits goes on with that turn later
            hand_over_left(context)
        context.leases.finish(outcome.id, outcome.status, outcome.text, outcome.error)
    return outcome
