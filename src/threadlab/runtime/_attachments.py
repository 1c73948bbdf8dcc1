"""Copying attachments between threads: validate every path in the source thread first, then
give the receiver its own paths to the same stored content (no bytes are duplicated)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable
from typing import TYPE_CHECKING

from .._errors import PathError
from ._paths import normalize_path

if TYPE_CHECKING:
    from ._thread import Thread

__all__ = ["as_paths", "copy_attachments"]


def as_paths(value: object) -> list[str]:
    """An attachments argument: one path or a list of paths."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return list(value)
    raise PathError(f"attachments must be a path or a list of paths, got {value!r}")


def copy_attachments(source: Thread, target: Thread, paths: Iterable[str]) -> list[str]:
    """Copy `paths` of `source` into `target` under /attachments/, returning the paths as they
    are valid in `target`. Nothing is copied unless every path is valid in `source`."""
    records = []
    for path in paths:
        normal = normalize_path(path)
        record = source.files.stat_sync(normal)
        if record is None:
            raise PathError(f"{normal} not found in thread {source.id}")
        records.append(record)
    if not records:
        return []
    store = source._rt.store
    out: list[str] = []
    with store.transaction():
        for record in records:
            destination = _free_path(target, posixpath.basename(record.path), record.digest, out)
            if target.files.stat_sync(destination) is None:
                target.files.link_sync(destination, record)
            out.append(destination)
    return out


def _free_path(target: Thread, name: str, digest: str, taken: list[str]) -> str:
    """`/attachments/name`, or `name-2`, `name-3`... when that path holds other content."""
    stem, ext = posixpath.splitext(name)
    candidate = f"/attachments/{name}"
    counter = 1
    while True:
        existing = target.files.stat_sync(candidate)
        if candidate not in taken and (existing is None or existing.digest == digest):
            return candidate
        counter += 1
        candidate = f"/attachments/{stem}-{counter}{ext}"
