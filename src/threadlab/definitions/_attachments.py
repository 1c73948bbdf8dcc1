"""`tl.Attachment`: a part of a served prompt beyond its text — an image or audio clip (its
bytes and media type), or an embedded resource (a URI with its text, or with its bytes and
media type). An MCP client gets each as a message of the prompt (`prompts/get`); a thread
that runs the prompt reads its text only (a system prompt is text)."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .._errors import DefinitionError

__all__ = ["Attachment"]

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S")


class Attachment(BaseModel):
    """An image, audio clip or embedded resource a served MCP prompt carries
    (`define_prompt(messages=[...])`).

    Without `uri`, `data` is an image or audio clip and `mime_type` says which ("image/png",
    "audio/wav"). With `uri`, it is an embedded resource: `text`, or `data` (sent base64 as a
    blob); `mime_type` defaults to text/plain for text and application/octet-stream for
    bytes. `uri` and `text` may hold `{{env:NAME}}`, filled from the prompt's arguments when a
    client gets it (a secret shows as `[secret:NAME]`).

    Examples:
        >>> import threadlab as tl
        >>> tl.Attachment(data=b"\\x89PNG...", mime_type="image/png").kind
        'image'
        >>> note = tl.Attachment(uri="notes://{{env:topic}}", text="Read me first.")
        >>> note.kind, note.mime_type
        ('resource', 'text/plain')
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    mime_type: str
    """The media type of `data` or `text`."""
    data: bytes | None = None
    """The bytes of an image, an audio clip or a binary resource."""
    text: str | None = None
    """An embedded resource's text."""
    uri: str | None = None
    """The URI of an embedded resource (None: an image or audio clip)."""

    def __init__(
        self,
        *,
        data: bytes | None = None,
        text: str | None = None,
        uri: str | None = None,
        mime_type: str | None = None,
    ) -> None:
        super().__init__(**_checked(data, text, uri, mime_type))

    @property
    def kind(self) -> Literal["image", "audio", "resource"]:
        """What an MCP client gets it as: "image" or "audio" content, or a "resource"."""
        if self.uri is not None:
            return "resource"
        return "image" if self.mime_type.startswith("image/") else "audio"


def _checked(data: object, text: object, uri: object, mime_type: object) -> dict[str, Any]:
    if data is not None and not isinstance(data, bytes):
        raise DefinitionError(f"attachment: data must be bytes, got {type(data).__name__}")
    for label, value in (("text", text), ("uri", uri), ("mime_type", mime_type)):
        if value is not None and not isinstance(value, str):
            raise DefinitionError(f"attachment: {label} must be a str, got {type(value).__name__}")
    if mime_type is not None and "/" not in str(mime_type):
        raise DefinitionError(
            f"attachment: mime_type {mime_type!r} is not a media type such as 'image/png'"
        )
    if uri is None:
        return _media(data, text, mime_type)
    uri = str(uri)
    if "{{" not in uri and not _SCHEME.match(uri):  # a placeholder is filled when served
        raise DefinitionError(
            f"attachment: uri {uri!r} is not a URI: it needs a scheme, as in 'notes://today'"
        )
    if (data is None) == (text is None):
        given = "both" if data is not None else "neither"
        raise DefinitionError(
            f"attachment {uri!r}: an embedded resource has text= or data= (bytes), one of"
            f" them; {given} given"
        )
    default = "text/plain" if text is not None else "application/octet-stream"
    return {"data": data, "text": text, "uri": uri, "mime_type": mime_type or default}


def _media(data: object, text: object, mime_type: object) -> dict[str, Any]:
    """An image or audio clip: its bytes and a media type that says which."""
    if text is not None:
        raise DefinitionError(
            "attachment: text= is an embedded resource's: give its uri= too (an image or"
            " audio clip is data= with its mime_type=)"
        )
    kind = str(mime_type).split("/", 1)[0] if mime_type is not None else None
    if data is None or kind not in ("image", "audio"):
        raise DefinitionError(
            "attachment: without uri= it is an image or audio clip: give data= (bytes) and"
            f" mime_type= 'image/...' or 'audio/...' (got mime_type={mime_type!r}); give"
            " uri= to embed a resource"
        )
    return {"data": data, "mime_type": mime_type}
