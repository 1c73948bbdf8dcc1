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
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from .._errors import StoreVersionError
from ._protocol import (
    FileRecord,
    RunRecord,
    StoredEvent,
    StoredMessage,
    ThreadRecord,
    ThreadSummary,
)

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


class SQLiteStore:
    """The default store: `<directory>/threads.sqlite3`."""

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
        self._migrate()

    def _migrate(self) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        self._db.execute(statement)
                row = self._db.execute(
                    "SELECT value FROM meta WHERE key='schema_version'"
                ).fetchone()
                if row is None:
                    self._db.execute(
                        "INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
                    )
                elif int(row[0]) > SCHEMA_VERSION:
                    raise StoreVersionError(
                        f"{self.path} has schema version {row[0]}, newer than this threadlab"
                        f" understands ({SCHEMA_VERSION}); upgrade threadlab to open it"
                    )
                else:
                    for version in range(int(row[0]) + 1, SCHEMA_VERSION + 1):
                        for statement in _MIGRATIONS[version]:
                            self._db.execute(statement)
                    self._db.execute(
                        "UPDATE meta SET value = ? WHERE key = 'schema_version'",
                        (str(SCHEMA_VERSION),),
                    )
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

    @property
    def schema_version(self) -> int:
        row = self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        return int(row[0])

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Group writes so they commit together; nested uses join the outer one."""
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._db.execute("BEGIN IMMEDIATE")
            self._depth = 1
            try:
                yield
            except BaseException:
                self._depth = 0
                self._db.execute("ROLLBACK")
                raise
            self._depth = 0
            self._db.execute("COMMIT")

    def _write(self, sql: str, params: Sequence[object] = ()) -> sqlite3.Cursor:
        with self.transaction():
            return self._db.execute(sql, params)

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        with self._lock:
            return self._db.execute(sql, params).fetchall()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # threads
    def add_thread(self, record: ThreadRecord) -> None:
        self._write(
            "INSERT INTO threads VALUES (?, ?, ?, ?, ?)",
            (record.id, record.parent_id, record.target, record.created_at, record.metadata),
        )

    def get_thread(self, thread_id: str) -> ThreadRecord | None:
        rows = self._read("SELECT * FROM threads WHERE id = ?", (thread_id,))
        return ThreadRecord(*rows[0]) if rows else None  # type: ignore[arg-type]

    def list_threads(self) -> list[ThreadRecord]:
        rows = self._read("SELECT * FROM threads ORDER BY created_at DESC, rowid DESC")
        return [ThreadRecord(*row) for row in rows]  # type: ignore[arg-type]

    def summarize_threads(self) -> list[ThreadSummary]:
        rows = self._read(
            """
            SELECT t.id, t.parent_id, t.target, t.created_at, t.metadata,
                (SELECT COUNT(*) FROM messages m WHERE m.thread_id = t.id AND m.depth = 0),
                (SELECT COUNT(*) FROM threads c WHERE c.parent_id = t.id),
                (SELECT r.status FROM runs r WHERE r.thread_id = t.id
                    ORDER BY r.started_at DESC LIMIT 1)
            FROM threads t WHERE t.parent_id IS NULL
            ORDER BY t.created_at DESC, t.rowid DESC
            """
        )
        running = {
            run.thread_id: run
            for run in (
                RunRecord(*row)  # type: ignore[arg-type]
                for row in self._read("SELECT * FROM runs WHERE status = 'running'")
            )
        }
        return [
            ThreadSummary(
                ThreadRecord(*row[:5]),  # type: ignore[arg-type]
                int(row[5]),  # type: ignore[call-overload]
                int(row[6]),  # type: ignore[call-overload]
                row[7] if isinstance(row[7], str) else None,
                running.get(str(row[0])),
            )
            for row in rows
        ]

    def list_children(self, parent_id: str) -> list[ThreadRecord]:
        rows = self._read(
            "SELECT * FROM threads WHERE parent_id = ? ORDER BY created_at, rowid", (parent_id,)
        )
        return [ThreadRecord(*row) for row in rows]  # type: ignore[arg-type]

    def update_thread_metadata(self, thread_id: str, metadata: str) -> None:
        self._write("UPDATE threads SET metadata = ? WHERE id = ?", (metadata, thread_id))

    # messages and events
    def add_messages(self, messages: Sequence[StoredMessage]) -> None:
        with self.transaction():
            self._db.executemany(
                "INSERT INTO messages (id, thread_id, depth, data) VALUES (?, ?, ?, ?)",
                [(m.id, m.thread_id, m.depth, m.data) for m in messages],
            )

    def list_messages(self, thread_id: str) -> list[StoredMessage]:
        rows = self._read(
            "SELECT id, thread_id, depth, data FROM messages WHERE thread_id = ? ORDER BY seq",
            (thread_id,),
        )
        return [StoredMessage(*row) for row in rows]  # type: ignore[arg-type]

    def add_events(self, events: Sequence[StoredEvent]) -> None:
        if not events:
            return
        with self.transaction():
            self._db.executemany(
                "INSERT INTO events (thread_id, type, data) VALUES (?, ?, ?)",
                [(e.thread_id, e.type, e.data) for e in events],
            )

    def iter_events(self, thread_id: str) -> Iterator[StoredEvent]:
        rows = self._read(
            "SELECT thread_id, type, data FROM events WHERE thread_id = ? ORDER BY seq",
            (thread_id,),
        )
        for row in rows:
            yield StoredEvent(*row)  # type: ignore[arg-type]

    # env
    # The env table's `kind` column holds the variable type ("text" or "secret").
    def set_env(self, thread_id: str, name: str, variable_type: str, value: bytes | None) -> None:
        self._write(
            "INSERT OR REPLACE INTO env VALUES (?, ?, ?, ?)",
            (thread_id, name, variable_type, value),
        )

    def get_env(self, thread_id: str) -> dict[str, tuple[str, bytes | None]]:
        rows = self._read("SELECT name, kind, value FROM env WHERE thread_id = ?", (thread_id,))
        return {str(r[0]): (str(r[1]), r[2]) for r in rows}  # type: ignore[misc]

    # files
    def put_blob(self, digest: str, data: bytes) -> None:
        self._write("INSERT OR IGNORE INTO blobs VALUES (?, ?)", (digest, data))

    def get_blob(self, digest: str) -> bytes | None:
        rows = self._read("SELECT data FROM blobs WHERE digest = ?", (digest,))
        return bytes(rows[0][0]) if rows else None  # type: ignore[call-overload]

    def put_file(self, thread_id: str, record: FileRecord) -> None:
        self._write(
            "INSERT OR REPLACE INTO files VALUES (?, ?, ?, ?, ?)",
            (thread_id, record.path, record.digest, record.size, record.updated_at),
        )

    def get_file(self, thread_id: str, path: str) -> FileRecord | None:
        rows = self._read(
            "SELECT path, size, digest, updated_at FROM files WHERE thread_id = ? AND path = ?",
            (thread_id, path),
        )
        return FileRecord(*rows[0]) if rows else None  # type: ignore[arg-type]

    def list_files(self, thread_id: str, prefix: str) -> list[FileRecord]:
        rows = self._read(
            "SELECT path, size, digest, updated_at FROM files"
            " WHERE thread_id = ? AND substr(path, 1, ?) = ? ORDER BY path",
            (thread_id, len(prefix), prefix),
        )
        return [FileRecord(*row) for row in rows]  # type: ignore[arg-type]

    def delete_file(self, thread_id: str, path: str) -> bool:
        cursor = self._write(
            "DELETE FROM files WHERE thread_id = ? AND path = ?", (thread_id, path)
        )
        return cursor.rowcount > 0

    # runs
    def start_run(self, record: RunRecord) -> None:
        self._write(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                record.id,
                record.thread_id,
                record.status,
                record.owner_pid,
                record.owner_host,
                record.heartbeat,
                record.started_at,
                record.finished_at,
                record.text,
                record.error,
                record.owner_started,
            ),
        )

    def heartbeat(self, run_id: str, at: float) -> None:
        self._write("UPDATE runs SET heartbeat = ? WHERE id = ?", (at, run_id))

    def finish_run(
        self, run_id: str, status: str, text: str | None, error: str | None, at: float
    ) -> None:
        self._write(
            "UPDATE runs SET status = ?, text = ?, error = ?, finished_at = ? WHERE id = ?",
            (status, text, error, at, run_id),
        )

    def running_runs(self, thread_id: str) -> list[RunRecord]:
        rows = self._read(
            "SELECT * FROM runs WHERE thread_id = ? AND status = 'running'", (thread_id,)
        )
        return [RunRecord(*row) for row in rows]  # type: ignore[arg-type]

    # queue
    def enqueue(self, thread_id: str, data: str) -> None:
        self._write("INSERT INTO queue (thread_id, data) VALUES (?, ?)", (thread_id, data))

    def has_queued(self, thread_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM queue WHERE thread_id = ? LIMIT 1", (thread_id,)))

    def drain_queue(self, thread_id: str) -> list[str]:
        # Called at every step: a plain read first, a write transaction only when there is work.
        if not self.has_queued(thread_id):
            return []
        with self.transaction():
            rows = self._db.execute(
                "SELECT seq, data FROM queue WHERE thread_id = ? ORDER BY seq", (thread_id,)
            ).fetchall()
            if rows:
                self._db.execute(
                    "DELETE FROM queue WHERE seq <= ? AND thread_id = ?", (rows[-1][0], thread_id)
                )
        return [str(row[1]) for row in rows]
