"""Redaction: secret values replaced wherever free text leaves a tool — message content, tool
arguments and results, errors, custom event data, streamed deltas — in their raw, JSON-escaped
and repr spellings. Structure (ids, types, statuses, names) is never rewritten."""

from __future__ import annotations

import json
from typing import Any

from .._errors import SecretValueError

__all__ = ["MIN_SECRET_LENGTH", "Redactor", "StreamRedaction"]

MIN_SECRET_LENGTH = 8
"""Shorter values are refused as secrets: redacting them would scrub ordinary words."""


class Redactor:
    """Knows the secret values of one thread tree and scrubs them from text and JSON values."""

    def __init__(self) -> None:
        self._secrets: dict[str, str] = {}  # a spelling of a value -> its variable's name
        self._ordered: list[str] = []  # spellings, longest first
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
        spellings = (
            value,
            json.dumps(value)[1:-1],
            json.dumps(value, ensure_ascii=False)[1:-1],
            repr(value)[1:-1],
        )
        for spelling in spellings:
            self._secrets[spelling] = name
        self._ordered = sorted(self._secrets, key=len, reverse=True)
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


class StreamRedaction:
    """Redacts a stream of text chunks whose concatenation may split a secret: what `feed`
    returns is safe to show, and the last characters that could still begin a secret are held
    back until the next chunk (or `flush`) settles them."""

    def __init__(self, redactor: Redactor) -> None:
        self._redactor = redactor
        self._pending = ""

    def feed(self, chunk: str) -> str:
        if not self._redactor:
            return chunk
        text = self._redactor.text(self._pending + chunk)
        # A secret not yet complete starts within the last (longest - 1) characters: anything
        # before that is settled.
        cut = max(0, len(text) - (self._redactor.longest - 1))
        out, self._pending = text[:cut], text[cut:]
        return out

    def flush(self) -> str:
        out, self._pending = self._redactor.text(self._pending), ""
        return out
