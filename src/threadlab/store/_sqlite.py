"""SQLite store: one file under the store directory, WAL, schema-versioned.

WAL with synchronous=NORMAL survives the process being killed (each commit is in the log
before the call returns); FULL adds power-loss durability at a cost, so it is an option.
Several Runtimes in one or more processes may share the file: SQLite serialises writers and
`busy_timeout` makes them wait instead of failing.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path

from ._sql import SqlStore

__all__ = ["SCHEMA_VERSION", "SQLiteStore"]

SCHEMA_VERSION = 2

# From one version to the next: the statements that bring a store up to it.
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    # 2: a lease records when its owner process started, so a reused PID is not the owner.
    2: ("ALTER TABLE runs ADD COLUMN owner_started REAL",),
}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS threads (
    id TEXT PRIMARY KEY, parent_id TEXT, target TEXT NOT NULL,
    created_at REAL NOT NULL, metadata TEXT NOT NULL DEFAULT '{}');
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
CREATE TABLE IF NOT EXISTS blobs (digest TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    thread_id TEXT NOT NULL, path TEXT NOT NULL, digest TEXT NOT NULL,
    size INTEGER NOT NULL, updated_at REAL NOT NULL, PRIMARY KEY (thread_id, path));
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, status TEXT NOT NULL,
    owner_pid INTEGER NOT NULL, owner_host TEXT NOT NULL, heartbeat REAL NOT NULL,
    started_at REAL NOT NULL, finished_at REAL, text TEXT, error TEXT, owner_started REAL);
CREATE INDEX IF NOT EXISTS runs_thread ON runs(thread_id, status);
CREATE TABLE IF NOT EXISTS queue (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, thread_id TEXT NOT NULL, data TEXT NOT NULL);
"""


class SQLiteStore(SqlStore):
    """The default store: `<directory>/threads.sqlite3`."""

    # IMMEDIATE: the write lock at once, so a transaction's reads and writes are one step.
    BEGIN = "BEGIN IMMEDIATE"

    def __init__(self, directory: str | os.PathLike[str] = ".threadlab", *, durable: bool = False):
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.path = self.directory / "threads.sqlite3"
        self._lock = threading.RLock()
        self._depth = 0
        # isolation_level=None: we issue BEGIN/COMMIT ourselves, one transaction per step.
        self._db = sqlite3.connect(
            self.path, isolation_level=None, check_same_thread=False, timeout=30.0
        )
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(f"PRAGMA synchronous={'FULL' if durable else 'NORMAL'}")
        self._db.execute("PRAGMA busy_timeout=30000")
        self._migrate(_SCHEMA, SCHEMA_VERSION, SCHEMA_VERSION, _MIGRATIONS, str(self.path))

    def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        with self._lock:
            return self._db.execute(sql, params).rowcount

    def _executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        with self._lock:
            self._db.executemany(sql, rows)

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()
