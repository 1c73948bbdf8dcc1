"""Copying attachments between threads: validate every path in the source thread first, then
give the receiver its own paths to the same stored content (no bytes are duplicated)."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable

from .._errors import PathError
from ..store import FileRecord
from ._files import ThreadFiles
from ._paths import normalize_path

__all__ = ["as_paths", "check_copy", "copy_attachments"]


def as_paths(value: object) -> list[str]:
    """An attachments argument: one path or a list of paths."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return list(value)
    raise PathError(f"attachments must be a path or a list of paths, got {value!r}")


def check_copy(source: ThreadFiles, paths: Iterable[str]) -> None:
    """Raise `PathError` if `paths` could not be copied into a thread that has no files yet
    (a child about to be created): check before creating anything."""
    _plan(source, paths, lambda path: None)


def copy_attachments(source: ThreadFiles, target: ThreadFiles, paths: Iterable[str]) -> list[str]:
    """Copy `paths` of `source` into `target` under /attachments/, returning the paths as they
    are valid in `target`. Every source path and every destination is checked before anything
    is copied: a copy happens whole or not at all."""
    plan = _plan(source, paths, target.stat_sync)
    if not plan:
        return []
    with target.transaction():
        for record, destination in plan:
            if target.stat_sync(destination) is None:
                target.link_sync(destination, record)
    return [destination for _, destination in plan]


def _plan(
    source: ThreadFiles, paths: Iterable[str], existing: Callable[[str], FileRecord | None]
) -> list[tuple[FileRecord, str]]:
    records = [source.require(path) for path in paths]
    plan: list[tuple[FileRecord, str]] = []
    taken: list[str] = []
    for record in records:
        destination = _free_path(existing, posixpath.basename(record.path), record.digest, taken)
        # A de-duplicated name ("page-2.html") may outgrow the limits its source kept.
        normalize_path(destination)
        taken.append(destination)
        plan.append((record, destination))
    return plan


def _free_path(
    existing: Callable[[str], FileRecord | None], name: str, digest: str, taken: list[str]
) -> str:
    """`/attachments/name`, or `name-2`, `name-3`... when that path holds other content."""
    stem, ext = posixpath.splitext(name)
    candidate = f"/attachments/{name}"
    counter = 1
    while True:
        found = None if candidate in taken else _stat(existing, candidate)
        if candidate not in taken and (found is None or found.digest == digest):
            return candidate
        counter += 1
        candidate = f"/attachments/{stem}-{counter}{ext}"


def _stat(existing: Callable[[str], FileRecord | None], path: str) -> FileRecord | None:
    try:
        return existing(path)
    except PathError:
        return None  # an invalid candidate is reported by the plan's own check
