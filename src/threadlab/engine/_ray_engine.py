"""`tl.RayEngine`: the runs that leave the caller's process, as Ray tasks.

Each task opens its thread from the store and runs it there (`_on_worker`); the caller learns
of it through the store, as of a run in any other process. Ray places the tasks, tells when a
worker or node dies and runs the task again (`max_retries`); opening the thread then answers
its interrupted call "interrupted" (a call never runs twice) and the run goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import os
from collections.abc import Iterator
from typing import Any

from .._errors import StoreError, ThreadlabError
from ..runtime import Handled, Handoff, RunPolicy
from ..store import Store
from ._local_start import start_local_ray
from ._on_worker import Job, pack, run_job
from ._ray_address import joined_address
from ._store_address import address_of
from ._this_machine import is_this_machine

__all__ = ["RayEngine"]

log = logging.getLogger("threadlab.engine")

CPUS_PER_RUN = 0.25
"""What a run asks Ray for: a run mostly waits on its model, so four share a core (a worker
process each). `max_concurrency` caps how many run at once."""
_KEEP_SHIPPED = 4
"""Sets of definitions kept in Ray's object store (the latest ones: a task may still need
the one before a cell was run again)."""


class RayEngine:
    """Runs that leave the caller's process — `tl.evaluate`'s rows, non-blocking children,
    `thread.queue` — as Ray tasks on the cluster at `address`.

    Args:
        address: None starts a local Ray in this process (one machine, several worker
            processes) unless one is running already; "auto" joins the cluster this
            machine belongs to; "ray://host:10001" one elsewhere (its store must be
            PostgreSQL: a SQLite store is a file on this machine).
        max_concurrency: the most runs at once from this process (None: as many as the
            cluster has room for when the first run starts, four a core: a run mostly waits
            on its model); the others wait here, so that a run Ray runs again after its
            worker died is not queued behind them. A local Ray started here gets
            `max_concurrency` cores (else the machine's).
        runtime_env: Ray's runtime environment for the tasks (packages, environment
            variables); threadlab must be importable there.
        max_retries: how many times Ray runs a task again when its worker or node dies.

    The definitions a run needs (tools defined in notebook cells included) travel with the
    work, once per worker; the store's secret key never does: a local Ray started here
    inherits it, a cluster's workers need `THREADLAB_SECRET_KEY` set where they run.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        max_concurrency: int | None = None,
        runtime_env: dict[str, Any] | None = None,
        max_retries: int = 3,
    ) -> None:
        if address is not None and not (isinstance(address, str) and address.strip()):
            raise ValueError(f"address must be None or a Ray address, got {address!r}")
        if max_concurrency is not None and (
            not isinstance(max_concurrency, int) or max_concurrency < 1
        ):
            raise ValueError(f"max_concurrency must be None or at least 1, got {max_concurrency!r}")
        if not isinstance(max_retries, int) or max_retries < 0:
            raise ValueError(f"max_retries must be a whole number >= 0, got {max_retries!r}")
        self.address = address
        self.max_concurrency = max_concurrency
        self.runtime_env = runtime_env
        self.max_retries = max_retries
        self.started_here = False
        """Whether this engine started the local Ray it uses (`close` stops it)."""
        self._task: Any = None
        self._shipped: dict[str, Any] = {}  # digest of the definitions -> their object
        self._gate: asyncio.Semaphore | None = None
        self._gate_loop: asyncio.AbstractEventLoop | None = None
        self._generation = 0  # one more at each close: a run in flight then was cut off
        self._in_flight: set[asyncio.Future[Handled]] = set()

    def __repr__(self) -> str:
        return f"RayEngine({self.address!r}, max_concurrency={self.max_concurrency})"

    @property
    def remote(self) -> bool:
        """Whether its cluster may be on other machines than this one: its head is named by
        an address that is not this machine's. The address is read as Ray reads it (no
        connection is made): RAY_ADDRESS, where set, stands for no address and for "auto",
        as does the address `ray start` recorded on this machine."""
        address = joined_address(self.address)
        if address is None or address in ("auto", "local"):
            return False
        host = address.removeprefix("ray://").rsplit(":", 1)[0].strip("[]")
        return not is_this_machine(host)

    def check_store(self, store: Store) -> None:
        """`tl.StoreError` for a store the engine's workers cannot reach."""
        address = address_of(store)
        if address.shared_file and self.remote:
            raise StoreError(
                f"a SQLite store is a file on this machine ({address.spec}): the workers of"
                f" the Ray cluster at {self.address} cannot open it. Use a PostgreSQL store"
                " (postgresql://...) that the cluster's machines reach"
            )

    def run(self, handoff: Handoff) -> asyncio.Future[Handled]:
        """Run `handoff`'s thread as a Ray task (see `tl.Engine.run`)."""
        address = address_of(handoff.store)
        ray = self._connect({**address.inherited, **handoff.secrets.inheritable()})
        # The policy travels with the definitions: a worker's runtime is built with both.
        data, digest = _packed(handoff.registry, handoff.policy)
        shipped = self._shipped.pop(digest, None)
        if shipped is None:
            shipped = ray.put(data)
        self._shipped[digest] = shipped  # the latest last
        while len(self._shipped) > _KEEP_SHIPPED:
            self._shipped.pop(next(iter(self._shipped)))
        job = Job(
            address.spec,
            digest,
            [shipped],
            handoff.thread_id,
            handoff.model,
            handoff.secrets.fingerprint,
            handoff.step,
        )
        return asyncio.ensure_future(self._run(ray, job, self._generation))

    async def _run(self, ray: Any, job: Job, generation: int) -> Handled:
        async with self._concurrency():
            if self._closed_under(generation):
                return self._cut_off(job)  # closed while it waited: it never started
            ref = self._task.remote(job)
            # Held so that `close` can let go of it: a reference Ray shut down under never
            # ends by itself.
            result = asyncio.ensure_future(_ended_with(ref))
            self._in_flight.add(result)
            try:
                handled: Handled = await result
            except asyncio.CancelledError:
                task = asyncio.current_task()
                if self._closed_under(generation) and not (task and task.cancelling()):
                    return self._cut_off(job)  # `close` let go of it
                # The worker is stopped, not asked: a run cannot be interrupted from outside
                # its process. Whoever cancelled repairs the thread once the worker is gone.
                with contextlib.suppress(Exception):  # a Ray shut down meanwhile
                    ray.cancel(ref, force=True)
                with contextlib.suppress(Exception, asyncio.TimeoutError):
                    await asyncio.wait_for(asyncio.shield(_ended(ref)), 10)
                raise
            except Exception:
                if not self._closed_under(generation):
                    raise
                return self._cut_off(job)
            finally:
                self._in_flight.discard(result)
            return handled

    def _closed_under(self, generation: int) -> bool:
        return generation != self._generation

    def _cut_off(self, job: Job) -> Handled:
        """A run the engine was closed under (a Ray it started is shut down, its worker with
        it): it ends here, quietly; the thread is repaired when it is next opened."""
        log.info("thread %s: the engine was closed while it ran", job.thread_id)
        return Handled(None)

    def _concurrency(self) -> asyncio.Semaphore:
        # Runs beyond what Ray has room for wait here, not in Ray's queue: a task Ray runs
        # again after its worker died then takes the room its dead try left at once, instead
        # of waiting behind every run queued since.
        loop = asyncio.get_running_loop()
        if self._gate is None or self._gate_loop is not loop:
            room = self.max_concurrency or _room(_ray())
            self._gate, self._gate_loop = asyncio.Semaphore(room), loop
        return self._gate

    def _connect(self, inherited: dict[str, str]) -> Any:
        ray = _ray()
        if not ray.is_initialized():
            if self.address is None:
                with _environment(inherited):
                    start_local_ray(
                        ray,
                        num_cpus=self.max_concurrency or os.cpu_count() or 1,
                        include_dashboard=False,
                        # Its start-up notes would land in the notebook's output as stderr.
                        logging_level=logging.ERROR,
                    )
                self.started_here = True
            else:
                ray.init(address=self.address, logging_level=logging.ERROR)
        if self._task is None:
            # The runtime environment goes with each task: it applies on a Ray that was
            # running already (started by the user, or a cluster) as on one started here.
            self._task = ray.remote(run_job).options(
                max_retries=self.max_retries,
                retry_exceptions=False,
                runtime_env=self.runtime_env,
                num_cpus=CPUS_PER_RUN,
            )
        return ray

    def close(self) -> None:
        """Stop the local Ray this engine started (a cluster, or a Ray started by someone
        else, is left as it is)."""
        self._generation += 1
        for result in list(self._in_flight):  # from any thread: each on its own loop
            result.get_loop().call_soon_threadsafe(result.cancel)
        self._shipped.clear()
        self._task = None
        if self.started_here:
            _ray().shutdown()
            self.started_here = False


def _packed(registry: Any, policy: RunPolicy) -> tuple[bytes, str]:
    """The registry and `policy` pickled as they can travel: an approver that does not pickle
    (a notebook's, that asks a person in a card) stays here, and on the worker a call that
    needs a decision waits for one, as with no approver: a person then decides it here
    (never approved by default). Definitions that do not pickle raise as before."""
    try:
        return pack((registry, policy))
    except Exception as exc:
        if policy.approver is None:
            raise
        log.info("the approver stays in this process (%s): calls wait for a decision", exc)
        return pack((registry, dataclasses.replace(policy, approver=None)))


def _room(ray: Any) -> int:
    """How many runs the cluster has room for now (`CPUS_PER_RUN` each)."""
    cpus = float(ray.cluster_resources().get("CPU", 1.0))
    return max(1, int(cpus / CPUS_PER_RUN))


async def _ended_with(ref: Any) -> Handled:
    handled: Handled = await ref
    return handled


async def _ended(ref: Any) -> None:
    with contextlib.suppress(Exception):
        await ref


def _ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise ThreadlabError("tl.RayEngine needs Ray: pip install 'threadlab[ray]'") from exc
    return ray


@contextlib.contextmanager
def _environment(values: dict[str, str]) -> Iterator[None]:
    """`values` in this process's environment while a local Ray starts (its processes
    inherit it), and as they were afterwards."""
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
