"""What a runtime asks of an engine that runs threads outside its process (`tl.RayEngine`):
the thread to run and what running it needs, handed over once its message is queued in the
store. The engine lives above the runtime; this is the runtime's side of the contract."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Protocol

from .._data import Budget, Run
from ..definitions import Registry
from ..execution import NO_STEPPING, Approver, Limits, Stepping
from ..store import Store
from ..threads import SecretBox

__all__ = ["Engine", "Handled", "Handoff", "RunPolicy"]


@dataclass(frozen=True)
class RunPolicy:
    """What bounds and decides every run of a runtime, wherever the run happens: a run an
    engine takes elsewhere keeps them all, as in the caller's process. (An elicitor is not
    among them: it answers a server's form with a person at hand, in a notebook's card;
    on a worker, as in a runtime without one, the form is declined.)"""

    limits: Limits
    approver: Approver | None = None
    budget: Budget | None = None


@dataclass(frozen=True)
class Handoff:
    """A thread left to an engine: its message is queued in `store`; whoever runs it opens
    it there with `registry`'s definitions (and `model` instead of its prompts' own)."""

    registry: Registry
    store: Store
    secrets: SecretBox
    thread_id: str
    model: Any = None
    policy: RunPolicy = RunPolicy(Limits())
    """The caller's limits, approver and budget: the run keeps them."""
    step: Stepping = NO_STEPPING
    """Where the run pauses for a person (`thread.queue(step=...)`)."""


@dataclass(frozen=True)
class Handled:
    """How an engine ran a thread: its last run (None when nothing was left to run), and
    whether a worker died in the middle of it (its open calls were answered "interrupted"
    and the engine ran it on)."""

    run: Run | None
    repaired: bool = False


class Engine(Protocol):
    """Runs threads elsewhere (`tl.RayEngine`)."""

    def run(self, handoff: Handoff) -> asyncio.Future[Handled]:
        """Run the thread until nothing waits for it; the future ends when the engine is done
        with it: how it ran, or the error that ended the engine's tries (its worker stopped
        each time). The store holds the outcome either way. Cancelling the future stops the
        run (and the worker at it)."""
        ...

    def check_store(self, store: Store) -> None:
        """`tl.StoreError` when the engine's workers could not reach `store`."""
        ...

    def close(self) -> None:
        """Let go of what the engine holds (a Ray it started)."""
        ...
