"""`ThreadReader`: one thread as whoever reads it sees it — its place among its parent and
children, its definitions and env, and the parts that each do one job: its `identity` (record
and metadata), `history` (messages and events as stored), `events` (emitted, heard live,
written with the next step), `inbox` (messages waiting for its next step), `files`, and the
store's `leases` of runs. What a running step adds (persisting, transactions, the run's lock,
messages between parent and child) is `ThreadContext`'s.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from typing import Protocol

from .._data import ChildInfo, EventOrigin, FileWrittenEvent, Message, ThreadStatus
from .._errors import ThreadlabError
from ..definitions import Registry, ThreadDefinitions
from ..store import FileRecord, Store, ThreadRecord
from ._env import ThreadEnv
from ._files import ThreadFiles
from ._history import ThreadHistory
from ._identity import ThreadIdentity
from ._inbox import ThreadInbox
from ._lease import RunLeases
from ._redaction import Redactor
from ._secret_box import SecretBox
from ._sink import EventSink, ThreadEvents

__all__ = ["ReaderDirectory", "ThreadHandle", "ThreadReader"]

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


class ReaderDirectory(Protocol):
    """How one thread reaches the others of its store (the Runtime is the directory)."""

    def context(self, thread_id: str) -> ThreadReader: ...
    def handle(self, thread_id: str) -> ThreadHandle: ...


class ThreadReader:
    """One thread as a reader sees it: its identity, relationships, definitions and env, with
    its history, events, inbox and files, and whether a run holds it (the store's leases)."""

    def __init__(
        self,
        directory: ReaderDirectory,
        store: Store,
        leases: RunLeases,
        secrets: SecretBox,
        registry: Registry,
        record: ThreadRecord,
        parent: ThreadReader | None,
    ) -> None:
        self.directory = directory
        self._store = store
        self.leases = leases
        self.registry = registry
        self.id = record.id
        self.parent_id = record.parent_id
        self.path: tuple[str, ...] = (*parent.path, record.id) if parent else (record.id,)
        self.damage: list[str] = []  # what of this thread could not be read from the store
        self.identity = ThreadIdentity(store, record, self._damaged)
        # One redactor per thread tree: a child inherits its parent's secrets.
        self.redactor: Redactor = (
            parent.redactor if parent is not None else Redactor(salt=secrets.salt)
        )
        self._sink = EventSink(store, self.redactor, self.id)
        if parent is not None:
            self._sink.upstream = parent._sink
        self.events = ThreadEvents(self._sink)
        self.history = ThreadHistory(store, self.id, self.redactor, self._sink, self._damaged)
        self.inbox = ThreadInbox(store, self.id)
        self.files = ThreadFiles(store, self.id, self._file_written, self._redact_name)
        self._secrets = secrets
        self._parent = parent
        self._env: ThreadEnv | None = None
        self._definitions: ThreadDefinitions | None = None
        self._definitions_key: tuple[int, str] | None = None

    def _damaged(self, what: str) -> None:
        if what not in self.damage:
            self.damage.append(what)
            log.warning("thread %s is damaged: %s", self.id, what)

    def _run_somewhere(self) -> bool:
        """Whether this process or another holds a live run of the thread."""
        return self.history.live or self.leases.held_now(self.id)

    def busy(self) -> bool:
        """Whether someone, in any process, runs the thread now or a message waits for it."""
        # The queue first: a claim moves a message from the queue to a run in one commit,
        # so read in this order a message being claimed is seen in one place or the other.
        return self.inbox.waiting() or self._run_somewhere()

    def status(self) -> ThreadStatus:
        """ "running", "waiting" or "idle"; a child reports its lifecycle too (see
        `ThreadStatus`)."""
        if self._run_somewhere():
            return "running"
        meta = self.identity.reread()
        if meta.waiting:
            return "waiting"
        if self.parent_id is not None:
            status = meta.status
            return status if status in _CHILD_STATUSES else "idle"
        return "idle"

    def last_stop_reason(self) -> str | None:
        """Why its last run ended (`Run.stop_reason`), as the run's end was stored: None for
        a thread that never ran to an end, a run that ended without one, or when a run went
        on after it and stopped with no end stored (a branch cut inside that run, an owner
        killed and its run closed by a repair)."""
        return self.last_stop()[0]

    def last_stop(self) -> tuple[str | None, str | None, bool]:
        """Why its last run ended and that run's id, as `last_stop_reason` reads them (both
        None where it reads no reason), and whether a run started after that end (one going
        on now, or one whose owner died before its end was stored)."""
        reason: str | None = None
        run: str | None = None
        went_on = False
        for stored in self._store.iter_events(self.id, types=("run_finished", "thread_status")):
            data = stored.fields()
            if data is None or data.get("depth"):  # damaged; a prompt tool's own turn
                continue
            if stored.type == "run_finished":
                stop, ended = data.get("stop_reason"), data.get("run_id")
                reason = stop if isinstance(stop, str) else None
                run, went_on = (ended if isinstance(ended, str) else None), False
            elif data.get("status") == "running":
                went_on = True
            elif data.get("status") == "idle" and went_on:
                reason = run = None
        return (reason, run, went_on) if reason is not None else (None, None, went_on)

    def handed_to(self, call_ids: set[str]) -> str | None:
        """The agent a handoff made by one of `call_ids` handed the thread to, as stored;
        None when none of them did."""
        agent: str | None = None
        for stored in self._store.iter_events(self.id, types=("handoff",)):
            data = stored.fields()
            if data is not None and data.get("tool_call_id") in call_ids:
                named = data.get("agent")
                agent = named if isinstance(named, str) else agent
        return agent

    # relationships

    def parent(self) -> ThreadReader | None:
        return self._parent

    def children(self) -> Sequence[ThreadReader]:
        return [self.directory.context(r.id) for r in self._store.list_children(self.id)]

    def child_info(self) -> ChildInfo:
        return ChildInfo(
            reference=self.id,
            agent=self.identity.agent,
            name=self.identity.name,
            description=self.identity.description,
            blocking=self.identity.blocking,
            resumable=self.identity.resumable,
            status=self.status(),
        )

    def child_infos(self) -> list[ChildInfo]:
        return [child.child_info() for child in self.children()]

    # definitions and env

    def refresh_definitions(self) -> ThreadDefinitions:
        """The definitions of the agent answering now, resolved in the registry as it is now
        (a redefined prompt takes effect from the next step; an unchanged registry gives the
        definitions already resolved)."""
        key = (self.registry.version, self.identity.answering_agent)  # a handoff changes it
        if self._definitions is not None and self._definitions_key == key:
            return self._definitions
        self._definitions = ThreadDefinitions(self.registry, self.identity.answering_agent)
        self._definitions_key = key
        if self._env is not None:
            self._env.definitions = self._definitions
        return self._definitions

    @property
    def definitions(self) -> ThreadDefinitions:
        return self._definitions if self._definitions is not None else self.refresh_definitions()

    @property
    def env(self) -> ThreadEnv:
        if self._env is None:
            parent = self._parent.env if self._parent is not None else None
            self._env = ThreadEnv(
                self._store, self._secrets, self.id, self.definitions, self.redactor, parent
            )
        return self._env

    def base(self) -> EventOrigin:
        """The fields every event of this thread carries."""
        return {"thread_id": self.id, "thread_path": self.path}

    def redact(self, text: str) -> str:
        return self.redactor.text(text)

    def known_secrets(self) -> Redactor:
        """The tree's redactor, once it knows this thread's secrets (they are learned when
        its env is first read: read it now). A thread whose definitions are gone still has
        the secrets it was given."""
        if self._env is None:
            with contextlib.suppress(ThreadlabError):
                _ = self.env  # reading it registers the secrets
        return self.redactor

    def _redact_name(self, path: str) -> str:
        return self.known_secrets().text(path)

    def _file_written(self, file: FileRecord | str) -> None:
        if isinstance(file, str):
            event = FileWrittenEvent(path=file, size=0, deleted=True, **self.base())
        else:
            event = FileWrittenEvent(
                path=file.path, size=file.size, digest=file.digest, **self.base()
            )
        self.events.emit(event)
        if not self.history.live:  # no run will write it with its next step
            self._sink.persist()


_CHILD_STATUSES = frozenset({"queued", "running", "idle", "completed", "failed", "terminated"})
