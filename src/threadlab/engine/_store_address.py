"""How a worker on another process (or machine) reaches the caller's store, without the
store's password travelling with the work."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit, urlunsplit

from .._errors import StoreError
from ..store import PostgresStore, SQLiteStore, Store

__all__ = ["StoreAddress", "address_of"]


@dataclass(frozen=True)
class StoreAddress:
    """Where the store is, as a worker opens it."""

    spec: str
    """A SQLite store's directory, or a PostgreSQL URL without its password."""
    inherited: dict[str, str] = field(default_factory=dict)
    """What a local Ray's processes need in their environment besides (the password, as
    libpq reads it); a cluster's workers are given it by whoever starts them."""
    shared_file: bool = False
    """Whether the store is a file on this machine (workers elsewhere cannot reach it)."""


def address_of(store: Store) -> StoreAddress:
    """The address of `store` for workers; `tl.StoreError` for a store only this process can
    open (one made in memory, say)."""
    if isinstance(store, SQLiteStore):
        return StoreAddress(str(store.directory.resolve()), shared_file=True)
    if isinstance(store, PostgresStore):
        parts = urlsplit(store.url)
        if parts.password is None:
            return StoreAddress(store.url)
        host = parts.hostname or ""
        netloc = f"{parts.username or ''}@{host}" + (f":{parts.port}" if parts.port else "")
        bare = urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
        return StoreAddress(bare, {"PGPASSWORD": parts.password})
    raise StoreError(
        f"a {type(store).__name__} cannot be opened by other processes: runs on an engine"
        " need a store they can reach (a directory for SQLite, or a postgresql:// URL)"
    )
