"""Redaction: secret values replaced wherever text leaves a tool (results, errors, events,
persisted messages)."""

from __future__ import annotations

from typing import Any

__all__ = ["Redactor"]


class Redactor:
    """Knows the secret values of one thread tree and scrubs them from text and JSON values."""

    def __init__(self) -> None:
        self._secrets: dict[str, str] = {}  # value -> variable name

    def add(self, name: str, value: str | None) -> None:
        if value:
            self._secrets[value] = name

    def __bool__(self) -> bool:
        return bool(self._secrets)

    def text(self, text: str) -> str:
        if not self._secrets:
            return text
        # Longest first, so a secret that contains another is replaced whole.
        for value in sorted(self._secrets, key=len, reverse=True):
            if value in text:
                text = text.replace(value, f"[secret:{self._secrets[value]}]")
        return text

    def value(self, value: Any) -> Any:
        """Scrub strings anywhere inside a JSON-like value."""
        if not self._secrets:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(k)): self.value(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(v) for v in value]
        return value
