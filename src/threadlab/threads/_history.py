"""`ThreadHistory`: one thread's messages and events as stored, read back incrementally and
kept in memory while the thread runs here; new messages are redacted, announced and persisted
with the events emitted since the last write, in one transaction."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet

from .._data import EventOrigin, Message, MessageCreatedEvent, ThreadEvent, event_from_json
from ..store import MessageCounter, Store
from ._redaction import Redactor, redact_message
from ._sink import EventSink

__all__ = ["ThreadHistory"]


class ThreadHistory:
    """The messages (all depths) and events of one thread."""

    def __init__(
        self,
        store: Store,
        thread_id: str,
        redactor: Redactor,
        sink: EventSink,
        damaged: Callable[[str], None],
    ) -> None:
        self._store = store
        # Asked once: an isinstance against a protocol costs tens of microseconds, and a
        # thread's messages are read several times a run.
        self._counter = store if isinstance(store, MessageCounter) else None
        self._thread_id = thread_id
        self._redactor = redactor
        self._sink = sink
        self._damaged = damaged
        self.top: list[Message] = []
        """The top-level conversation (depth 0), as held in memory."""
        self._all: list[Message] = []
        self._by_id: dict[str, Message] = {}  # a long thread's lookups stay O(1)
        self._call_ids: set[str] = set()  # every tool call's id, nested turns' included
        self._loaded = False
        self._rows = 0
        self._events: list[ThreadEvent] = []
        self._events_read_to: int | None = None  # the last event's place in the store
        self.live = False
        """Whether this process runs the thread now: then memory is the truth (it is the only
        writer) and reads skip the store."""

    def reload(self, *, force: bool = False) -> None:
        """Read the persisted messages again if the store has more than memory."""
        # Counting is cheap; reading a long thread's every row before each run is not.
        counter = self._counter
        if (
            self._loaded
            and not force
            and counter is not None
            and counter.count_messages(self._thread_id) == self._rows
        ):
            return
        stored = self._store.list_messages(self._thread_id)
        if self._loaded and not force and len(stored) == self._rows:
            return
        messages: list[Message] = []
        for row in stored:
            try:
                messages.append(Message.model_validate_json(row.data))
            except ValueError:  # pydantic's ValidationError included
                self._damaged(f"message {row.id} cannot be read and is left out")
        self._all = messages
        self._by_id = {m.id: m for m in messages}
        self._call_ids = {call.id for m in messages for call in m.tool_calls}
        self._rows = len(stored)
        self.top = [m for m in self._all if m.depth == 0]
        self._loaded = True

    def messages(self) -> list[Message]:
        """The top-level conversation."""
        if not self.live:
            self.reload()
        return list(self.top)

    def all(self) -> list[Message]:
        """Every message, nested turns' included, in the order they were persisted."""
        if not self.live:
            self.reload()
        return list(self._all)

    def find(self, message_id: str) -> Message | None:
        found = self._by_id.get(message_id)
        if found is None:
            self.reload()
            found = self._by_id.get(message_id)
        return found

    def call_ids(self) -> AbstractSet[str]:
        """The ids of every tool call made in this thread so far: a new call may not take one
        (its card, its decision and its result are found by it)."""
        if not self.live:
            self.reload()
        return self._call_ids

    def events(self) -> list[ThreadEvent]:
        # Events are only ever appended: read (and parse) only those stored since last time,
        # where that cannot skip one: the store numbers events in commit order, or this
        # process runs the thread (then it is the only writer).
        if not (self.live or self._store.events_in_commit_order):
            self._events.clear()
            self._events_read_to = None
        for row in self._store.iter_events(self._thread_id, after=self._events_read_to):
            self._events_read_to = row.seq
            try:
                self._events.append(event_from_json(row.data))
            except ValueError:
                self._damaged("an event cannot be read and is left out")
        return list(self._events)

    def persist(self, messages: Sequence[Message], base: EventOrigin) -> list[Message]:
        """Redact, announce and persist messages in one transaction (with the events emitted
        since the last write), then keep them in memory."""
        stored = [redact_message(self._redactor, m) for m in messages]
        for message in stored:
            self._sink.emit(MessageCreatedEvent(message_id=message.id, role=message.role, **base))
        self._sink.persist(stored)
        for message in stored:
            self._all.append(message)
            self._by_id[message.id] = message
            self._call_ids.update(call.id for call in message.tool_calls)
            if message.depth == 0:
                self.top.append(message)
        # What memory holds is what the store holds: the next reload need not parse it again.
        self._rows += len(stored)
        return stored
