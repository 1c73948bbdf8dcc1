"""Redaction: secret values replaced wherever free text leaves a tool — message content, tool
arguments and results, errors, tracebacks, custom event data, streamed deltas — in their raw,
JSON-escaped and repr spellings, and line by line for a secret of several lines (a traceback
or an indented message splits it).

Names, ids and event types that a model or a tool chooses are free text too, but providers
and the views match them exactly: one holding a secret is replaced by a placeholder derived
from it (`identifier`), the same everywhere, so a call and its result still pair up."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
from typing import Any

from .._data import Message
from .._errors import SecretValueError

__all__ = ["MIN_SECRET_LENGTH", "Redactor", "StreamRedaction", "redact_message"]

MIN_SECRET_LENGTH = 8
"""Shorter values are refused as secrets: redacting them would scrub ordinary words."""


class Redactor:
    """Knows the secret values of one thread tree and scrubs them from text and JSON values."""

    def __init__(self, salt: bytes | None = None) -> None:
        # What an id's placeholder is keyed with (`identifier`): a thread tree's is derived
        # from the key its secrets are kept with, so every process that holds the key names
        # an id alike; without one, a random salt of this redactor's own.
        self._salt = salt if salt is not None else os.urandom(32)
        self._secrets: dict[str, str] = {}  # a spelling of a value -> its variable's name
        self._ordered: list[str] = []  # spellings, longest first
        self._starts: set[str] = set()  # every proper prefix of a spelling
        self.longest = 0

    def add(self, name: str, value: str | None) -> None:
        """Redact `value` as `[secret:name]` from now on (`SecretValueError` if too short)."""
        if not value:
            return
        if len(value) < MIN_SECRET_LENGTH:
            raise SecretValueError(
                f"the value of secret {name!r} is {len(value)} characters long; secrets must"
                f" have at least {MIN_SECRET_LENGTH} (a shorter one would scrub ordinary text"
                " wherever it appears)"
            )
        lines = [line.strip() for line in value.splitlines()]
        parts = [value, *(line for line in lines if len(line) >= MIN_SECRET_LENGTH)]
        for part in parts if len(lines) > 1 else [value]:
            for spelling in (
                part,
                json.dumps(part)[1:-1],
                json.dumps(part, ensure_ascii=False)[1:-1],
                repr(part)[1:-1],
            ):
                self._secrets[spelling] = name
        self._ordered = sorted(self._secrets, key=len, reverse=True)
        self._starts = {s[:k] for s in self._ordered for k in range(1, len(s))}
        self.longest = len(self._ordered[0])

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def text(self, text: str) -> str:
        if not self._secrets:
            return text
        # Longest first, so a secret that contains another is replaced whole.
        for spelling in self._ordered:
            if spelling in text:
                text = text.replace(spelling, f"[secret:{self._secrets[spelling]}]")
        return text

    def unsettled(self, text: str) -> int:
        """How many of the last characters of `text` could begin a secret that a later chunk
        completes: the longest end of `text` that is the start of a secret (usually 0).

        Examples:
            >>> r = Redactor(); r.add("KEY", "sk-abcdefgh")
            >>> r.unsettled("the key is sk-ab"), r.unsettled("no key here")
            (5, 0)
        """
        for size in range(min(len(text), self.longest - 1), 0, -1):
            if text[-size:] in self._starts:
                return size
        return 0

    def identifier(self, text: str) -> str:
        """`text` as it is, or a placeholder for it if it holds a secret: for ids and names,
        which must keep their shape (providers allow only `[A-Za-z0-9_-]` in them)."""
        if not self._secrets or self.text(text) == text:
            return text
        # Keyed: a plain hash of the id would let whoever reads a trace or a notebook test
        # guesses of the secret in it, offline.
        digest = hmac.new(self._salt, text.encode(), hashlib.sha256).hexdigest()
        return "redacted-" + digest[:16]

    def raw(self, text: str) -> str:
        """Text a model sent as JSON that did not parse (malformed arguments): its escapes may
        spell a secret (`\\u0073k-...`), so it is read with them decoded; if that holds a
        secret, the decoded text is kept, redacted, instead of the raw."""
        if not self._secrets:
            return text
        decoded = _decode_escapes(text)
        redacted = self.text(decoded)
        return self.text(text) if redacted == decoded else redacted

    def value(self, value: Any) -> Any:
        """Scrub strings anywhere inside a JSON-like value (keys included)."""
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value


_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt])')
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def _decode_escapes(text: str) -> str:
    """JSON string escapes decoded wherever they stand (the text as a whole may not parse)."""
    decoded = _ESCAPE.sub(
        lambda m: chr(int(m[1][1:], 16)) if m[1][0] == "u" else _SIMPLE[m[1]], text
    )
    # Escaped surrogate pairs decode to two halves: join them into the character they spell.
    return decoded.encode("utf-16", "surrogatepass").decode("utf-16", "replace")


class StreamRedaction:
    """Redacts a stream of text chunks whose concatenation may split a secret: what `feed`
    returns is safe to show, and only the last characters that could still begin a secret
    are held back until the next chunk (or `flush`) settles them."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._pending = ""

    def feed(self, chunk: str) -> str:
        if not self._redactor:
            return chunk
        text = self._redactor.text(self._pending + chunk)
        # Only an end that could still grow into a secret waits for the next chunk; the rest
        # is settled (a secret that is complete was replaced above).
        cut = len(text) - self._redactor.unsettled(text)
        out, self._pending = text[:cut], text[cut:]
        return out

    def flush(self) -> str:
        out, self._pending = self._redactor.text(self._pending), ""
        return out


def redact_message(redactor: Redactor, message: Message) -> Message:
    """The message as stored: secrets replaced in its free text and in the names and ids
    chosen for it (see `Redactor.identifier`)."""
    if not redactor:
        return message
    update: dict[str, Any] = {}
    if message.content:
        update["content"] = redactor.text(message.content)
    if message.tool_calls:
        update["tool_calls"] = tuple(
            c.model_copy(
                update={
                    "id": redactor.identifier(c.id),
                    "name": redactor.identifier(c.name),
                    "arguments": redactor.raw(c.arguments)
                    if isinstance(c.arguments, str)
                    else redactor.value(c.arguments),
                }
            )
            for c in message.tool_calls
        )
    if message.reasoning:
        # A secret in signed thinking breaks its signature: the next request is refused,
        # which is the price of never storing it.
        update["reasoning"] = tuple(
            r.model_copy(update={"text": redactor.text(r.text)}) for r in message.reasoning
        )
    if message.request is not None and (
        message.request.tools
        or message.request.parameters
        or any(e.message for e in message.request.add)
    ):
        # What the step was sent, where the store does not already hold it redacted.
        request = message.request
        update["request"] = request.model_copy(
            update={
                "add": tuple(
                    e.model_copy(update={"message": redact_message(redactor, e.message)})
                    if e.message is not None
                    else e
                    for e in request.add
                ),
                "tools": tuple(redactor.value(t) for t in request.tools)
                if request.tools is not None
                else None,
                "parameters": redactor.value(request.parameters),
            }
        )
    for name in ("tool_call_id", "name", "parent_tool_call_id"):
        chosen = getattr(message, name)
        if chosen is not None:
            update[name] = redactor.identifier(chosen)
    return message.model_copy(update=update)
