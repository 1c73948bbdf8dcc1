"""`ThreadInbox`: the messages waiting for a thread's next step (sent while it ran, a child's
report, a message a worker will pick up), kept in the store so any process can take them."""

from __future__ import annotations

from .._data import Message
from ..store import Store

__all__ = ["ThreadInbox"]


class ThreadInbox:
    """One thread's queue of waiting messages, oldest first."""

    def __init__(self, store: Store, thread_id: str) -> None:
        self._store = store
        self._thread_id = thread_id

    def put(self, message: Message) -> None:
        self._store.enqueue(self._thread_id, message.model_dump_json())

    def take_all(self) -> list[Message]:
        """Every waiting message, removed from the queue."""
        return [Message.model_validate_json(d) for d in self._store.drain_queue(self._thread_id)]

    def take_oldest(self) -> Message | None:
        """The oldest waiting message, removed from the queue; None when none waits."""
        data = self._store.pop_queued(self._thread_id)
        return None if data is None else Message.model_validate_json(data)

    def waiting(self) -> bool:
        """Whether a message waits."""
        return self._store.has_queued(self._thread_id)
