"""A thread's file as a view previews it: an image as a data URL, text (its first
`PREVIEW_BYTES`) with the thread's secrets redacted, or what it is when it is neither."""

from __future__ import annotations

import base64
import mimetypes

from .. import PathError, Thread
from ._messages import PreviewMessage

__all__ = ["PREVIEW_BYTES", "preview_of"]

PREVIEW_BYTES = 256 * 1024
"""The most of a file a preview shows."""


def preview_of(thread: Thread, path: str, digest: str | None = None) -> PreviewMessage:
    """The preview of `thread`'s file `path` (its error, where it cannot be read); with
    `digest`, of the content it held then (a file as of an earlier point)."""
    reply: PreviewMessage = {"op": "preview", "thread": thread.id, "path": path}
    if digest is not None:
        reply["digest"] = digest
    try:
        if digest is None:
            data = thread.files.read_sync(path)
        else:
            data = thread.files.read_version_sync(path, digest)
    except (PathError, LookupError) as exc:
        reply["error"] = str(exc)
        return reply
    mime = mimetypes.guess_type(path)[0] or ""
    reply["size"] = len(data)
    if mime.startswith("image/") and len(data) <= PREVIEW_BYTES:
        reply["image"] = f"data:{mime};base64,{base64.b64encode(data).decode()}"
        return reply
    try:
        text = data[:PREVIEW_BYTES].decode()
    except UnicodeDecodeError:
        text = f"({len(data)} bytes of binary data)"
    # A tool may have written a secret's value into a file: a preview shows its name.
    reply["text"] = thread.redact(text)
    reply["truncated"] = len(data) > PREVIEW_BYTES
    return reply
