"""The URIs a served thread's files go by: `threadlab://threads/{thread_id}/files/{path}`
(the path without its leading slash, each segment percent-encoded)."""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

__all__ = ["FILE_TEMPLATE", "file_uri", "parse_file_uri"]

FILE_TEMPLATE = "threadlab://threads/{thread_id}/files/{path}"
_FILE = re.compile(r"threadlab://threads/([^/]+)/files/(.+)")


def file_uri(thread_id: str, path: str) -> str:
    return FILE_TEMPLATE.format(thread_id=quote(thread_id, safe=""),
                                path=quote(path.lstrip("/"), safe="/"))  # fmt: skip


def parse_file_uri(uri: str) -> tuple[str, str] | None:
    """(thread id, absolute path) of a file URI; None for any other URI."""
    match = _FILE.fullmatch(uri)
    if match is None:
        return None
    return unquote(match.group(1)), "/" + unquote(match.group(2))
