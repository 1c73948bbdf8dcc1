"""The one interface the runtime persists through. SQLite implements it; a server database can
follow without the runtime changing."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "FencingStore",
    "FileRecord",
    "LocatedStore",
    "MessageCounter",
    "RunRecord",
    "Store",
    "StoredEvent",
    "StoredMessage",
    "ThreadBrowser",
    "ThreadListing",
    "ThreadQuery",
    "ThreadRecord",
    "ThreadSummary",
    "UsageLedger",
]


@dataclass(frozen=True)
class ThreadRecord:
    id: str
    parent_id: str | None
    target: str
    created_at: float
    metadata: str = "{}"  # JSON
    member: str | None = None
    """The member of a class the thread belongs to (`tl.Runtime(user=)`); None for a store
    with no members. On a class's PostgreSQL store, a member's database role reads and
    writes only its own threads."""


@dataclass(frozen=True)
class StoredMessage:
    id: str
    thread_id: str
    depth: int
    data: str  # the message as JSON


@dataclass(frozen=True)
class StoredEvent:
    thread_id: str
    type: str
    data: str  # the event as JSON
    seq: int | None = None
    """Its place in the store's one sequence of events (every thread's): read back, never
    written. A fork cuts every thread of a tree at one such place."""

    def fields(self) -> dict[str, Any] | None:
        """Its data as read back; None for a damaged row (what it said is lost, the rows
        around it are still read)."""
        try:
            data = json.loads(self.data)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None


@dataclass(frozen=True)
class RunRecord:
    id: str
    thread_id: str
    status: str
    owner_pid: int
    owner_host: str
    heartbeat: float
    started_at: float
    finished_at: float | None = None
    text: str | None = None
    error: str | None = None
    owner_started: float | None = None  # when the owner process started (epoch seconds)
    epoch: int | None = None
    """The thread's lease epoch this run took (assigned by a `FencingStore` as it starts the
    run; None where the store does not fence, and for runs started before it did)."""


@dataclass(frozen=True)
class ThreadSummary:
    """What a list of threads shows of one root thread, read in one query."""

    record: ThreadRecord
    messages: int  # top-level messages
    children: int
    last_run_status: str | None  # None when it never ran
    running: RunRecord | None  # the lease of a run marked running, if any


ORIGIN_KINDS = ("notebook", "evaluation", "mcp", "ray", "script")
"""Where a thread came from, as a list of threads tells them apart (`ThreadListing.origin`)."""


@dataclass(frozen=True)
class ThreadQuery:
    """Which threads a `ThreadBrowser` lists, newest first, and from where.

    Examples:
        >>> query = ThreadQuery(text="invoice", status="failed", limit=20)
        >>> query.origin, query.after  # every origin, from the newest
        (None, None)
    """

    text: str = ""
    """Words each listed thread's messages hold (their content, tool names and arguments, as
    stored: secrets already redacted), every word, each as a prefix; always data, never a
    query language. Words in a descendant's messages list its ancestor. Empty: no search."""
    status: str | None = None
    """Only threads whose last run ended with this status ("completed", "failed", ...;
    "running" for a run still marked running, "never run" for none)."""
    origin: str | None = None
    """Only threads of this origin (one of `ORIGIN_KINDS`)."""
    parent_id: str | None = None
    """The children of this thread, in place of the root threads."""
    after: tuple[float, int] | None = None
    """Only threads listed after this `ThreadListing.place` (the next page)."""
    limit: int = 50


@dataclass(frozen=True)
class ThreadListing:
    """One thread as a browsable list shows it, read with its page (`ThreadBrowser`)."""

    record: ThreadRecord
    place: tuple[float, int]
    """Where it stands in the list (what `ThreadQuery.after` takes)."""
    origin: str
    """Where it came from: one of `ORIGIN_KINDS` ("script" when nothing was recorded)."""
    last_run_status: str | None
    """Its last run's status as stored; None when it never ran."""
    running: RunRecord | None
    """The lease of a run marked running, if any (live or abandoned)."""
    updated_at: float
    """Its last activity: its creation, or the last beat or end of one of its runs."""
    duration_s: float
    """How long its runs ran, together (seconds)."""
    usage: dict[str, int]
    """The tokens its model steps and its descendants' reported, summed by kind."""
    cost_usd: float | None
    """What they cost (known prices only); None when no step's cost is known."""


@runtime_checkable
class ThreadBrowser(Protocol):
    """What a store may do besides `Store`: list threads a page at a time, filtered and
    searched, without reading whole histories (what a panel of threads reads). Both shipped
    stores have it."""

    def browse_threads(self, query: ThreadQuery) -> list[ThreadListing]:
        """Up to `query.limit` + 1 threads as `query` asks, newest first: one more than a
        page, so a caller knows whether another follows."""
        ...


@dataclass(frozen=True)
class FileRecord:
    path: str
    size: int
    digest: str
    updated_at: float


@runtime_checkable
class UsageLedger(Protocol):
    """A store that keeps an account of what each member's model steps spent (the shipped
    stores do): what a daily budget reads, every process on the store together."""

    def add_usage(self, member: str, at: float, tokens: int, cost_usd: float | None) -> None:
        """A model step of `member`'s at `at` spent `tokens` and `cost_usd` (None: unknown)."""
        ...

    def usage_since(self, member: str, since: float) -> tuple[int, float]:
        """What `member`'s model steps spent since `since`: tokens, and US dollars."""
        ...

    def class_allowance(self) -> int | None:
        """The tokens a member may use in a day on this store (`class init
        --tokens-per-day`), or None."""
        ...


class Store(Protocol):
    """Durable storage of threads: what a third-party store implements. Writes made inside
    `transaction()` commit together. `tl.SQLiteStore` and `tl.PostgresStore` are the two
    shipped; `threadlab.testing.StoreContract` is the contract a store must pass, as a pytest
    test class: subclass it with an `open_store` that opens yours. What a store may do beyond
    this protocol is declared apart (`MessageCounter`, `LocatedStore`, `FencingStore`).

    Examples:
        >>> import threadlab as tl
        >>> from threadlab.store import ThreadRecord
        >>> store = tl.SQLiteStore(getfixture("tmp_path"))
        >>> with store.transaction():
        ...     store.add_thread(ThreadRecord("thr_1", None, "helper", created_at=0.0))
        >>> [t.id for t in store.list_threads()]
        ['thr_1']
        >>> store.close()
        >>> rt = tl.Runtime(tl.Registry(), store=tl.SQLiteStore(getfixture("tmp_path")))
        >>> [(t.id, t.status) for t in rt.overview()]  # a Runtime takes any Store
        [('thr_1', 'never run')]
        >>> rt.close()
    """

    events_in_commit_order: bool
    """Whether an event committed later always has a later `seq` (true where writers take
    turns, as in SQLite). Where it is false (PostgreSQL numbers rows as they are inserted, and
    two transactions may commit out of that order) a reader that reads only what is "after"
    the last place it read could skip an event; it reads the thread whole unless it is the
    thread's only writer."""

    def transaction(self) -> AbstractContextManager[None]:
        """A context in which every write commits together, or none does (an exception rolls
        back). Nested use joins the outer transaction. The runtime wraps each step in one."""
        ...

    def close(self) -> None:
        """Release connections and background work; the store is not used afterwards."""
        ...

    # threads
    def add_thread(self, record: ThreadRecord) -> None:
        """Store a new thread (its id is new: adding one twice is an error)."""
        ...

    def get_thread(self, thread_id: str) -> ThreadRecord | None:
        """One thread, or None when there is none by that id."""
        ...

    def list_threads(self) -> list[ThreadRecord]:
        """Every root thread (no parent), newest first."""
        ...

    def list_children(self, parent_id: str) -> list[ThreadRecord]:
        """The threads whose parent is `parent_id`, oldest first."""
        ...

    def summarize_threads(self) -> list[ThreadSummary]:
        """Every root thread with its counts and last run, newest first, in one query."""
        ...

    def update_thread_metadata(self, thread_id: str, metadata: str) -> None:
        """Replace a thread's metadata (JSON text: `tl.ThreadMeta`'s fields)."""
        ...

    # messages and events
    def add_messages(self, messages: Sequence[StoredMessage]) -> None:
        """Append messages, in order: `list_messages` returns them in the order added."""
        ...

    def list_messages(self, thread_id: str, *, after: str | None = None) -> list[StoredMessage]:
        """A thread's messages (every depth), in the order they were added (only those
        added after the row `after`, a `StoredMessage.id`, when given: what a reader that has
        read up to it has not seen yet)."""
        ...

    def add_events(self, events: Sequence[StoredEvent]) -> None:
        """Append events; each `seq` is assigned by the store, increasing across the store."""
        ...

    def iter_events(
        self,
        thread_id: str,
        *,
        types: Sequence[str] = (),
        until: int | None = None,
        after: int | None = None,
    ) -> Iterator[StoredEvent]:
        """The thread's events in order (only those of `types` when given, only up to event
        `until` when given, only those after event `after` when given: what a reader that
        has read up to `after` has not seen yet)."""
        ...

    def messages_naming(self, thread_id: str, text: str) -> list[tuple[int, StoredMessage]]:
        """The thread's messages whose stored data holds `text` (an id), each with its index
        among the thread's messages, in order: what a fork at an id reads, not the whole
        history."""
        ...

    def message_place(self, thread_id: str, index: int) -> int:
        """The `seq` of the thread's `index`-th `message_created` event: where that message
        entered the store's event sequence."""
        ...

    def copy_history(
        self,
        source: str,
        target: str,
        until: int,
        rename: Sequence[tuple[str, str]],
        mentions: Sequence[tuple[str, str]] = (),
    ) -> None:
        """Give `target` the events of `source` up to event `until` and the messages they
        announced, in order, with each (old, new) of `rename` and `mentions` replaced in
        their data (a fork's new thread ids: `rename` those every row names, `mentions`
        those a few rows name). Message rows get ids of their own; the messages keep
        theirs."""
        ...

    def update_message(self, row_id: str, data: str) -> None:
        """Replace the data of one stored message (a fork's edited copy)."""
        ...

    # env (values already encrypted where secret)
    def set_env(self, thread_id: str, name: str, variable_type: str, value: bytes | None) -> None:
        """Set (or replace) one variable of a thread: its type ("text" or "secret") and its
        value as bytes (a secret's already encrypted; None: declared without a value)."""
        ...

    def get_env(
        self, thread_id: str, before: int | None = None
    ) -> dict[str, tuple[str, bytes | None]]:
        """A thread's variables: name -> (type, value as stored). With `before` (a place in
        the events' sequence): as they were when the event before it was the last stored
        (what a fork cut there sees)."""
        ...

    # files: content-addressed blobs, and each thread's paths pointing at them
    def put_blob(self, digest: str, data: bytes) -> None:
        """Store content under its SHA-256 `digest`; storing the same digest again is a no-op
        (files given to many threads share one blob)."""
        ...

    def get_blob(self, digest: str) -> bytes | None:
        """The content stored under `digest`, or None."""
        ...

    def put_file(self, thread_id: str, record: FileRecord) -> None:
        """Point a thread's path at a blob (replacing what the path pointed at)."""
        ...

    def get_file(self, thread_id: str, path: str) -> FileRecord | None:
        """A thread's file at `path`, or None."""
        ...

    def list_files(self, thread_id: str, prefix: str) -> list[FileRecord]:
        """A thread's files whose path starts with `prefix`, sorted by path."""
        ...

    def delete_file(self, thread_id: str, path: str) -> bool:
        """Remove a thread's path (the blob stays for others); whether there was one."""
        ...

    # runs: the lease a running run holds, and its outcome
    def start_run(self, record: RunRecord) -> None:
        """Record a run as running, with its lease (owner process and host, heartbeat). A
        `FencingStore` also moves the thread's lease epoch on, and gives it to the run."""
        ...

    def heartbeat(self, run_id: str, at: float) -> None:
        """Say the run's owner is alive at `at` (a lease goes stale without it). A
        `FencingStore` raises `LeaseLostError` instead when the run no longer holds its
        thread's lease (it was ended, or another run took the thread)."""
        ...

    def finish_run(
        self, run_id: str, status: str, text: str | None, error: str | None, at: float
    ) -> None:
        """Record a run's outcome; it no longer holds the thread (a `FencingStore` moves the
        thread's lease epoch on when the run held it, whoever ends it: a repair that ends an
        abandoned run fences its owner out)."""
        ...

    def running_runs(self, thread_id: str) -> list[RunRecord]:
        """The thread's runs still marked running (live, or left by a process that died)."""
        ...

    def lock_thread(self, thread_id: str) -> None:
        """Inside a transaction: until it ends, no other transaction that locks the same
        thread proceeds (what makes "check nobody runs it, then take the lease" atomic)."""
        ...

    # messages sent to a thread that is busy in another process
    def enqueue(self, thread_id: str, data: str) -> None:
        """Queue a message (JSON text) for a thread; a store that can notifies watchers in
        the same transaction."""
        ...

    def watch_queue(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call `callback(thread_id)` (from another OS thread) soon after another process
        commits a message queued for `thread_id`; returns a function that stops the watch. A
        store that cannot be told (SQLite) never calls it: waiters look at `has_queued` every
        `poll_interval` instead (as they do anyway, for notifications nobody heard)."""
        ...

    def drain_queue(self, thread_id: str) -> list[str]:
        """Take every message waiting for the thread, oldest first; of two drainers exactly
        one gets each message."""
        ...

    def has_queued(self, thread_id: str) -> bool:
        """Whether any message waits for the thread."""
        ...

    def pop_queued(self, thread_id: str) -> str | None:
        """Take the oldest message waiting for `thread_id` (None when there is none); of two
        takers exactly one gets it."""
        ...


@runtime_checkable
class MessageCounter(Protocol):
    """What a store may do besides `Store`: count a thread's messages without reading them.
    A thread's history held in memory asks before each run and reads the messages again
    only when the store has more; a store without it has its messages read each time. Both
    shipped stores have it."""

    def count_messages(self, thread_id: str) -> int:
        """How many messages the thread has (every depth)."""
        ...


@runtime_checkable
class LocatedStore(Protocol):
    """What a store may do besides `Store`: say where its data lives. Two store objects of one
    location are one store: the runs a process holds are kept per location, so a second
    Runtime of the process on the same store sees them as live. A store without it counts
    as a location of its own. Both shipped stores have it."""

    location: str
    """Where the data lives, without credentials (a SQLite file's path, a database URL)."""


@runtime_checkable
class FencingStore(Protocol):
    """What a store may do besides `Store`: refuse the writes of a run whose lease another
    process took over (its owner was stopped for longer than a lease lasts, and went on).

    The store keeps a lease epoch per thread, moved on by every `start_run` of the thread and
    by the `finish_run` of the run that holds it. Once `fence(thread_id, run_id)` is called,
    every write this store object makes to that thread — its messages, events, metadata, env,
    files and the messages it takes from the queue, its runs' heartbeat and end — checks
    inside the write's own transaction that the epoch is still the one the run took, and
    raises `LeaseLostError` (rolling the transaction back) when it is not; so does adding a
    child thread to it. Queuing a message for the thread is not fenced (anyone may), except
    where its own run asks (`check_fence`). Both shipped stores have it."""

    def fence(self, thread_id: str, run_id: str) -> None:
        """Fence this store object's writes to `thread_id` with the lease of run `run_id`
        (started through this store object), until `unfence(run_id)` or the run's
        `finish_run`."""
        ...

    def unfence(self, run_id: str) -> None:
        """Stop fencing the writes of run `run_id`'s thread (a no-op when none are)."""
        ...

    def check_fence(self, thread_id: str) -> None:
        """Inside a write transaction: raise `LeaseLostError` when this store object fences
        `thread_id` and its run lost the lease (a no-op when it does not fence the thread).
        For a write the store does not fence by itself: a run queuing a message to its own
        thread, say."""
        ...
