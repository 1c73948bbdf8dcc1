"""A thread's own filesystem, stored content-addressed so copies share their bytes."""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from contextlib import AbstractContextManager

from .._errors import PathError
from ..store import FileRecord, Store
from ._paths import normalize_path, normalize_prefix

__all__ = ["ThreadFiles"]


class ThreadFiles:
    """`thread.files`: read, write, list and delete the files of one thread.

    Paths are absolute POSIX paths in the thread's own namespace (see `normalize_path`). A
    name that holds a secret is stored with the secret replaced (`/[secret:KEY].txt`): that
    is the name every listing, event and view shows, and the file is found by either.
    """

    def __init__(
        self,
        store: Store,
        thread_id: str,
        on_written: Callable[[FileRecord | str], None] | None = None,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        self._store = store
        self.thread_id = thread_id
        self._on_written = on_written
        self._redact = redact

    def _normal(self, path: object) -> str:
        normal = normalize_path(path)
        if self._redact is None:
            return normal
        redacted = self._redact(normal)
        return normal if redacted == normal else normalize_path(redacted)

    def require(self, path: object) -> FileRecord:
        """The record of `path`, which must be a valid path that exists in this thread."""
        normal = self._normal(path)
        record = self._store.get_file(self.thread_id, normal)
        if record is None:
            raise PathError(f"{normal} not found in thread {self.thread_id}")
        return record

    def read_sync(self, path: str) -> bytes:
        record = self.require(path)
        data = self._store.get_blob(record.digest)
        if data is None:  # a record without content means a damaged store, not a user error
            raise PathError(f"{record.path} in thread {self.thread_id} has lost its content")
        return data

    def read_version_sync(self, path: str, digest: str) -> bytes:
        """What `path` held when this thread wrote it with content `digest` (a file as of an
        earlier point: a `file_written` point of `thread.history_points()` names its
        digest). `PathError` when this thread never wrote that content at that path — a
        digest is no key to another thread's files."""
        normal = self._normal(path)
        written = any(
            _wrote(event.data, normal, digest)
            for event in self._store.iter_events(self.thread_id, types=("file_written",))
        )
        data = self._store.get_blob(digest) if written else None
        if data is None:
            raise PathError(f"{normal} of thread {self.thread_id} never held that content")
        return data

    def write_sync(self, path: str, data: str | bytes) -> FileRecord:
        normal = self._normal(path)
        if isinstance(data, str):
            data = data.encode()
        elif not isinstance(data, bytes | bytearray | memoryview):
            raise TypeError(f"file data must be str or bytes, got {type(data).__name__}")
        payload = bytes(data)
        digest = hashlib.sha256(payload).hexdigest()
        record = FileRecord(normal, len(payload), digest, time.time())
        with self._store.transaction():
            # The file first: on a class's store a content is readable (and so storable)
            # only where a file of one's own names it.
            self._store.put_file(self.thread_id, record)
            self._store.put_blob(digest, payload)
        if self._on_written is not None:
            self._on_written(record)
        return record

    def transaction(self) -> AbstractContextManager[None]:
        """Writes made inside commit together (the store's transaction)."""
        return self._store.transaction()

    def link_sync(self, path: str, record: FileRecord) -> FileRecord:
        """Give this thread a file whose content is already stored (a copy that shares bytes)."""
        normal = self._normal(path)
        linked = FileRecord(normal, record.size, record.digest, time.time())
        self._store.put_file(self.thread_id, linked)
        if self._on_written is not None:
            self._on_written(linked)
        return linked

    def stat_sync(self, path: str) -> FileRecord | None:
        return self._store.get_file(self.thread_id, self._normal(path))

    def list_sync(self, prefix: str = "/") -> list[FileRecord]:
        listed = normalize_prefix(prefix)
        if self._redact is not None and listed != "/":
            listed = normalize_prefix(self._redact(listed))
        return self._store.list_files(self.thread_id, listed)

    def delete_sync(self, path: str) -> bool:
        normal = self._normal(path)
        deleted = self._store.delete_file(self.thread_id, normal)
        if deleted and self._on_written is not None:
            self._on_written(normal)  # a path alone: it is gone
        return deleted

    async def read(self, path: str) -> bytes:
        return self.read_sync(path)

    async def write(self, path: str, data: str | bytes) -> FileRecord:
        return self.write_sync(path, data)

    async def list(self, prefix: str = "/") -> list[FileRecord]:
        return self.list_sync(prefix)

    async def delete(self, path: str) -> bool:
        return self.delete_sync(path)


def _wrote(data: str, path: str, digest: str) -> bool:
    """Whether a stored `file_written` event wrote content `digest` at `path`."""
    try:
        event = json.loads(data)
    except ValueError:
        return False
    return (
        isinstance(event, dict)
        and event.get("path") == path
        and event.get("digest") == digest
        and not event.get("deleted")
    )
