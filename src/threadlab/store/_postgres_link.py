"""The PostgreSQL store's connection, and what happens when it breaks (a server restarted, a
network cut): the broken connection is replaced from a pool (`psycopg_pool`, made at the first
break) that reconnects with backoff, and the statement that found it broken is sent again.

Outside a transaction that statement is sent again once on the new connection. Inside one,
the server has rolled back what the transaction had done, so the transaction's statements so
far (journaled) are sent again from its `BEGIN`, once — unless it had read something: its
reads were acted on already and a second reading could differ, so the error goes on to the
caller, whose step fails cleanly, and the next one runs on the new connection.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from .._errors import StoreError

__all__ = ["RECONNECT_SECONDS", "Link", "StoreAccessError"]


class StoreAccessError(StoreError):
    """The database refused this role a read or write (on a class's store: a row of another
    member's). Nothing of the transaction was stored."""


T = TypeVar("T")

RECONNECT_SECONDS = 10.0
"""How long a statement waits for the server to come back before its error goes on."""

_log = logging.getLogger("threadlab.store")


class Link:
    """One connection at a time, with a journal of the transaction in progress. The store
    holds its lock around every use: one statement or transaction at a time."""

    def __init__(self, dsn: str, first: Any) -> None:
        self.db = first  # made by the store itself, which explains its errors
        self._dsn = dsn
        self._pool: Any = None
        self._journal: list[Callable[[Any], object]] | None = None
        self._has_read = False

    def run(self, sql: str, call: Callable[[Any], T], *, read: bool) -> T:
        """`call(connection)`, which sends the statement `sql`; if the connection broke under
        it, again on a new one as the module says."""
        import psycopg

        if sql == "BEGIN":
            self._journal, self._has_read = [], False
        try:
            if self.db is None:  # the last reconnection timed out: try again now
                self._replace()
            result = call(self.db)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise StoreAccessError(
                f"the PostgreSQL store refused this as {self.db.info.user!r}: {exc} (on a"
                " class's store a member reads and writes only its own threads)"
            ) from None
        except psycopg.OperationalError:
            if not (self.db is None or self.db.closed or self.db.broken):
                raise  # the statement failed, not the connection
            self._replace()
            result = self._again(sql, call)
        self._record(sql, call, read=read)
        return result

    def _again(self, sql: str, call: Callable[[Any], T]) -> T:
        journal, self._journal = self._journal, None
        if sql == "ROLLBACK" or (journal is not None and self._has_read):
            import psycopg

            # A rollback is done already (the server dropped the transaction); a transaction
            # that read cannot be sent again.
            if sql == "ROLLBACK":
                return None  # type: ignore[return-value]
            raise psycopg.OperationalError("the connection to PostgreSQL broke mid-transaction")
        if journal is not None:
            self._journal = journal
            for journaled in journal:
                journaled(self.db)
        return call(self.db)

    def _record(self, sql: str, call: Callable[[Any], object], *, read: bool) -> None:
        if sql in ("COMMIT", "ROLLBACK"):
            self._journal = None
        elif self._journal is not None:
            self._journal.append(call)
            self._has_read |= read

    def _replace(self) -> None:
        """Drop the broken connection and take a new one from the pool, waiting for the
        server up to `RECONNECT_SECONDS`."""
        from psycopg_pool import ConnectionPool

        _log.warning("the connection to PostgreSQL broke; reconnecting")
        if self._pool is None:
            self.db.close()
            self._pool = ConnectionPool(
                self._dsn,
                min_size=1,
                max_size=1,
                kwargs={"autocommit": True},
                check=ConnectionPool.check_connection,
                reconnect_timeout=3600.0,  # a store lives as long as its process
                name="threadlab",
                open=True,
            )
        elif self.db is not None:
            broken, self.db = self.db, None
            self._pool.putconn(broken)  # a broken connection is discarded and replaced
        self.db = self._pool.getconn(timeout=RECONNECT_SECONDS)

    def backend_pid(self) -> int | None:
        """The server process of the connection in use (None while there is none)."""
        db = self.db
        return None if db is None or db.closed else int(db.info.backend_pid)

    def close(self) -> None:
        """Close the connection and the pool; again is a no-op."""
        if self.db is not None and not self.db.closed:
            self.db.close()
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.close()
