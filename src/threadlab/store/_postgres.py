"""PostgreSQL store: many processes and machines on one history.

The same tables as SQLite, in PostgreSQL's types, and the same guarantees: a write transaction
per step, and one writer per thread — the runtime's claim of a run (check that nobody runs the
thread, take the lease) and its repair lock the thread's row for their transaction,
so they are atomic across processes while writers of other threads go on in parallel (SQLite
serialises every writer instead). Reads outside a transaction see what is committed. Queuing a
message for a thread also sends a `NOTIFY` on the `threadlab_queue` channel inside the same
transaction, delivered on commit, so a listener elsewhere can react without polling.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable, Sequence
from typing import Any

from .._errors import ThreadlabError
from .._urls import hide, password_of, shown
from ._postgres_link import Link
from ._postgres_search import MATCHING, SEARCH_MIGRATION, tsquery
from ._sql import SqlStore

__all__ = ["NOTIFY_CHANNEL", "POSTGRES_SCHEMA_VERSION", "PostgresStore", "is_postgres_url"]

POSTGRES_SCHEMA_VERSION = 6
NOTIFY_CHANNEL = "threadlab_queue"

# Any fixed number: the key of the advisory lock that creates and migrates the schema.
_SCHEMA_LOCK = 0x7468726C  # "thrl"

# From one version to the next (version 1 is the first schema, as created below at v1).
_MIGRATIONS: dict[int, tuple[str, ...]] = {
    2: ("ALTER TABLE runs ADD COLUMN IF NOT EXISTS owner_started DOUBLE PRECISION",),
    # 3: each change of a thread's env, placed in the events' sequence (forks cut it).
    3: (
        "CREATE TABLE IF NOT EXISTS env_log (seq BIGSERIAL PRIMARY KEY, thread_id TEXT NOT NULL,"
        " after_event BIGINT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, value BYTEA)",
        "CREATE INDEX IF NOT EXISTS env_log_thread ON env_log(thread_id, seq)",
    ),
    # 4: each thread's lease epoch, and the epoch each run took (fencing a taken-over run).
    4: (
        "ALTER TABLE runs ADD COLUMN IF NOT EXISTS epoch BIGINT",
        "CREATE TABLE IF NOT EXISTS leases (thread_id TEXT PRIMARY KEY, epoch BIGINT NOT NULL)",
    ),
    # 5: the member of a class each thread belongs to (row-level security reads it).
    5: (
        "ALTER TABLE threads ADD COLUMN IF NOT EXISTS member TEXT",
        "CREATE INDEX IF NOT EXISTS threads_member ON threads(member)",
        "CREATE TABLE IF NOT EXISTS usage (seq BIGSERIAL PRIMARY KEY, member TEXT NOT NULL,"
        " at DOUBLE PRECISION NOT NULL, tokens BIGINT NOT NULL, cost_usd DOUBLE PRECISION)",
        "CREATE INDEX IF NOT EXISTS usage_member ON usage(member, at)",
    ),
    # 6: a list of threads read a page at a time, newest first, and searched by the words of
    # their messages (a GIN index of each message's words).
    6: (
        "CREATE INDEX IF NOT EXISTS threads_listed ON threads(parent_id, created_at, seq)",
        *SEARCH_MIGRATION,
    ),
}

_SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS threads (
    seq BIGSERIAL UNIQUE, id TEXT PRIMARY KEY, parent_id TEXT, target TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL, metadata TEXT NOT NULL DEFAULT '{}');
CREATE INDEX IF NOT EXISTS threads_parent ON threads(parent_id);
CREATE TABLE IF NOT EXISTS messages (
    seq BIGSERIAL PRIMARY KEY, id TEXT NOT NULL UNIQUE,
    thread_id TEXT NOT NULL, depth INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS messages_thread ON messages(thread_id, seq);
CREATE TABLE IF NOT EXISTS events (
    seq BIGSERIAL PRIMARY KEY, thread_id TEXT NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_thread ON events(thread_id, seq);
CREATE TABLE IF NOT EXISTS env (
    thread_id TEXT NOT NULL, name TEXT NOT NULL, kind TEXT NOT NULL, value BYTEA,
    PRIMARY KEY (thread_id, name));
CREATE TABLE IF NOT EXISTS blobs (digest TEXT PRIMARY KEY, data BYTEA NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    thread_id TEXT NOT NULL, path TEXT NOT NULL, digest TEXT NOT NULL,
    size BIGINT NOT NULL, updated_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (thread_id, path));
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, thread_id TEXT NOT NULL, status TEXT NOT NULL,
    owner_pid INTEGER NOT NULL, owner_host TEXT NOT NULL, heartbeat DOUBLE PRECISION NOT NULL,
    started_at DOUBLE PRECISION NOT NULL, finished_at DOUBLE PRECISION, text TEXT, error TEXT);
CREATE INDEX IF NOT EXISTS runs_thread ON runs(thread_id, status);
CREATE TABLE IF NOT EXISTS queue (
    seq BIGSERIAL PRIMARY KEY, thread_id TEXT NOT NULL, data TEXT NOT NULL);
"""

_URL = re.compile(r"^postgres(ql)?(\+psycopg)?://", re.IGNORECASE)


def is_postgres_url(value: str) -> bool:
    """Whether `value` names a PostgreSQL database (postgresql://… or postgres://…)."""
    return bool(_URL.match(value))


def _psycopg() -> Any:
    try:
        import psycopg
    except ImportError:
        raise ThreadlabError(
            "a postgresql:// store needs psycopg: pip install 'threadlab[postgres]'"
        ) from None
    return psycopg


class PostgresStore(SqlStore):
    """A store in a PostgreSQL database, shared by every process that opens the same URL."""

    ORDER = "seq"
    # A fenced write's check keeps the lease row as read until its transaction ends: a
    # takeover (which updates the row) waits for the write to commit, or the write sees it.
    FENCE_LOCK = " FOR SHARE"
    # Numbered when inserted, visible when committed: two writers can commit out of order.
    events_in_commit_order = False

    def __init__(self, url: str) -> None:
        psycopg = _psycopg()
        self.url = url
        super().__init__()
        self._watchers: list[Callable[[str], None]] = []
        self._listener: threading.Thread | None = None
        self._closing = threading.Event()
        # psycopg understands postgresql:// and postgres://, not a "+driver" suffix.
        self._dsn = dsn = re.sub(
            r"^postgres(ql)?\+psycopg://", "postgresql://", url, flags=re.IGNORECASE
        )
        self.location = hide(dsn, dsn)
        password = password_of(dsn)
        if password is not None and "@" in password:
            # A driver would read the host from after the first "@" and quote it back.
            raise ThreadlabError(
                f"cannot open the PostgreSQL store {shown(url)}: its password holds an"
                ' unencoded "@"; write it as %40 in the URL (percent-encoding)'
            )
        try:
            self._link = Link(dsn, psycopg.connect(dsn, autocommit=True))
        except psycopg.Error as exc:
            # psycopg quotes the URL it could not parse, password and all: hide it first.
            raise ThreadlabError(
                f"cannot open the PostgreSQL store {hide(url, url)}: {hide(str(exc), url)}"
            ) from None
        # A new database gets the first schema, then every migration.
        self._migrate(_SCHEMA_V1, 1, POSTGRES_SCHEMA_VERSION, _MIGRATIONS, "the PostgreSQL store")

    @functools.cached_property
    def database_role(self) -> str:
        """The role this store's connection acts as (a class member's, on a class's store)."""
        return str(self._read("SELECT current_user")[0][0])

    def _before_migrating(self) -> None:
        # Two processes opening a new database at once: the lock makes one create it.
        self._execute("SELECT pg_catalog.pg_advisory_xact_lock(?)", (_SCHEMA_LOCK,))

    def _table_exists(self, name: str) -> bool:
        return self._read("SELECT to_regclass(?)", (name,))[0][0] is not None

    def _execute(self, sql: str, params: Sequence[object] = ()) -> int:
        statement, values = _placeholders(sql), _text_safe(params)
        with self._lock:
            return self._link.run(
                sql, lambda db: int(db.execute(statement, values).rowcount),
                read=False,  # writes, locks and notifications: reads go through _read
            )  # fmt: skip

    def _executemany(self, sql: str, rows: Sequence[Sequence[object]]) -> None:
        statement, values = _placeholders(sql), [_text_safe(row) for row in rows]

        def many(db: Any) -> None:
            with db.cursor() as cursor:
                cursor.executemany(statement, values)

        with self._lock:
            self._link.run(sql, many, read=False)

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        statement = _placeholders(sql)
        with self._lock:
            return self._link.run(
                sql, lambda db: list(db.execute(statement, params).fetchall()), read=True
            )

    def _require(self, sql: str, params: Sequence[object], lost: Callable[[], Exception]) -> None:
        statement = _placeholders(sql)

        def check(db: Any) -> None:
            if db.execute(statement, params).fetchone() is None:
                raise lost()

        # Journaled as a write: a transaction sent again on a new connection (`Link`) runs
        # the check again, and fails if the lease was taken over meanwhile.
        with self._lock:
            self._link.run(sql, check, read=False)

    def _matching(self, words: Sequence[str]) -> tuple[str, list[object]]:
        return MATCHING, [tsquery(words)]

    def _message_field(self, key: str) -> str:
        return f"(m.data::json ->> '{key}')"

    def lock_thread(self, thread_id: str) -> None:
        # The thread's lease row, locked for the transaction (made first when the thread has
        # none): a lock only a role that may write the thread can take, where an advisory
        # lock is any role's to take, and to hold forever.
        self._execute(
            "INSERT INTO leases (thread_id, epoch) VALUES (?, 0) ON CONFLICT (thread_id)"
            " DO NOTHING",
            (thread_id,),
        )
        self._execute("SELECT epoch FROM leases WHERE thread_id = ? FOR UPDATE", (thread_id,))

    def _queued(self, thread_id: str) -> None:
        self._execute("SELECT pg_catalog.pg_notify(?, ?)", (NOTIFY_CHANNEL, thread_id))

    def watch_queue(self, callback: Callable[[str], None]) -> Callable[[], None]:
        """Notifications of messages other connections queued (this store's own are left
        out: its process knows), from a connection that only listens (started with the first
        watch, on an OS thread of its own)."""
        with self._lock:
            self._watchers.append(callback)
            if self._listener is None:
                ready = threading.Event()
                self._listener = threading.Thread(
                    target=self._listen, args=(ready,), name="threadlab-listen", daemon=True
                )
                self._listener.start()
                ready.wait(10)  # LISTEN is in place before anything is queued

        def stop() -> None:
            with self._lock:
                if callback in self._watchers:
                    self._watchers.remove(callback)

        return stop

    def _listen(self, ready: threading.Event) -> None:
        psycopg = _psycopg()
        while not self._closing.is_set():
            try:
                with psycopg.connect(self._dsn, autocommit=True) as listening:
                    listening.execute(f"LISTEN {NOTIFY_CHANNEL}")
                    ready.set()
                    while not self._closing.is_set():
                        # A timeout, so closing the store ends the thread within it.
                        for note in listening.notifies(timeout=0.2):
                            if note.pid == self._link.backend_pid():
                                continue  # this store's own commit: its process knows
                            with self._lock:
                                watchers = list(self._watchers)
                            for watcher in watchers:
                                watcher(note.payload)
            except psycopg.Error:
                # The server went away: notifications sent meanwhile are lost, which the
                # waiters' poll covers; listen again once it is back.
                ready.set()
                self._closing.wait(1.0)

    def close(self) -> None:
        self._closing.set()
        if self._listener is not None:
            self._listener.join(5)
        with self._lock:
            self._link.close()

    def __del__(self) -> None:
        # A Runtime need not be closed (a kernel's lives as long as the kernel): its store
        # closes its connection when collected, as SQLite's does.
        link = getattr(self, "_link", None)
        if link is not None:
            link.close()


def _text_safe(params: Sequence[object]) -> Sequence[object]:
    """PostgreSQL's text cannot hold U+0000 (a write with one fails, and its whole step with
    it). Messages, events and metadata are JSON, where a NUL is escaped; the only raw text is
    the runs table's copy of a run's answer and error, which a model or a provider can fill
    with anything. There a NUL is kept as U+FFFD: the run's outcome as threadlab returns it
    comes from its `run_finished` event, which keeps the NUL, as SQLite does."""
    if not any(isinstance(p, str) and "\x00" in p for p in params):
        return params
    return [p.replace("\x00", "\ufffd") if isinstance(p, str) else p for p in params]


@functools.lru_cache(maxsize=512)
def _placeholders(sql: str) -> str:
    # The shared statements use "?"; psycopg takes "%s" (and a literal % must be doubled).
    # Cached: the same few statements run at every step.
    return sql.replace("%", "%%").replace("?", "%s")
