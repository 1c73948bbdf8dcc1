"""`ThreadContext`: one thread's state as the machinery sees it — its record, history, event
sink, env, files and place among its parent and children.

The public `Thread` handle, the run loop, `ThreadState` and the subagent supervisor are all
written against this one object, instead of reaching into each other's private members.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from .._errors import CallContextError
from .._records import (
    ChildInfo,
    EventOrigin,
    FileWrittenEvent,
    Message,
    MessageCreatedEvent,
    ThreadEvent,
    ThreadMeta,
    ThreadStatus,
    event_from_json,
)
from ..definitions import Registry, ThreadGraph
from ..store import FileRecord, Store, ThreadRecord
from ._attachments import copy_attachments
from ._env import ThreadEnv
from ._files import ThreadFiles
from ._lease import is_live
from ._redaction import Redactor
from ._secret_box import SecretBox
from ._sink import EventSink, EventT

__all__ = ["ThreadContext", "ThreadDirectory", "ThreadHandle"]

log = logging.getLogger("threadlab.store")


class ThreadHandle(Protocol):
    """What a tool gets of another thread (`state.get_child_thread`, `get_parent_thread`):
    the public `Thread` handle, read-only here."""

    @property
    def id(self) -> str: ...
    @property
    def parent_id(self) -> str | None: ...
    @property
    def agent(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def status(self) -> ThreadStatus: ...
    @property
    def messages(self) -> list[Message]: ...
    @property
    def files(self) -> ThreadFiles: ...


class ThreadDirectory(Protocol):
    """How one thread reaches the others of its store (the Runtime is the directory)."""

    def context(self, thread_id: str) -> ThreadContext: ...
    def handle(self, thread_id: str) -> ThreadHandle: ...


class ThreadContext:
    """One thread's record, history, events, env, files and relationships."""

    def __init__(
        self,
        directory: ThreadDirectory,
        store: Store,
        secrets: SecretBox,
        registry: Registry,
        record: ThreadRecord,
        parent: ThreadContext | None,
    ) -> None:
        self.directory = directory
        self.store = store
        self.registry = registry
        self.record = record
        self.id = record.id
        self.parent_id = record.parent_id
        self.path: tuple[str, ...] = (*parent.path, record.id) if parent else (record.id,)
        self.damage: list[str] = []  # what of this thread could not be read from the store
        self.meta: ThreadMeta = self._read_meta(record.metadata)
        # One redactor per thread tree: a child inherits its parent's secrets.
        self.redactor: Redactor = parent.redactor if parent is not None else Redactor()
        self.sink = EventSink(store, self.redactor, self.id)
        if parent is not None:
            self.sink.upstream = parent.sink
        self.files = ThreadFiles(store, self.id, self._file_written)
        self._secrets = secrets
        self._parent = parent
        self.history: list[Message] = []  # the top-level conversation (depth 0)
        self._all: list[Message] = []
        self._loaded = False
        self._events: list[ThreadEvent] = []
        self._events_read_to: int | None = None  # the last event's place in the store
        self._rows = 0
        self._env: ThreadEnv | None = None
        self._graph: ThreadGraph | None = None
        self._graph_key: tuple[int, str] | None = None
        self.lock = asyncio.Lock()
        self.running = False
        self.model_override: Any = None  # a model name or object, never persisted

    def _read_meta(self, raw: str | None) -> ThreadMeta:
        meta = ThreadMeta.read(raw)
        if meta is None:
            self._damaged("its metadata cannot be read; defaults are used")
            return ThreadMeta()
        return meta

    def _damaged(self, what: str) -> None:
        if what not in self.damage:
            self.damage.append(what)
            log.warning("thread %s is damaged: %s", self.id, what)

    # who it is

    @property
    def agent(self) -> str:
        return self.record.target

    @property
    def owner(self) -> str:
        return self.meta.owner or self.record.target

    @property
    def name(self) -> str:
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
    def runs_on_workers(self) -> bool:
        """A child its parent leaves in the store for a worker (`Runtime.serve`), instead of
        running it in the parent's process."""
        return self.meta.runs_on == "workers"

    def _run_somewhere(self) -> bool:
        """Whether this process or another holds a live run of the thread."""
        return self.running or any(is_live(r) for r in self.store.running_runs(self.id))

    def busy(self) -> bool:
        """Whether someone, in any process, runs the thread now or a message waits for it."""
        # The queue first: a claim moves a message from the queue to a run in one commit,
        # so read in this order a message being claimed is seen in one place or the other.
        return self.store.has_queued(self.id) or self._run_somewhere()

    def status(self) -> ThreadStatus:
        """ "running" or "idle"; a child reports its lifecycle too."""
        if self._run_somewhere():
            return "running"
        record = self.store.get_thread(self.id)
        if record is not None:
            self.meta = self._read_meta(record.metadata)
        if self.meta.waiting:
            return "waiting"
        if self.parent_id is not None:
            status = self.meta.status
            return status if status in _CHILD_STATUSES else "idle"
        return "idle"

    def set_meta(self, **values: Any) -> None:
        """Change fields of the thread's metadata (`ThreadMeta`) and store it."""
        self.meta = self.meta.model_copy(update=values)
        self.store.update_thread_metadata(self.id, self.meta.dumps())

    def set_child_status(self, status: ThreadStatus) -> None:
        self.set_meta(status=status)

    # relationships

    def parent(self) -> ThreadContext | None:
        return self._parent

    def children(self) -> list[ThreadContext]:
        return [self.directory.context(r.id) for r in self.store.list_children(self.id)]

    def child_info(self) -> ChildInfo:
        return ChildInfo(
            reference=self.id,
            agent=self.agent,
            name=self.name,
            description=self.description,
            blocking=self.blocking,
            resumable=self.resumable,
            status=self.status(),
        )

    def child_infos(self) -> list[ChildInfo]:
        return [child.child_info() for child in self.children()]

    # definitions and env

    def refresh_graph(self) -> ThreadGraph:
        """The definitions of the agent answering now, resolved in the registry as it is now
        (a redefined prompt takes effect from the next step; an unchanged registry gives the
        graph already resolved)."""
        key = (self.registry.version, self.owner)  # a handoff changes the owner
        if self._graph is not None and self._graph_key == key:
            return self._graph
        self._graph = ThreadGraph(self.registry, self.owner)
        self._graph_key = key
        if self._env is not None:
            self._env.graph = self._graph
        return self._graph

    @property
    def graph(self) -> ThreadGraph:
        return self._graph if self._graph is not None else self.refresh_graph()

    def adopt_graph(self, graph: ThreadGraph) -> None:
        """Use a graph already built (at creation, where it was checked)."""
        self._graph = graph
        self._graph_key = (self.registry.version, self.owner)

    @property
    def env(self) -> ThreadEnv:
        if self._env is None:
            parent = self._parent.env if self._parent is not None else None
            self._env = ThreadEnv(
                self.store, self._secrets, self.id, self.graph, self.redactor, parent
            )
        return self._env

    # history

    def reload(self, *, force: bool = False) -> None:
        """Read the persisted messages again if the store has more than memory."""
        stored = self.store.list_messages(self.id)
        if self._loaded and not force and len(stored) == self._rows:
            return
        messages: list[Message] = []
        for row in stored:
            try:
                messages.append(Message.model_validate_json(row.data))
            except ValueError:  # pydantic's ValidationError included
                self._damaged(f"message {row.id} cannot be read and is left out")
        self._all = messages
        self._rows = len(stored)
        self.history = [m for m in self._all if m.depth == 0]
        self._loaded = True

    def messages(self) -> list[Message]:
        if not self.running:
            self.reload()
        return list(self.history)

    def all_messages(self) -> list[Message]:
        if not self.running:
            self.reload()
        return list(self._all)

    def find_message(self, message_id: str) -> Message | None:
        for message in reversed(self._all):
            if message.id == message_id:
                return message
        self.reload()
        return next((m for m in self._all if m.id == message_id), None)

    def events(self) -> list[ThreadEvent]:
        # Events are only ever appended: read (and parse) only those stored since last time,
        # where that cannot skip one: the store numbers events in commit order, or this
        # process runs the thread (then it is the only writer).
        if not (self.running or getattr(self.store, "events_in_commit_order", False)):
            self._events.clear()
            self._events_read_to = None
        for row in self.store.iter_events(self.id, after=self._events_read_to):
            self._events_read_to = row.seq
            try:
                self._events.append(event_from_json(row.data))
            except ValueError:
                self._damaged("an event cannot be read and is left out")
        return list(self._events)

    # writing

    def base(self) -> EventOrigin:
        """The fields every event of this thread carries."""
        return {"thread_id": self.id, "thread_path": self.path}

    def emit(self, event: EventT) -> EventT:
        return self.sink.emit(event)

    def redact(self, text: str) -> str:
        return self.redactor.text(text)

    def persist(
        self, messages: Sequence[Message], base: EventOrigin | None = None
    ) -> list[Message]:
        """Redact, announce and persist messages in one transaction, then keep them in memory."""
        stored = [self._redact_message(m) for m in messages]
        for message in stored:
            self.emit(
                MessageCreatedEvent(
                    message_id=message.id, role=message.role, **(base or self.base())
                )
            )
        self.sink.persist(stored)
        for message in stored:
            self._all.append(message)
            if message.depth == 0:
                self.history.append(message)
        return stored

    def _redact_message(self, message: Message) -> Message:
        if not self.redactor:
            return message
        redactor = self.redactor
        update: dict[str, Any] = {}
        if message.content:
            update["content"] = redactor.text(message.content)
        if message.tool_calls:
            update["tool_calls"] = tuple(
                c.model_copy(
                    update={
                        "id": redactor.identifier(c.id),
                        "name": redactor.identifier(c.name),
                        "arguments": redactor.raw(c.arguments)
                        if isinstance(c.arguments, str)
                        else redactor.value(c.arguments),
                    }
                )
                for c in message.tool_calls
            )
        if message.reasoning:
            # A secret in signed thinking breaks its signature: the next request is refused,
            # which is the price of never storing it.
            update["reasoning"] = tuple(
                r.model_copy(update={"text": redactor.text(r.text)}) for r in message.reasoning
            )
        if message.request is not None and (
            message.request.tools
            or message.request.parameters
            or any(e.message for e in message.request.add)
        ):
            # What the step was sent, where the store does not already hold it redacted.
            request = message.request
            update["request"] = request.model_copy(
                update={
                    "add": tuple(
                        e.model_copy(update={"message": self._redact_message(e.message)})
                        if e.message is not None
                        else e
                        for e in request.add
                    ),
                    "tools": tuple(redactor.value(t) for t in request.tools)
                    if request.tools is not None
                    else None,
                    "parameters": redactor.value(request.parameters),
                }
            )
        for name in ("tool_call_id", "name", "parent_tool_call_id"):
            chosen = getattr(message, name)
            if chosen is not None:
                update[name] = redactor.identifier(chosen)
        return message.model_copy(update=update)

    def _file_written(self, file: FileRecord | str) -> None:
        if isinstance(file, str):
            event = FileWrittenEvent(path=file, size=0, deleted=True, **self.base())
        else:
            event = FileWrittenEvent(
                path=file.path, size=file.size, digest=file.digest, **self.base()
            )
        self.emit(event)
        if not self.running:
            self.sink.persist()

    # the queue: messages waiting for the thread's next step

    def enqueue(self, message: Message) -> None:
        self.store.enqueue(self.id, message.model_dump_json())

    def drain_queue(self) -> list[Message]:
        return [Message.model_validate_json(d) for d in self.store.drain_queue(self.id)]

    def has_queued(self) -> bool:
        return self.store.has_queued(self.id)

    def deliver(self, content: str, attachments: Iterable[str], subagent_id: str) -> None:
        """Queue a message from a child; the next step of this thread picks it up."""
        self.enqueue(
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


_CHILD_STATUSES = frozenset({"queued", "running", "idle", "completed", "failed", "terminated"})
