"""Thread filesystem paths: absolute POSIX paths in the thread's own namespace, never the host's."""

from __future__ import annotations

import re
import unicodedata

from .._errors import PathError

__all__ = ["MAX_PATH_BYTES", "MAX_SEGMENT_BYTES", "normalize_path", "normalize_prefix"]

MAX_PATH_BYTES = 4096
MAX_SEGMENT_BYTES = 255
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def normalize_path(path: object) -> str:
    """Validate a thread path and return it normalised (`//a/./b/` -> `/a/b`).

    Names are normalised to NFC, so one name has one spelling. Rejected: non-strings, empty or
    relative paths, `..` segments, NUL and control characters, invisible format characters
    (bidi controls, zero-width), lone surrogates, backslashes, `~`, URL schemes, names over 255
    bytes and paths over 4096 bytes (UTF-8).
    """
    if not isinstance(path, str):
        raise PathError(f"a thread path must be a string, got {type(path).__name__}")
    shown = repr(path) if len(path) < 200 else repr(path[:200] + "...")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise PathError(f"thread path {shown} is not valid text (a lone surrogate)") from None
    path = unicodedata.normalize("NFC", path)
    if not path:
        raise PathError(
            "a thread path cannot be empty; use an absolute path like /attachments/a.txt"
        )
    if _CONTROL.search(path):
        raise PathError(f"thread path {shown} contains a NUL or control character")
    if any(unicodedata.category(char) == "Cf" for char in path):
        raise PathError(
            f"thread path {shown} contains an invisible format character (bidi or zero-width)"
        )
    if len(path.encode()) > MAX_PATH_BYTES:
        raise PathError(f"thread path {shown} is longer than {MAX_PATH_BYTES} bytes")
    if "\\" in path:
        raise PathError(f"thread path {shown} contains a backslash; use '/' separators")
    if path.startswith("~"):
        raise PathError(f"thread path {shown} starts with '~'; thread paths are not host paths")
    if _SCHEME.match(path):
        raise PathError(f"thread path {shown} is a URL; give a path like /attachments/a.txt")
    if not path.startswith("/"):
        raise PathError(f"thread path {shown} is relative; thread paths start with '/'")
    segments = [s for s in path.split("/") if s not in ("", ".")]
    for segment in segments:
        if segment == "..":
            raise PathError(f"thread path {shown} contains '..'; paths cannot leave the thread")
        if len(segment.encode()) > MAX_SEGMENT_BYTES:
            raise PathError(f"thread path {shown} has a name longer than {MAX_SEGMENT_BYTES} bytes")
    if not segments:
        raise PathError(f"thread path {shown} names the root, not a file")
    return "/" + "/".join(segments)


def normalize_prefix(prefix: str) -> str:
    """A listing prefix: '/' or a normalised directory path ending in '/'."""
    if prefix in ("", "/"):
        return "/"
    return normalize_path(prefix).rstrip("/") + "/"
