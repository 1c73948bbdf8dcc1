"""SQLite store: one file under the store directory, WAL, schema-versioned.

WAL with synchronous=NORMAL survives the process being killed (each commit is in the log
before the call returns); FULL adds power-loss durability at a cost, so it is an option.
Several Runtimes in one or more processes may share the file: SQLite serialises writers and
`busy_timeout` makes them wait instead of failing.

Checkpoints (copying the log back into the database file, with an fsync) happen off the
writer's path: left to itself, SQLite runs one inside whichever commit crosses 1,000 log
pages, and that commit — a step of some run — takes 50 to 100 times as long as the others.
Here the store's own connection never checkpoints; every `CHECKPOINT_EVERY` commits a
passive checkpoint runs on one background thread shared by the process (it waits for no
writer and no writer waits for it), and the last connection to close checkpoints the rest.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .._errors import StoreError
from ._sql import SqlStore
from ._sqlite_search import SEARCH_MIGRATION, fts_query

__all__ = ["SCHEMA_VERSION", "SQLiteStore"]

SCHEMA_VERSION = 6

CHECKPOINT_EVERY = 100  # commits between two background checkpoints

_CHECKPOINTS = ThreadPoolExecutor(max_workers=1, thread_name_prefix="threadlab-checkpoint")

# From one version to the next: the statements that bring a store up to it.
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    # 2: a lease records when its owner process started, so a reused PID is not the owner.
    2: ("ALTER TABLE runs ADD COLUMN owner_started REAL",),
    # 3: each change of a thread's env, placed in the events' sequence, so a fork sees the
    # env as it was at its point.
    3: (
        "CREATE TABLE IF NOT EXISTS env_log (seq INTEGER PRIMARY KEY AUTOINCREMENT,"
        " thread_id TEXT NOT NULL, after_event INTEGER NOT NULL, name TEXT NOT NULL,"
        " kind TEXT NOT NULL, value BLOB)",
        "CREATE INDEX IF NOT EXISTS env_log_thread ON env_log(thread_id, seq)",
    ),
    # 4: each thread's lease epoch, and the epoch each run took: the writes of a run whose
    # lease was taken over are refused (a run started before has none, and is not fenced).
    4: (
        "ALTER TABLE runs ADD COLUMN epoch INTEGER",
        "CREATE TABLE IF NOT EXISTS leases (thread_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL)",
    ),
    # 5: the member of a class each thread belongs to, and what each member's steps spent.
    5: (
        "ALTER TABLE threads ADD COLUMN member TEXT",
        "CREATE TABLE IF NOT EXISTS usage (seq INTEGER PRIMARY KEY AUTOINCREMENT,"
        " member TEXT NOT NULL, at REAL NOT NULL, tokens INTEGER NOT NULL, cost_usd REAL)",
        "CREATE INDEX IF NOT EXISTS usage_member ON usage(member, at)",
    ),
    # 6: a list of threads read a page at a time, newest first, and searched by the words of
    # their messages (a full-text index kept by triggers, filled with what is there).
    6: SEARCH_MIGRATION,
}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS threads (
    id TEXT PRIMARY KEY, parent_id TEXT, target TEXT NOT NULL,
    created_at REAL NOT NULL, metadata TEXT NOT NULL DEFAULT '{}', member TEXT);
CREATE INDEX IF NOT EXISTS threads_parent ON threads(parent_id);
CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    thread_id TEXT NOT NULL, depth INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS messages_thread ON messages(thread_id, seq);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL,
    type TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_thread ON events(thread_id, seq);
CREATE TABLE IF NOT EXISTS env (
    thread_id TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, value BLOB,
    PRIMARY KEY (thread_id, name));
CREATE TABLE IF NOT EXISTS env_log (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL,
    after_event INTEGER NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, value BLOB);
CREATE INDEX IF NOT EXISTS env_log_thread ON env_log(thread_id, seq);
CREATE TABLE IF NOT EXISTS blobs (digest TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    thread_id TEXT NOT NULL, path TEXT NOT NULL, digest TEXT NOT NULL,
    size INTEGER NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (thread_id, path));
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, status TEXT NOT NULL,
    owner_pid INTEGER NOT NULL, owner_host TEXT NOT NULL, heartbeat REAL NOT NULL,
    started_at REAL NOT NULL, finished_at REAL, text TEXT, error TEXT, owner_started REAL,
    epoch INTEGER);
CREATE INDEX IF NOT EXISTS runs_thread ON runs(thread_id, status);
CREATE TABLE IF NOT EXISTS leases (thread_id TEXT PRIMARY KEY, epoch INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS queue (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS usage (seq INTEGER PRIMARY KEY AUTOINCREMENT,
    member TEXT NOT NULL, at REAL NOT NULL, tokens INTEGER NOT NULL, cost_usd REAL);
CREATE INDEX IF NOT EXISTS usage_member ON usage(member, at);
"""


class SQLiteStore(SqlStore):
    """The default store: `<directory>/threads.sqlite3`."""

    # IMMEDIATE: the write lock at once, so a transaction's reads and writes are one step.
    BEGIN = "BEGIN IMMEDIATE"
    # One writer at a time: rows get their `seq` in the order they commit.
    events_in_commit_order = True

    def __init__(self, directory: str | os.PathLike[str] = ".threadlab", *, durable: bool = False):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / "threads.sqlite3"
        self.location = str(self.path.resolve())
        super().__init__()
        self._commits = 0
        self._checkpointing = threading.Event()
        try:
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, one transaction per step.
            self._db = sqlite3.connect(
                self.path, isolation_level=None, check_same_thread=False, timeout=30.0
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
            self._db.execute("PRAGMA busy_timeout=30000")
            self._db.execute("PRAGMA wal_autocheckpoint=0")  # see the module's docstring
            # A long fork copies more pages than the default cache (2 MB) holds: 32 MB.
            self._db.execute("PRAGMA cache_size=-32768")
            self._db.execute("PRAGMA temp_store=MEMORY")
        except sqlite3.DatabaseError as exc:
            raise store_error(self.location, exc) from exc
        # A new store is made as version 5, then migrated: the search index's triggers are
        # statements the schema's split on ";" would cut.
        self._migrate(_SCHEMA, 5, SCHEMA_VERSION, _MIGRATIONS, str(self.path))

    def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        with self._lock:
            try:
                return self._db.execute(sql, params).rowcount
            except sqlite3.DatabaseError as exc:
                raise store_error(self.location, exc) from exc

    def _executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        with self._lock:
            try:
                self._db.executemany(sql, rows)
            except sqlite3.DatabaseError as exc:
                raise store_error(self.location, exc) from exc

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise store_error(self.location, exc) from exc

    def _matching(self, words: Sequence[str]) -> tuple[str, list[object]]:
        return (
            "SELECT m.thread_id FROM messages_search s JOIN messages m ON m.seq = s.rowid"
            " WHERE messages_search MATCH ?",
            [fts_query(words)],
        )

    def _message_field(self, key: str) -> str:
        # json_extract fails on a damaged row: such a row reads as nothing, not as an error.
        return f"CASE WHEN json_valid(m.data) THEN json_extract(m.data, '$.{key}') END"

    def _rollback(self) -> None:
        # SQLite ends a transaction itself on some errors (a full disk): nothing is left to
        # roll back then, and saying so would hide the error that ended it.
        if self._db.in_transaction:
            self._execute("ROLLBACK")

    def _table_exists(self, name: str) -> bool:
        return bool(
            self._read("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,))
        )

    def _committed(self) -> None:
        self._commits += 1
        if self._commits % CHECKPOINT_EVERY == 0 and not self._checkpointing.is_set():
            self._checkpointing.set()
            _CHECKPOINTS.submit(_checkpoint, self.path, self._checkpointing)

    def close(self) -> None:
        with self._lock:
            self._db.close()


def _checkpoint(path: Path, running: threading.Event) -> None:
    """A passive checkpoint of the store at `path` from a connection of its own (mode=rw: a
    store deleted meanwhile is not created again)."""
    try:
        with contextlib.closing(
            sqlite3.connect(f"{path.resolve().as_uri()}?mode=rw", uri=True)
        ) as db:
            db.execute("PRAGMA wal_checkpoint(PASSIVE)")
    except sqlite3.Error:
        pass  # closed or deleted meanwhile: its last connection checkpointed, or nothing to do
    finally:
        running.clear()


# What SQLite says of a store it cannot use, and what the person can do about it.
_FAILURES = (
    (
        ("database or disk is full", "disk is full"),
        "the disk holding the store {path} is full: free some space, then try again (what"
        " was being written was not stored)",
    ),
    (
        ("file is not a database",),
        "{path} is not a threadlab store or its header is damaged: move the file aside to"
        " start a new store in that folder, or restore it from a backup",
    ),
    (
        ("malformed", "disk i/o error", "corrupt"),
        "the store {path} is damaged ({said}): move the file aside to start a new store, or"
        " restore it from a backup (`sqlite3 FILE .recover` may save what can be read)",
    ),
    (
        ("unable to open", "readonly", "read-only"),
        "the store {path} cannot be opened for writing ({said}): check the folder's"
        " permissions and free space",
    ),
)


def store_error(path: str, exc: sqlite3.DatabaseError) -> Exception:
    """`exc` as a `StoreError` naming the file and what to do, when it says the store itself
    is unusable; other errors (a constraint, a bug of ours) stay as they are."""
    said = str(exc)
    for signs, advice in _FAILURES:
        if any(sign in said.lower() for sign in signs):
            return StoreError(advice.format(path=path, said=said))
    return exc
