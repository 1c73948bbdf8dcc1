"""Persistence: one interface, SQLite by default, PostgreSQL for a team.

The public namespace for writing a store of one's own: the `Store` protocol, the optional
capabilities a store may add (`MessageCounter`, `LocatedStore`, `FencingStore` with the
`LeaseLostError` its refused writes raise, `ThreadBrowser` with its `ThreadQuery`), and the
records a store keeps.
`threadlab.testing.StoreContract` is the contract the shipped stores pass, as a test class
a third-party store runs."""

import os
import re

from .._errors import StoreURLError
from ._class_roles import ClassMember, init_class
from ._fence import LeaseLostError
from ._postgres import PostgresStore, is_postgres_url
from ._postgres_link import StoreAccessError
from ._protocol import (
    ORIGIN_KINDS,
    FencingStore,
    FileRecord,
    LocatedStore,
    MessageCounter,
    RunRecord,
    Store,
    StoredEvent,
    StoredMessage,
    ThreadBrowser,
    ThreadListing,
    ThreadQuery,
    ThreadRecord,
    ThreadSummary,
    UsageLedger,
)
from ._sqlite import SQLiteStore

__all__ = [
    "ORIGIN_KINDS",
    "ClassMember",
    "FencingStore",
    "FileRecord",
    "LeaseLostError",
    "LocatedStore",
    "MessageCounter",
    "PostgresStore",
    "RunRecord",
    "SQLiteStore",
    "Store",
    "StoreAccessError",
    "StoredEvent",
    "StoredMessage",
    "ThreadBrowser",
    "ThreadListing",
    "ThreadQuery",
    "ThreadRecord",
    "ThreadSummary",
    "UsageLedger",
    "database_role",
    "init_class",
    "open_store",
]

_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")


def database_role(store: Store) -> str | None:
    """The database role `store` acts as, where it has one (a PostgreSQL store)."""
    role = getattr(store, "database_role", None)
    return role if isinstance(role, str) else None


def open_store(spec: "Store | str | os.PathLike[str] | None") -> Store:
    """The store `spec` names: a Store as given; a postgresql:// URL; else a directory path
    for SQLite (default ".threadlab"). Any other URL is an error, never a folder named after
    it."""
    if spec is None:
        return SQLiteStore(".threadlab")
    if isinstance(spec, str) and is_postgres_url(spec):
        return PostgresStore(spec)
    if isinstance(spec, str) and _URL.match(spec):
        scheme = spec.split("://", 1)[0]
        raise StoreURLError(
            f"no store understands {scheme}:// URLs: use postgresql://... for PostgreSQL, or a"
            " directory path for SQLite"
        )
    if isinstance(spec, str | os.PathLike):
        return SQLiteStore(spec)
    return spec
