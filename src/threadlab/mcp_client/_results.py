"""An MCP `CallToolResult` as a threadlab `ToolResult`: text as text, structured content as
JSON, images, audio and embedded files as attachments in the thread's files.

What the model reads of it is bounded (`MAX_RESULT_CHARS`): a server can answer with tens of
megabytes, which no model reads and the store should not keep. Structured content over the
limit is left out (the text beside it is read instead, saying so); text over it is cut."""

from __future__ import annotations

import base64
import json
import mimetypes
import re
from typing import Any

from .._data import ToolResult
from ..threads import ThreadState

__all__ = ["MAX_RESULT_CHARS", "tool_result"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")

MAX_RESULT_CHARS = 1 << 20
"""The most characters of an MCP tool's result the model reads and the thread stores (of its
text, or of the JSON of its structured content): about 250,000 tokens, past what a model's
context holds."""


async def tool_result(state: ThreadState, server: str, call_id: str, returned: Any) -> ToolResult:
    """What the model reads of `returned`; binary parts are written to
    /mcp/<server>/<call id>-<n>.<ext> and attached."""
    texts: list[str] = []
    attachments: list[str] = []
    attached: dict[str, str] = {}  # the base64 of each binary part -> its file
    for n, part in enumerate(returned.content or ()):
        kind = getattr(part, "type", None)
        if kind == "text":
            texts.append(part.text)
        elif kind in ("image", "audio"):
            path = _path(server, call_id, n, part.mime_type)
            await state.write_file(path, base64.b64decode(part.data))
            attachments.append(path)
            attached[part.data] = path
            texts.append(f"[{kind} {part.mime_type}: {path}]")
        elif kind == "resource":
            texts.append(await _embedded(state, server, call_id, n, part.resource, attachments))
            blob = getattr(part.resource, "blob", None)
            if blob is not None:
                attached[blob] = attachments[-1]
        elif kind == "resource_link":
            texts.append(f"[resource link: {part.uri} ({part.name})]")
        else:
            texts.append(f"[{kind} content]")
    text = "\n".join(texts)
    if returned.is_error:
        return ToolResult("error", error=_cut(text) or "the MCP tool reported an error",
                          attachments=tuple(attachments))  # fmt: skip
    structured = getattr(returned, "structured_content", None)
    if structured is not None:
        # What is attached already reaches the model as a file, not again as base64 text.
        result = _without(structured, attached)
        size = len(json.dumps(result))  # as the thread stores it
        if size <= MAX_RESULT_CHARS:
            return ToolResult("success", result=result, attachments=tuple(attachments))
        left_out = (
            f"[the structured content ({size:,} characters of JSON) is left out: over the limit"
            f" of {MAX_RESULT_CHARS:,} characters of a result]"
        )
        text = f"{text}\n{left_out}" if text else left_out
    return ToolResult("success", result=_cut(text), attachments=tuple(attachments))


def _cut(text: str) -> str:
    """`text`, cut to the limit with a note when it is longer."""
    if len(text) <= MAX_RESULT_CHARS:
        return text
    note = f"\n[cut: the result's text is {len(text):,} characters; the first are kept]"
    return text[: MAX_RESULT_CHARS - len(note)] + note


async def _embedded(
    state: ThreadState, server: str, call_id: str, n: int, resource: Any, attachments: list[str]
) -> str:
    text = getattr(resource, "text", None)
    if text is not None:
        return str(text)
    path = _path(server, call_id, n, getattr(resource, "mime_type", None))
    await state.write_file(path, base64.b64decode(resource.blob))
    attachments.append(path)
    return f"[resource {resource.uri}: {path}]"


def _without(value: Any, attached: dict[str, str]) -> Any:
    """`value` with every string that is an attached part's base64 replaced by its path."""
    if isinstance(value, str):
        path = attached.get(value)
        return f"[attached: {path}]" if path is not None else value
    if isinstance(value, dict):
        return {key: _without(item, attached) for key, item in value.items()}
    if isinstance(value, list):
        return [_without(item, attached) for item in value]
    return value


def _path(server: str, call_id: str, n: int, mime_type: str | None) -> str:
    extension = (mimetypes.guess_extension(mime_type or "") or ".bin").lstrip(".")
    return f"/mcp/{_UNSAFE.sub('_', server)}/{_UNSAFE.sub('_', call_id)}-{n}.{extension}"
