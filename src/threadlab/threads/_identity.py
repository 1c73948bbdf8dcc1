"""`ThreadIdentity`: who a thread is — its record and the metadata the store keeps beside its
history (its label, what a child is to its parent, the agent answering now) — read and
changed in one place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._data import ThreadMeta, ThreadStatus
from ..store import Store, ThreadRecord

__all__ = ["ThreadIdentity"]


class ThreadIdentity:
    """One thread's record and metadata."""

    def __init__(self, store: Store, record: ThreadRecord, damaged: Callable[[str], None]):
        self._store = store
        self._damaged = damaged
        self.record = record
        self.meta: ThreadMeta = self._read(record.metadata)

    def _read(self, raw: str | None) -> ThreadMeta:
        meta = ThreadMeta.read(raw)
        if meta is None:
            self._damaged("its metadata cannot be read; defaults are used")
            return ThreadMeta()
        return meta

    def reread(self) -> ThreadMeta:
        """The metadata as stored now (another process may have changed it)."""
        record = self._store.get_thread(self.record.id)
        if record is not None:
            self.meta = self._read(record.metadata)
        return self.meta

    def set_meta(self, **values: Any) -> None:
        """Change fields of the thread's metadata (`ThreadMeta`) and store it. The fields are
        changed on the metadata as stored now, not as this handle last read it: another
        process may have changed others since (a handoff made by another runtime's run), and
        writing an old copy back would undo that."""
        store, thread_id = self._store, self.record.id
        # Read and written under the thread's lock, in one transaction: of two processes
        # writing at once, the second reads what the first wrote.
        with store.transaction():
            store.lock_thread(thread_id)
            self.meta = self.reread().model_copy(update=values)
            store.update_thread_metadata(thread_id, self.meta.dumps())

    def set_child_status(self, status: ThreadStatus) -> None:
        self.set_meta(status=status)

    @property
    def agent(self) -> str:
        """The agent (or bare prompt) the thread was made for."""
        return self.record.target

    @property
    def answering_agent(self) -> str:
        """The agent answering now: the thread's own, or the one a handoff passed it to."""
        return self.meta.answering_agent or self.record.target

    @property
    def name(self) -> str:
        """A child's instance label; the agent's name otherwise."""
        return self.meta.name or self.record.target

    @property
    def description(self) -> str:
        return self.meta.description

    @property
    def blocking(self) -> bool:
        return self.meta.blocking

    @property
    def resumable(self) -> bool:
        return self.meta.resumable

    @property
    def parent_communication(self) -> str:
        return self.meta.parent_communication

    @property
    def runs_on_engine(self) -> bool:
        """A thread the runtime's engine runs (a Ray task) instead of the process that
        left it there: a non-blocking child, or a queued run."""
        return self.meta.runs_on == "engine"
