"""What an MCP client receives of a served call's answer: its text, and each file attached to
it as content of its own kind — images and audio as `image` / `audio`, any other file as an
embedded resource named by its `threadlab://` URI (text where it is text, else a blob).

A file leaves with the thread's secrets redacted, as everything else of a thread does: in its
bytes too, whatever its type (a binary file that held a secret is changed rather than the
secret sent out, base64 or not).

A file that would make the answer too large for one server-sent event (`_large_files`) goes as
a `resource_link` to its resource instead of its bytes."""

from __future__ import annotations

import base64
import mimetypes
from typing import Any

from ..runtime import Thread
from ._large_files import room, wire_size
from ._uris import file_uri

__all__ = ["mime_type", "resource_contents", "served_content"]

# IANA's names first: the platform's table says audio/x-wav and the like on some systems.
_MIME_TYPES = {
    ".wav": "audio/wav",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".flac": "audio/flac",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".md": "text/markdown",
    ".txt": "text/plain",
    ".csv": "text/csv",
    ".html": "text/html",
    ".py": "text/x-python",
}
_TEXT_APPLICATIONS = ("json", "xml", "javascript", "yaml", "toml", "x-sh", "sql")


def mime_type(path: str, data: bytes | None = None) -> str:
    """The media type a file's name says; for a name that says none, text/plain when `data`
    reads as text, else application/octet-stream."""
    dot = path.rfind(".")
    known = _MIME_TYPES.get(path[dot:].lower()) if dot >= 0 else None
    known = known or mimetypes.guess_type(path)[0]
    if known is not None:
        return known
    return "text/plain" if data is not None and _reads_as_text(data) else "application/octet-stream"


def _reads_as_text(data: bytes) -> bool:
    if b"\0" in data:
        return False
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def redacted(thread: Thread, data: bytes) -> bytes:
    """`data` with the thread's secrets replaced, byte for byte elsewhere (undecodable bytes
    pass through as they are)."""
    text = data.decode("utf-8", "surrogateescape")
    safe = thread.redact(text)
    return data if safe == text else safe.encode("utf-8", "surrogateescape")


def _is_text(mime: str) -> bool:
    kind, _, sub = mime.partition("/")
    return kind == "text" or (kind == "application" and any(t in sub for t in _TEXT_APPLICATIONS))


async def served_content(thread: Thread, text: str, attachments: tuple[str, ...]) -> list[Any]:
    """The content blocks of an answer: its text (when there is some), then its files."""
    from mcp import types

    blocks: list[Any] = []
    if text or not attachments:
        blocks.append(types.TextContent(type="text", text=text))
    left = room() - sum(wire_size(block) for block in blocks)
    for path in attachments:
        record = thread.files.stat_sync(path)
        block = None
        if record is not None and record.size <= left:  # else too large however it is spelt
            block = _file_block(thread, path, redacted(thread, await thread.files.read(path)))
        size = wire_size(block) if block is not None else 0
        if block is None or size > left:
            block = types.ResourceLink(
                type="resource_link", uri=file_uri(thread.id, path), name=path,
                mime_type=mime_type(path), size=record.size if record is not None else None,
                description="too large to send within the answer: read it as a resource",
            )  # fmt: skip
            size = wire_size(block)
        blocks.append(block)
        left -= size
    return blocks


def _file_block(thread: Thread, path: str, data: bytes) -> Any:
    """A file as a content block of its own kind."""
    from mcp import types

    mime = mime_type(path, data)
    encoded = base64.b64encode(data).decode()
    if mime.startswith("image/") and mime != "image/svg+xml":
        return types.ImageContent(type="image", data=encoded, mime_type=mime)
    if mime.startswith("audio/"):
        return types.AudioContent(type="audio", data=encoded, mime_type=mime)
    contents = _file_contents(thread.id, path, data)
    return types.EmbeddedResource(type="resource", resource=contents)


def resource_contents(thread: Thread, path: str, data: bytes) -> list[Any]:
    """A file of `thread` as resource contents (its secrets redacted)."""
    return [_file_contents(thread.id, path, redacted(thread, data))]


def _file_contents(thread_id: str, path: str, data: bytes) -> Any:
    """A file's (redacted) bytes as resource contents: text where its type is text and it
    decodes, else a base64 blob."""
    from mcp import types

    uri, mime = file_uri(thread_id, path), mime_type(path, data)
    if _is_text(mime):
        try:
            text = data.decode()
        except UnicodeDecodeError:
            pass
        else:
            return types.TextResourceContents(uri=uri, mime_type=mime, text=text)
    blob = base64.b64encode(data).decode()
    return types.BlobResourceContents(uri=uri, mime_type=mime, blob=blob)
