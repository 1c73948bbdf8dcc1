"""What a Ray task runs in a worker process: open the thread from the store with the shipped
definitions and run it until nothing waits for it, as the caller's process would have.

A worker keeps one runtime per store and definitions (tasks after the first open nothing
but their thread) and one event loop (tasks of a worker process run one at a time)."""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass
from typing import Any

from .._data import Run
from ..execution import (
    NO_STEPPING,
    Stepping,
    child_outcome,
    deliver_report,
    fail_queued,
    needs_a_step,
    resume_run,
)
from ..runtime import Handled, RunPolicy, Runtime
from ..threads import KEY_ENV, ThreadContext

__all__ = ["NO_KEY", "WRONG_KEY", "Job", "pack", "run_job"]

NO_KEY = f"{KEY_ENV} is not set on the worker: its secrets cannot be read there"
WRONG_KEY = f"{KEY_ENV} on the worker is not the key of this store: its secrets cannot be read"


@dataclass(frozen=True)
class Job:
    """One thread for a worker to run."""

    store: str
    """The store's address (`StoreAddress.spec`)."""
    definitions: str
    """The digest of the pickled registry and run policy (a worker that has them opens
    nothing more)."""
    shipped: list[Any]
    """The pickled registry and policy in Ray's store, in a list so that Ray hands the
    reference over rather than the object: only a worker without them fetches them."""
    thread_id: str
    model: Any
    """A model (object or name) its prompts use instead of their own; None: their own."""
    key: str
    """The fingerprint of the caller's secret key (never the key)."""
    step: Stepping = NO_STEPPING
    """Where the run pauses for a person."""


def pack(shipped: Any) -> tuple[bytes, str]:
    """What a worker's runtime is built from (the registry and the run policy), pickled
    (cell-defined tools and approvers by value), and its digest."""
    from ray import cloudpickle

    data: bytes = cloudpickle.dumps(shipped)  # type: ignore[no-untyped-call]
    return data, hashlib.sha256(data).hexdigest()


_RUNTIMES: dict[tuple[str, str], Runtime] = {}
_LOOP: asyncio.AbstractEventLoop | None = None


def run_job(job: Job) -> Handled:
    """Run `job`'s thread in this worker (the body of the Ray task)."""
    global _LOOP
    if _LOOP is None:
        _LOOP = asyncio.new_event_loop()
    return _LOOP.run_until_complete(_run(_runtime(job), job))


def _runtime(job: Job) -> Runtime:
    key = (job.store, job.definitions)
    runtime = _RUNTIMES.get(key)
    if runtime is None:
        import ray
        from ray import cloudpickle

        registry, policy = cloudpickle.loads(ray.get(job.shipped[0]))
        # An older set of definitions of the same store is not used again: let it go.
        for old in [k for k in _RUNTIMES if k[0] == job.store]:
            _RUNTIMES.pop(old).close()
        runtime = _RUNTIMES[key] = _runtime_under(registry, job.store, policy)
    return runtime


def _runtime_under(registry: Any, store: str, policy: RunPolicy) -> Runtime:
    """A runtime whose runs keep the caller's limits, approver and budget."""
    limits = policy.limits
    return Runtime(
        registry,
        store,
        max_consecutive_failures=limits.max_consecutive_failures,
        max_steps=limits.max_steps,
        max_session_turns=limits.max_session_turns,
        hook_timeout=limits.hook_timeout,
        poll_interval=limits.poll_interval,
        approver=policy.approver,
        budget=policy.budget,
    )


async def _run(runtime: Runtime, job: Job) -> Handled:
    host = runtime._host
    # A run still recorded as running is an earlier try's, whose worker died (Ray tries
    # again only then): opening the thread repairs it, its open calls answered "interrupted".
    repaired = bool(runtime.store.running_runs(job.thread_id))
    context = host.context(job.thread_id)
    if host.secrets.fingerprint != job.key:
        # Its secrets would not decrypt here: say why, instead of failing on each of them.
        import os

        fail_queued(context, WRONG_KEY if os.environ.get(KEY_ENV) else NO_KEY)
        return Handled(None, False)
    if job.model is not None:
        context.model_override = job.model
    run: Run | None = None
    # What the history leaves open is run once (a try after a worker died goes on from its
    # repair); after that only a message sent meanwhile starts another run (a resumable
    # child messaged while it ran). A run that stopped stays stopped, as in the caller.
    while context.inbox.waiting() or (run is None and needs_a_step(context.history.messages())):
        run = await resume_run(host, context, report=_reporter(context), step=job.step)
        if run.status in ("queued", "waiting"):
            break
    return Handled(run, repaired)


def _reporter(child: ThreadContext) -> Any:
    parent = child.parent()
    if parent is None or child.identity.parent_communication != "implicit":
        return None

    def report(run: Run) -> None:  # in the transaction that ends the child's run
        if run.status != "waiting":
            deliver_report(parent, child, child_outcome(parent, child, run))

    return report
