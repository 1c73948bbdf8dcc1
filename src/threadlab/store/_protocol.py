"""The one interface the runtime persists through. SQLite implements it; a server database can
follow without the runtime changing."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "FileRecord",
    "RunRecord",
    "Store",
    "StoredEvent",
    "StoredMessage",
    "ThreadRecord",
    "ThreadSummary",
]


@dataclass(frozen=True)
class ThreadRecord:
    id: str
    parent_id: str | None
    target: str
    created_at: float
    metadata: str = "{}"  # JSON


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


@dataclass(frozen=True)
class ThreadSummary:
    """What a list of threads shows of one root thread, read in one query."""

    record: ThreadRecord
    messages: int  # top-level messages
    children: int
    last_run_status: str | None  # None when it never ran
    running: RunRecord | None  # the lease of a run marked running, if any


@dataclass(frozen=True)
class FileRecord:
    path: str
    size: int
    digest: str
    updated_at: float


class Store(Protocol):
    """Durable storage of threads. Writes made inside `transaction()` commit together."""

    def transaction(self) -> AbstractContextManager[None]: ...
    def close(self) -> None: ...

    # threads
    def add_thread(self, record: ThreadRecord) -> None: ...
    def get_thread(self, thread_id: str) -> ThreadRecord | None: ...
    def list_threads(self) -> list[ThreadRecord]: ...
    def list_children(self, parent_id: str) -> list[ThreadRecord]: ...
    def summarize_threads(self) -> list[ThreadSummary]:
        """Every root thread with its counts and last run, newest first, in one query."""
        ...

    def update_thread_metadata(self, thread_id: str, metadata: str) -> None: ...

    # messages and events
    def add_messages(self, messages: Sequence[StoredMessage]) -> None: ...
    def list_messages(self, thread_id: str) -> list[StoredMessage]: ...
    def add_events(self, events: Sequence[StoredEvent]) -> None: ...
    def iter_events(
        self, thread_id: str, *, types: Sequence[str] = (), until: int | None = None
    ) -> Iterator[StoredEvent]:
        """The thread's events in order (only those of `types` when given, only up to event
        `until` when given)."""
        ...

    def message_places(self, thread_id: str) -> list[int]:
        """The `seq` of each `message_created` event of the thread, in order: where each of
        its messages (in the same order) entered the store's event sequence."""
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
    def set_env(
        self, thread_id: str, name: str, variable_type: str, value: bytes | None
    ) -> None: ...
    def get_env(self, thread_id: str) -> dict[str, tuple[str, bytes | None]]: ...

    # files: content-addressed blobs, and each thread's paths pointing at them
    def put_blob(self, digest: str, data: bytes) -> None: ...
    def get_blob(self, digest: str) -> bytes | None: ...
    def put_file(self, thread_id: str, record: FileRecord) -> None: ...
    def get_file(self, thread_id: str, path: str) -> FileRecord | None: ...
    def list_files(self, thread_id: str, prefix: str) -> list[FileRecord]: ...
    def delete_file(self, thread_id: str, path: str) -> bool: ...

    # runs: the lease a running run holds, and its outcome
    def start_run(self, record: RunRecord) -> None: ...
    def heartbeat(self, run_id: str, at: float) -> None: ...
    def finish_run(
        self, run_id: str, status: str, text: str | None, error: str | None, at: float
    ) -> None: ...
    def running_runs(self, thread_id: str) -> list[RunRecord]: ...
    def lock_thread(self, thread_id: str) -> None:
        """Inside a transaction: until it ends, no other transaction that locks the same
        thread proceeds (what makes "check nobody runs it, then take the lease" atomic)."""
        ...

    # messages sent to a thread that is busy in another process
    def enqueue(self, thread_id: str, data: str) -> None: ...
    def watch_queue(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Call `callback(thread_id)` (from another OS thread) soon after another process
        commits a message queued for `thread_id`; returns a function that stops the watch. A
        store that cannot be told (SQLite) never calls it: waiters look at `has_queued` every
        `poll_interval` instead (as they do anyway, for notifications nobody heard)."""
        ...

    def drain_queue(self, thread_id: str) -> list[str]: ...
    def has_queued(self, thread_id: str) -> bool: ...
    def queued_threads(self) -> list[str]:
        """The threads that have messages waiting (a worker's candidates)."""
        ...

    def pop_queued(self, thread_id: str) -> str | None:
        """Take the oldest message waiting for `thread_id` (None when there is none); of two
        takers exactly one gets it."""
        ...
