"""Copying attachments between threads: validate every path in the source thread first, then
give the receiver its own paths to the same stored content (no bytes are duplicated)."""

from __future__ import annotations

import posixpath
from collections.abc import Iterable

from .._errors import PathError
from ._files import ThreadFiles

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


def copy_attachments(source: ThreadFiles, target: ThreadFiles, paths: Iterable[str]) -> list[str]:
    """Copy `paths` of `source` into `target` under /attachments/, returning the paths as they
    are valid in `target`. Nothing is copied unless every path is valid in `source`."""
    records = [source.require(path) for path in paths]
    if not records:
        return []
    out: list[str] = []
    with target.transaction():
        for record in records:
            destination = _free_path(target, posixpath.basename(record.path), record.digest, out)
            if target.stat_sync(destination) is None:
                target.link_sync(destination, record)
            out.append(destination)
    return out


def _free_path(target: ThreadFiles, name: str, digest: str, taken: list[str]) -> str:
    """`/attachments/name`, or `name-2`, `name-3`... when that path holds other content."""
    stem, ext = posixpath.splitext(name)
    candidate = f"/attachments/{name}"
    counter = 1
    while True:
        existing = target.stat_sync(candidate)
        if candidate not in taken and (existing is None or existing.digest == digest):
            return candidate
        counter += 1
        candidate = f"/attachments/{stem}-{counter}{ext}"
