"""Where a thread's events go: to live listeners at once, and to the store with the next write.

Events are buffered between writes so that a step's deltas and its message commit in one
transaction; everything emitted is persisted before the run ends.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, cast

from .._data import Message, ThreadEvent
from ..store import LeaseLostError, Store, StoredEvent, StoredMessage
from ._redaction import Redactor

__all__ = ["LIVE_ONLY", "Emit", "EventSink", "EventT", "Listener", "ThreadEvents"]

LIVE_ONLY = frozenset({"text_delta", "tool_call_delta"})
"""Events for live consumers only (`Thread.stream`, views), never persisted: the messages hold
the whole text and arguments, so a replay needs none of the chunks."""

Listener = Callable[[ThreadEvent], None]
EventT = TypeVar("EventT", bound=ThreadEvent)


class Emit(Protocol):
    """Hands an event on and returns it as delivered (redacted)."""

    def __call__(self, event: EventT, /) -> EventT: ...


class EventSink:
    """One thread's events: redacted, handed to live listeners, and (all but the deltas)
    buffered for the store."""

    def __init__(self, store: Store, redactor: Redactor, thread_id: str) -> None:
        self.thread_id = thread_id
        self._store = store
        self._redactor = redactor
        self._pending: list[StoredEvent] = []
        self._listeners: list[Listener] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        # A child thread's events also reach its ancestors' live listeners (not their store).
        self.upstream: EventSink | None = None
        self._loop_thread: int | None = None

    def bind_loop(self) -> None:
        """Remember the loop events are delivered on (emits from pooled threads hop onto it)."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener) if listener in self._listeners else None

    def emit(self, event: EventT, *, stored: bool = True) -> EventT:
        if self._redactor:
            event = self._redacted(event)
        record = self._record if stored else self.relay
        if self._loop is not None and threading.get_ident() != self._loop_thread:
            self._loop.call_soon_threadsafe(record, event)
        else:
            record(event)
        return event

    def _redacted(self, event: EventT) -> EventT:
        # Free text is redacted; names and ids the model or a tool chose keep their shape.
        update: dict[str, Any] = {}
        for field in _FREE_TEXT.get(event.type, ()):
            value = getattr(event, field)
            if value is not None:
                update[field] = self._redactor.value(value)
        for field in _CHOSEN:
            value = getattr(event, field, None)
            if isinstance(value, str):
                update[field] = self._redactor.identifier(value)
        return cast(EventT, event.model_copy(update=update)) if update else event

    def _record(self, event: ThreadEvent) -> None:
        if event.type not in LIVE_ONLY:
            self._pending.append(StoredEvent(event.thread_id, event.type, event.model_dump_json()))
        self.relay(event)

    def relay(self, event: ThreadEvent) -> None:
        for listener in list(self._listeners):
            listener(event)
        if self.upstream is not None:
            self.upstream.relay(event)

    @property
    def listening(self) -> bool:
        """Whether anyone receives this thread's events live (here or at an ancestor): when
        nobody does, the live-only deltas need not be made at all."""
        sink: EventSink | None = self
        while sink is not None:
            if sink._listeners:
                return True
            sink = sink.upstream
        return False

    def persist(self, messages: Sequence[Message] = ()) -> None:
        """Write messages and every buffered event in one transaction."""
        try:
            with self._store.transaction():
                if messages:
                    self._store.add_messages(
                        [
                            StoredMessage(m.id, self.thread_id, m.depth, m.model_dump_json())
                            for m in messages
                        ]
                    )
                if self._pending:
                    self._store.add_events(self._pending)
                    self._pending = []
        except LeaseLostError:
            # The run that emitted them lost the thread to another process: they are never to
            # be written, not even with the next run's first write.
            self._pending = []
            raise


class ThreadEvents:
    """A thread's events as the machinery running it uses them: emit (redacted, heard live,
    buffered for the next write), relay (heard live only), listen, and write what is buffered.
    The sink behind it, and the store it writes to, stay private to `threads/`."""

    def __init__(self, sink: EventSink) -> None:
        self._sink = sink

    def emit(self, event: EventT, *, stored: bool = True) -> EventT:
        """Redact the event, hand it to live listeners and buffer it for the next write
        (`stored=False`: live listeners only); returns it as delivered."""
        return self._sink.emit(event, stored=stored)

    def relay(self, event: ThreadEvent) -> None:
        """Hand an event to live listeners only (it is already stored, or never will be)."""
        self._sink.relay(event)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Hear the thread's events (and its descendants') live; returns the unsubscriber."""
        return self._sink.subscribe(listener)

    def bind_loop(self) -> None:
        """Deliver events on the running loop (emits from pooled threads hop onto it)."""
        self._sink.bind_loop()

    @property
    def listening(self) -> bool:
        """Whether anyone hears the thread's events live."""
        return self._sink.listening

    def flush(self) -> None:
        """Write the buffered events, in the caller's transaction if there is one."""
        self._sink.persist()


# The fields of each event type that carry free text (everything else is structure).
_FREE_TEXT: dict[str, tuple[str, ...]] = {
    "text_delta": ("delta",),
    "tool_call_delta": ("delta",),
    "tool_call_started": ("progress",),
    "custom": ("data",),
    "run_finished": ("text", "error"),
    "tool_call_finished": ("traceback",),
    "approval_requested": ("arguments", "progress"),
    "approval_decided": ("arguments", "reason"),
}
# Names and ids a model or a tool chose: kept in shape, replaced whole if they hold a secret.
_CHOSEN = ("tool_call_id", "parent_tool_call_id", "name", "event_type")
