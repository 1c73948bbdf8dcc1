"""Persistence: one interface, SQLite by default."""

from .._errors import StoreVersionError
from ._protocol import (
    FileRecord,
    RunRecord,
    Store,
    StoredEvent,
    StoredMessage,
    ThreadRecord,
    ThreadSummary,
)
from ._sqlite import SCHEMA_VERSION, SQLiteStore

__all__ = [
    "SCHEMA_VERSION",
    "FileRecord",
    "RunRecord",
    "SQLiteStore",
    "Store",
    "StoreVersionError",
    "StoredEvent",
    "StoredMessage",
    "ThreadRecord",
    "ThreadSummary",
]
