"""The store's reads and writes, written once in the SQL that SQLite and PostgreSQL share.

A dialect (`SQLiteStore`, `PostgresStore`) supplies the connection, the transaction (one
writer at a time, as the runtime's claim of a run needs), the schema and its migrations, and
how a statement is executed; the methods here are the `Store` interface itself, with the
fencing of a run's writes (`FencingStore`): a `leases` row per thread holds its lease epoch,
and each write transaction for a fenced thread checks it once, before its first write. The
paged list of threads (`ThreadBrowser`) is mixed in from `_browsing`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from types import TracebackType
from typing import NamedTuple

from .._errors import StoreVersionError
from ._browsing import ThreadBrowsing
from ._fence import LeaseLostError
from ._protocol import (
    FileRecord,
    RunRecord,
    StoredEvent,
    StoredMessage,
    ThreadRecord,
    ThreadSummary,
)

__all__ = ["SqlStore"]

# Columns named, never `*`: each dialect's tables may carry columns of their own.
_THREAD = "id, parent_id, target, created_at, metadata, member"
_RUN = (
    "id, thread_id, status, owner_pid, owner_host, heartbeat, started_at, finished_at, text,"
    " error, owner_started, epoch"
)


class _Held(NamedTuple):
    """The lease a fenced thread's writes must still hold: its run, and the epoch it took."""

    run_id: str
    epoch: int


class SqlStore(ThreadBrowsing):
    """The `Store` interface over a SQL connection; subclasses supply the dialect."""

    ORDER = "rowid"
    """The column that keeps threads in insertion order among equal timestamps."""
    BEGIN = "BEGIN"
    """How a write transaction starts."""
    FENCE_LOCK = ""
    """What a fence's check adds to its SELECT so that the lease row stays as read until the
    transaction ends (SQLite's writers take turns: nothing)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._depth = 0
        self._fences: dict[str, _Held] = {}
        """The threads whose writes this store object fences, each with the lease it holds."""
        self._checked: set[str] = set()
        """The fenced threads whose lease the open transaction has checked already."""

    def transaction(self) -> _Transaction:
        """Group writes so they commit together; nested uses join the outer one."""
        return _Transaction(self)

    def _committed(self) -> None:
        """After each commit (a dialect with housekeeping to schedule does it here)."""

    def close(self) -> None:
        raise NotImplementedError

    def _migrate(
        self,
        schema: str,
        creates: int,
        version: int,
        migrations: Mapping[int, tuple[str, ...]],
        where: str,
    ) -> None:
        """Create what is missing of `schema` (which is schema version `creates`), then bring
        the store up to `version`, one migration at a time, in one transaction; a store newer
        than `version` is refused. `where` names the store in that error.

        A store already at `version` is only read: its schema statements are not run again.
        On PostgreSQL even `CREATE INDEX IF NOT EXISTS` takes a SHARE lock on its table before
        it finds the index there, so a process opening the store would wait on (or deadlock
        with) the writers already running on it."""
        if self._table_exists("meta"):
            rows = self._read("SELECT value FROM meta WHERE key = 'schema_version'")
            if rows and int(str(rows[0][0])) == version:
                return
        with self.transaction():
            self._before_migrating()
            for statement in schema.split(";"):
                if statement.strip():
                    self._execute(statement)
            rows = self._read("SELECT value FROM meta WHERE key = 'schema_version'")
            found = int(str(rows[0][0])) if rows else creates
            if not rows:
                self._execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(found),))
            if found > version:
                raise StoreVersionError(
                    f"{where} has schema version {found}, newer than this threadlab"
                    f" understands ({version}); upgrade threadlab to open it"
                )
            for step in range(found + 1, version + 1):
                for statement in migrations[step]:
                    self._execute(statement)
            if found != version:
                self._execute(
                    "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),)
                )

    def _before_migrating(self) -> None:
        """What a dialect does first when it opens a store (take a lock, say)."""

    def _table_exists(self, name: str) -> bool:
        raise NotImplementedError

    @property
    def schema_version(self) -> int:
        return int(str(self._read("SELECT value FROM meta WHERE key = 'schema_version'")[0][0]))

    def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        """Run one statement; the number of rows it changed."""
        raise NotImplementedError

    def _executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        raise NotImplementedError

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        raise NotImplementedError

    def watch_queue(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """This dialect cannot be told of other processes' commits: nothing to watch."""
        return lambda: None

    def _rollback(self) -> None:
        """End the open transaction, keeping nothing of it."""
        self._execute("ROLLBACK")

    def lock_thread(self, thread_id: str) -> None:
        """A dialect whose write transactions exclude each other (SQLite) has nothing to add."""

    def _queued(self, thread_id: str) -> None:
        """A message was queued for `thread_id` in the current transaction (a dialect that
        can wake other processes does it here)."""

    def _write(self, sql: str, params: Sequence[object] = (), thread_id: str | None = None) -> None:
        """One statement in a transaction of its own (of a write to `thread_id`: fenced)."""
        with self.transaction():
            if thread_id is not None:
                self._fenced(thread_id)
            self._execute(sql, params)

    def _require(self, sql: str, params: Sequence[object], lost: Callable[[], Exception]) -> None:
        """Run the query `sql`, which must find a row; `lost()` is raised when it finds none."""
        if not self._read(sql, params):
            raise lost()

    # fencing (`FencingStore`)
    def fence(self, thread_id: str, run_id: str) -> None:
        with self._lock:
            rows = self._read(
                "SELECT epoch FROM runs WHERE id = ? AND thread_id = ?", (run_id, thread_id)
            )
            if not rows or rows[0][0] is None:
                raise LookupError(
                    f"run {run_id} of thread {thread_id} has no lease epoch to fence its writes"
                    " with: start it with `start_run` first"
                )
            self._fences[thread_id] = _Held(run_id, int(str(rows[0][0])))
            self._checked.discard(thread_id)

    def unfence(self, run_id: str) -> None:
        with self._lock:
            thread_id = self._fenced_by(run_id)
            if thread_id is not None:
                del self._fences[thread_id]

    def check_fence(self, thread_id: str) -> None:
        self._fenced(thread_id)

    def _fenced_by(self, run_id: str) -> str | None:
        """The thread this store fences with run `run_id`'s lease, if any."""
        return next((t for t, held in self._fences.items() if held.run_id == run_id), None)

    def _fenced(self, thread_id: str) -> None:
        """Inside a write transaction, before its writes to `thread_id`: when this store fences
        the thread, check that its run still holds the lease epoch it took, or raise
        `LeaseLostError` (the transaction then rolls back). Once per transaction: SQLite's
        writers take turns, and PostgreSQL's check locks the lease row until the end, so
        nobody can take the lease over in between."""
        held = self._fences.get(thread_id)
        if held is None or thread_id in self._checked:
            return
        self._require(
            f"SELECT 1 FROM leases WHERE thread_id = ? AND epoch = ?{self.FENCE_LOCK}",
            (thread_id, held.epoch),
            lambda: LeaseLostError(thread_id, held.run_id),
        )
        self._checked.add(thread_id)

    def _fenced_all(self, thread_ids: Iterable[str]) -> None:
        if self._fences:
            for thread_id in set(thread_ids):
                self._fenced(thread_id)

    # threads
    def add_thread(self, record: ThreadRecord) -> None:
        # A child is a write of its parent's run: a run whose lease was taken over makes none.
        self._write(
            f"INSERT INTO threads ({_THREAD}) VALUES (?, ?, ?, ?, ?, ?)",
            (
                record.id,
                record.parent_id,
                record.target,
                record.created_at,
                record.metadata,
                record.member,
            ),
            record.parent_id,
        )

    def get_thread(self, thread_id: str) -> ThreadRecord | None:
        rows = self._read(f"SELECT {_THREAD} FROM threads WHERE id = ?", (thread_id,))
        return ThreadRecord(*rows[0]) if rows else None  # type: ignore[arg-type]

    def list_threads(self) -> list[ThreadRecord]:
        rows = self._read(
            f"SELECT {_THREAD} FROM threads ORDER BY created_at DESC, {self.ORDER} DESC"
        )
        return [ThreadRecord(*row) for row in rows]  # type: ignore[arg-type]

    def summarize_threads(self) -> list[ThreadSummary]:
        rows = self._read(
            f"""
            SELECT t.id, t.parent_id, t.target, t.created_at, t.metadata, t.member,
                (SELECT COUNT(*) FROM messages m WHERE m.thread_id = t.id AND m.depth = 0),
                (SELECT COUNT(*) FROM threads c WHERE c.parent_id = t.id),
                (SELECT r.status FROM runs r WHERE r.thread_id = t.id
                    ORDER BY r.started_at DESC LIMIT 1)
            FROM threads t WHERE t.parent_id IS NULL
            ORDER BY t.created_at DESC, t.{self.ORDER} DESC
            """
        )
        running = {
            run.thread_id: run
            for run in (
                RunRecord(*row)  # type: ignore[arg-type]
                for row in self._read(f"SELECT {_RUN} FROM runs WHERE status = 'running'")
            )
        }
        return [
            ThreadSummary(
                ThreadRecord(*row[:6]),  # type: ignore[arg-type]
                int(row[6]),  # type: ignore[call-overload]
                int(row[7]),  # type: ignore[call-overload]
                row[8] if isinstance(row[8], str) else None,
                running.get(str(row[0])),
            )
            for row in rows
        ]

    def list_children(self, parent_id: str) -> list[ThreadRecord]:
        rows = self._read(
            f"SELECT {_THREAD} FROM threads WHERE parent_id = ? ORDER BY created_at, {self.ORDER}",
            (parent_id,),
        )
        return [ThreadRecord(*row) for row in rows]  # type: ignore[arg-type]

    def update_thread_metadata(self, thread_id: str, metadata: str) -> None:
        self._write(
            "UPDATE threads SET metadata = ? WHERE id = ?", (metadata, thread_id), thread_id
        )

    # messages and events
    def add_messages(self, messages: Sequence[StoredMessage]) -> None:
        with self.transaction():
            self._fenced_all(m.thread_id for m in messages)
            self._executemany(
                "INSERT INTO messages (id, thread_id, depth, data) VALUES (?, ?, ?, ?)",
                [(m.id, m.thread_id, m.depth, m.data) for m in messages],
            )

    def list_messages(self, thread_id: str, *, after: str | None = None) -> list[StoredMessage]:
        where, params = "thread_id = ?", [thread_id]
        if after is not None:
            where += " AND seq > (SELECT seq FROM messages WHERE id = ?)"
            params.append(after)
        rows = self._read(
            f"SELECT id, thread_id, depth, data FROM messages WHERE {where} ORDER BY seq", params
        )
        return [StoredMessage(*row) for row in rows]  # type: ignore[arg-type]

    def count_messages(self, thread_id: str) -> int:
        rows = self._read("SELECT COUNT(*) FROM messages WHERE thread_id = ?", (thread_id,))
        return int(str(rows[0][0]))

    def add_events(self, events: Sequence[StoredEvent]) -> None:
        if not events:
            return
        with self.transaction():
            self._fenced_all(e.thread_id for e in events)
            self._executemany(
                "INSERT INTO events (thread_id, type, data) VALUES (?, ?, ?)",
                [(e.thread_id, e.type, e.data) for e in events],
            )

    def iter_events(
        self,
        thread_id: str,
        *,
        types: Sequence[str] = (),
        until: int | None = None,
        after: int | None = None,
    ) -> Iterator[StoredEvent]:
        where, params = "thread_id = ?", [thread_id]
        if after is not None:
            where += " AND seq > ?"
            params.append(after)  # type: ignore[arg-type]
        if types:
            where += f" AND type IN ({', '.join('?' * len(types))})"
            params += types
        if until is not None:
            where += " AND seq <= ?"
            params.append(until)  # type: ignore[arg-type]
        rows = self._read(
            f"SELECT thread_id, type, data, seq FROM events WHERE {where} ORDER BY seq", params
        )
        for row in rows:
            yield StoredEvent(*row)  # type: ignore[arg-type]

    def messages_naming(self, thread_id: str, text: str) -> list[tuple[int, StoredMessage]]:
        escaped = text.replace("!", "!!").replace("%", "!%").replace("_", "!_")
        rows = self._read(
            "SELECT (SELECT COUNT(*) FROM messages e WHERE e.thread_id = m.thread_id"
            " AND e.seq < m.seq), m.id, m.thread_id, m.depth, m.data FROM messages m"
            " WHERE m.thread_id = ? AND m.data LIKE ? ESCAPE '!' ORDER BY m.seq",
            (thread_id, f"%{escaped}%"),
        )
        return [(int(str(r[0])), StoredMessage(*r[1:])) for r in rows]  # type: ignore[arg-type]

    def message_place(self, thread_id: str, index: int) -> int:
        rows = self._read(
            "SELECT seq FROM events WHERE thread_id = ? AND type = 'message_created'"
            " ORDER BY seq LIMIT 1 OFFSET ?",
            (thread_id, index),
        )
        if not rows:
            raise LookupError(f"thread {thread_id} has no message {index}")
        return int(str(rows[0][0]))

    def copy_history(
        self,
        source: str,
        target: str,
        until: int,
        rename: Sequence[tuple[str, str]],
        mentions: Sequence[tuple[str, str]] = (),
    ) -> None:
        # In SQL: the rows never travel through Python, and each is written once. `rename`
        # is replaced in every event (each names its thread's path); `mentions` (and `rename`)
        # only in the rows that can name another thread: messages that mention a thread id (a
        # report on a child) and the few kinds of event that carry one or free text. A row
        # without a match is copied as it is: replace() copies every string it is given.
        # The "_" is escaped: as LIKE's any-character it matched half the rows ("threadlab" in
        # every assistant message).
        renamed, renames = _replacing(rename)
        named, names = _replacing([*rename, *mentions])
        with self.transaction():
            self._fenced(target)
            rows = self._read(
                "SELECT COUNT(*) FROM events"
                " WHERE thread_id = ? AND type = 'message_created' AND seq <= ?",
                (source, until),
            )
            self._execute(
                "INSERT INTO messages (id, thread_id, depth, data)"
                " SELECT CAST(? AS TEXT) || '.' || CAST(seq AS TEXT), ?, depth,"
                f" CASE WHEN data LIKE ? ESCAPE '!' THEN {named} ELSE data END"
                " FROM messages WHERE thread_id = ? ORDER BY seq LIMIT ?",
                (target, target, "%thr!_%", *names, source, int(str(rows[0][0]))),
            )
            self._execute(
                "INSERT INTO events (thread_id, type, data) SELECT ?, type,"
                " CASE WHEN type IN ('subagent_created', 'custom', 'run_finished')"
                f" THEN {named} ELSE {renamed} END"
                " FROM events WHERE thread_id = ? AND seq <= ? ORDER BY seq",
                (target, *names, *renames, source, until),
            )

    def update_message(self, row_id: str, data: str) -> None:
        self._write("UPDATE messages SET data = ? WHERE id = ?", (data, row_id))

    # env
    # The env table's `kind` column holds the variable type ("text" or "secret").
    # Each change is also logged after the last event stored by then, so a fork reads the env
    # as it was at its cut.
    def set_env(self, thread_id: str, name: str, variable_type: str, value: bytes | None) -> None:
        with self.transaction():
            self._fenced(thread_id)
            self._execute(
                "INSERT INTO env VALUES (?, ?, ?, ?) ON CONFLICT (thread_id, name)"
                " DO UPDATE SET kind = excluded.kind, value = excluded.value",
                (thread_id, name, variable_type, value),
            )
            self._execute(
                "INSERT INTO env_log (thread_id, after_event, name, kind, value)"
                " SELECT ?, COALESCE(MAX(seq), 0), ?, ?, ? FROM events",
                (thread_id, name, variable_type, value),
            )

    def get_env(
        self, thread_id: str, before: int | None = None
    ) -> dict[str, tuple[str, bytes | None]]:
        rows = self._read("SELECT name, kind, value FROM env WHERE thread_id = ?", (thread_id,))
        env: dict[str, tuple[str, bytes | None]] = {
            str(r[0]): (str(r[1]), _bytes(r[2])) for r in rows
        }
        if before is None:
            return env
        logged = self._read(
            "SELECT name, kind, value, after_event FROM env_log WHERE thread_id = ? ORDER BY seq",
            (thread_id,),
        )
        then: dict[str, tuple[str, bytes | None]] = {}
        for name, kind, value, after in logged:
            env.pop(str(name), None)  # logged: its value at the cut is the log's
            if int(after) < before:  # type: ignore[call-overload]
                then[str(name)] = (str(kind), _bytes(value))
        # A variable never logged was set before the log existed: its value now is all there is.
        return {**env, **then}

    # a member's spending (UsageLedger)
    def add_usage(self, member: str, at: float, tokens: int, cost_usd: float | None) -> None:
        self._write(
            "INSERT INTO usage (member, at, tokens, cost_usd) VALUES (?, ?, ?, ?)",
            (member, at, tokens, cost_usd),
        )

    def usage_since(self, member: str, since: float) -> tuple[int, float]:
        rows = self._read(
            "SELECT COALESCE(SUM(tokens), 0), COALESCE(SUM(cost_usd), 0) FROM usage"
            " WHERE member = ? AND at >= ?",
            (member, since),
        )
        tokens, cost = rows[0]
        return int(str(tokens)), float(str(cost))

    def class_allowance(self) -> int | None:
        rows = self._read("SELECT value FROM meta WHERE key = 'class_tokens_per_day'")
        value = str(rows[0][0]) if rows else ""
        return int(value) if value.isdigit() else None

    # files
    def put_blob(self, digest: str, data: bytes) -> None:
        self._write(
            # No conflict target: on a class's store a content is kept per member.
            "INSERT INTO blobs (digest, data) VALUES (?, ?) ON CONFLICT DO NOTHING",
            (digest, data),
        )

    def get_blob(self, digest: str) -> bytes | None:
        rows = self._read("SELECT data FROM blobs WHERE digest = ?", (digest,))
        return bytes(rows[0][0]) if rows else None  # type: ignore[call-overload]

    def put_file(self, thread_id: str, record: FileRecord) -> None:
        self._write(
            "INSERT INTO files VALUES (?, ?, ?, ?, ?) ON CONFLICT (thread_id, path) DO UPDATE"
            " SET digest = excluded.digest, size = excluded.size, updated_at = excluded.updated_at",
            (thread_id, record.path, record.digest, record.size, record.updated_at),
            thread_id,
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
        with self.transaction():
            self._fenced(thread_id)
            count = self._execute(
                "DELETE FROM files WHERE thread_id = ? AND path = ?", (thread_id, path)
            )
        return count > 0

    # runs
    def start_run(self, record: RunRecord) -> None:
        with self.transaction():
            # A new holder: the thread's lease epoch moves on, fencing out any earlier one.
            self._execute(
                "INSERT INTO leases (thread_id, epoch) VALUES (?, 1) ON CONFLICT (thread_id)"
                " DO UPDATE SET epoch = leases.epoch + 1",
                (record.thread_id,),
            )
            self._execute(
                f"INSERT INTO runs ({_RUN}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?,"
                " (SELECT epoch FROM leases WHERE thread_id = ?))",
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
                    record.thread_id,
                ),
            )

    def heartbeat(self, run_id: str, at: float) -> None:
        # Only while the run holds its thread's lease: a beat must not make a run that was
        # taken over look alive again.
        with self.transaction():
            beat = self._execute(
                "UPDATE runs SET heartbeat = ? WHERE id = ? AND status = 'running' AND epoch ="
                " (SELECT epoch FROM leases WHERE leases.thread_id = runs.thread_id)",
                (at, run_id),
            )
        if not beat:
            raise LeaseLostError(self._thread_of(run_id), run_id)

    def finish_run(
        self, run_id: str, status: str, text: str | None, error: str | None, at: float
    ) -> None:
        with self.transaction():
            fenced = self._fenced_by(run_id)
            if fenced is not None:
                self._fenced(fenced)
            # The lease ends with the run that holds it: the epoch moves on, so the owner of a
            # run ended by someone else (a repair of an abandoned run) is fenced out from now.
            self._execute(
                "UPDATE leases SET epoch = epoch + 1"
                " WHERE thread_id = (SELECT thread_id FROM runs WHERE id = ?)"
                " AND epoch = (SELECT epoch FROM runs WHERE id = ?)",
                (run_id, run_id),
            )
            self._execute(
                "UPDATE runs SET status = ?, text = ?, error = ?, finished_at = ? WHERE id = ?",
                (status, text, error, at, run_id),
            )
            if fenced is not None:
                del self._fences[fenced]  # its later writes are no run's

    def _thread_of(self, run_id: str) -> str:
        rows = self._read("SELECT thread_id FROM runs WHERE id = ?", (run_id,))
        return str(rows[0][0]) if rows else "(unknown)"

    def running_runs(self, thread_id: str) -> list[RunRecord]:
        rows = self._read(
            f"SELECT {_RUN} FROM runs WHERE thread_id = ? AND status = 'running'", (thread_id,)
        )
        return [RunRecord(*row) for row in rows]  # type: ignore[arg-type]

    # queue
    def enqueue(self, thread_id: str, data: str) -> None:
        with self.transaction():
            self._execute("INSERT INTO queue (thread_id, data) VALUES (?, ?)", (thread_id, data))
            self._queued(thread_id)

    def has_queued(self, thread_id: str) -> bool:
        return bool(self._read("SELECT 1 FROM queue WHERE thread_id = ? LIMIT 1", (thread_id,)))

    def pop_queued(self, thread_id: str) -> str | None:
        with self.transaction():
            self._fenced(thread_id)  # taking a message is the run's; queuing one is anyone's
            rows = self._read(
                "DELETE FROM queue WHERE seq = (SELECT min(seq) FROM queue WHERE thread_id = ?)"
                " RETURNING data",
                (thread_id,),
            )
        return str(rows[0][0]) if rows else None

    def drain_queue(self, thread_id: str) -> list[str]:
        # Called at every step: a plain read first, a write transaction only when there is work.
        if not self.has_queued(thread_id):
            return []
        # One statement takes and removes them: two drainers never get the same message.
        with self.transaction():
            self._fenced(thread_id)
            rows = self._read(
                "DELETE FROM queue WHERE thread_id = ? RETURNING seq, data", (thread_id,)
            )
        return [str(data) for _, data in sorted(rows, key=lambda row: int(str(row[0])))]


def _replacing(pairs: Sequence[tuple[str, str]]) -> tuple[str, list[object]]:
    """A SQL expression of `data` with each (old, new) of `pairs` replaced, and its
    parameters."""
    expression = "data"
    parameters: list[object] = []
    for old, new in pairs:
        expression = f"replace({expression}, CAST(? AS TEXT), CAST(? AS TEXT))"
        parameters += [old, new]
    return expression, parameters


class _Transaction:
    """`SqlStore.transaction()`. A class rather than a generator context manager: a step
    enters a dozen of them (most nested), and the generator's machinery cost more than the
    rest of what they do."""

    __slots__ = ("_store",)

    def __init__(self, store: SqlStore) -> None:
        self._store = store

    def __enter__(self) -> None:
        store = self._store
        store._lock.acquire()
        if store._depth:
            store._depth += 1
            return
        try:
            store._execute(store.BEGIN)
        except BaseException:
            store._lock.release()
            raise
        store._depth = 1
        store._checked.clear()  # each transaction checks its fences anew

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        store = self._store
        try:
            if store._depth > 1:
                store._depth -= 1  # the outer transaction commits or rolls back
                return
            store._depth = 0
            if kind is not None:
                store._rollback()
            else:
                try:
                    store._execute("COMMIT")
                except BaseException:
                    store._rollback()  # a commit that failed (a full disk) leaves it open
                    raise
                store._committed()
        finally:
            store._lock.release()


def _bytes(value: object) -> bytes | None:
    """A BLOB / BYTEA column's value (PostgreSQL's driver may hand a memoryview)."""
    return None if value is None else bytes(value)  # type: ignore[call-overload]
