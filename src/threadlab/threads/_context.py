"""`ThreadContext`: one thread as a running step sees it — everything a reader sees
(`ThreadReader`), and what a run adds: persisting messages with the buffered events in one
transaction, the run's lock and model override, and messages between parent and child.

The public `Thread` handle, the run loop, `ThreadState` and the subagent supervisor are all
written against these objects, instead of reaching into each other's private members; the
store and the event sink stay behind them.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from .._data import EventOrigin, Message, SeenRequest
from .._errors import CallContextError
from ..definitions import Registry, ThreadDefinitions
from ..store import Store, ThreadRecord
from ._attachments import copy_attachments
from ._lease import RunLeases
from ._reader import ThreadHandle, ThreadReader
from ._secret_box import SecretBox

__all__ = ["ThreadContext", "ThreadDirectory"]


class ThreadDirectory(Protocol):
    """How one thread reaches the others of its store (the runtime's host is the directory)."""

    def context(self, thread_id: str) -> ThreadContext: ...
    def handle(self, thread_id: str) -> ThreadHandle: ...


class ThreadContext(ThreadReader):
    """One thread while a process may run it: what readers see, and what a running step
    needs."""

    def __init__(
        self,
        directory: ThreadDirectory,
        store: Store,
        leases: RunLeases,
        secrets: SecretBox,
        registry: Registry,
        record: ThreadRecord,
        parent: ThreadContext | None,
    ) -> None:
        super().__init__(directory, store, leases, secrets, registry, record, parent)
        self._directory = directory
        self._parent: ThreadContext | None = parent
        self.lock = asyncio.Lock()
        self.model_override: Any = None  # a model name or object, never persisted
        # The request its last run here paused before (step mode), for a view to show; the
        # pause itself is stored with the thread (a resume after a restart sends the step).
        self.next_request: SeenRequest | None = None
        self.next_request_of: str | None = None  # the run that paused before sending it

    def parent(self) -> ThreadContext | None:
        return self._parent

    def children(self) -> list[ThreadContext]:
        return [self._directory.context(r.id) for r in self._store.list_children(self.id)]

    @property
    def running(self) -> bool:
        """Whether this process runs the thread now."""
        return self.history.live

    @running.setter
    def running(self, value: bool) -> None:
        self.history.live = value

    def adopt_definitions(self, definitions: ThreadDefinitions) -> None:
        """Use definitions already resolved (at creation, where they were checked)."""
        self._definitions = definitions
        self._definitions_key = (self.registry.version, self.identity.answering_agent)

    # writing: messages, and the transactions they and the events commit in

    def persist(
        self, messages: Sequence[Message], base: EventOrigin | None = None
    ) -> list[Message]:
        """Redact, announce and persist messages with the buffered events, in one transaction."""
        return self.history.persist(messages, base or self.base())

    def transaction(self) -> AbstractContextManager[None]:
        """One store transaction: everything written in it commits together."""
        return self._store.transaction()

    # messages between parent and child

    def deliver(self, content: str, attachments: Iterable[str], subagent_id: str) -> None:
        """Queue a message from a child; the next step of this thread picks it up."""
        self.inbox.put(
            Message(
                role="user",
                content=content,
                attachments=tuple(attachments),
                subagent_id=subagent_id,
            )
        )

    def notify_parent(self, content: str, attachments: Iterable[str]) -> None:
        """Send the parent a message, its attachments copied into the parent's filesystem."""
        parent = self._parent
        if parent is None:
            raise CallContextError(f"thread {self.id} has no parent to notify")
        paths = copy_attachments(self.files, parent.files, attachments)
        parent.deliver(content, paths, self.id)
