"""Incremental scanner that finds one top-level argument's value in streaming JSON.

The model streams a tool call's arguments as raw JSON text, a chunk at a time. To report
progress the moment the progress argument is complete (its closing quote), we follow the JSON
structure chunk by chunk, remembering only a small state: nesting depth, whether we are inside
a string, and the text of the key or value we are capturing. Each character is looked at once
(long string bodies are skipped with one regex search), so the total work is linear in the
argument length — unlike re-parsing the growing buffer on every chunk, which is quadratic.
"""

from __future__ import annotations

import json
import re

__all__ = ["ArgumentScanner"]

_STRING_STOP = re.compile(r'["\\]')
_STRUCTURAL = re.compile(r'["{}\[\],:]')


class ArgumentScanner:
    """Watch streaming argument JSON for the value of the top-level property `target`.

    `feed(chunk)` returns True exactly once: in the chunk where the value is complete. The
    value is then in `value` (a str; None when the model sent null or a non-string).
    """

    __slots__ = (
        "_capture",
        "_depth",
        "_escape",
        "_expect_value",
        "_in_string",
        "_key",
        "_last_key",
        "_nonstring_target",
        "_string_is_key",
        "_target",
        "_target_value",
        "done",
        "value",
    )

    def __init__(self, target: str) -> None:
        self._target = target
        self._depth = 0
        self._in_string = False
        self._escape = False
        self._string_is_key = False
        self._capture: list[str] | None = None  # raw text of the key or target value
        self._key: str | None = None
        self._last_key: str | None = None
        self._expect_value = False
        self._target_value = False  # the string now being read is the target's value
        self._nonstring_target = False
        self.done = False
        self.value: str | None = None

    def feed(self, chunk: str) -> bool:
        """Consume a chunk; True if the target's value completed within it."""
        if self.done:
            return False
        i, n = 0, len(chunk)
        while i < n:
            if self._in_string:
                i = self._scan_string(chunk, i)
                if self.done:
                    return True
                continue
            match = _STRUCTURAL.search(chunk, i)
            if match is None:
                if self._expect_value and chunk[i:n].strip():
                    self._start_nonstring_value()
                return False
            start = match.start()
            if self._expect_value and chunk[i:start].strip():
                self._start_nonstring_value()
            char = chunk[start]
            i = start + 1
            if self._structural(char):
                return True
        return False

    def _scan_string(self, chunk: str, i: int) -> int:
        if self._escape:
            # The character after a backslash is part of the escape, whatever it is.
            if self._capture is not None:
                self._capture.append(chunk[i])
            self._escape = False
            return i + 1
        match = _STRING_STOP.search(chunk, i)
        end = len(chunk) if match is None else match.start()
        if self._capture is not None and end > i:
            self._capture.append(chunk[i:end])
        if match is None:
            return end
        if chunk[end] == "\\":
            if self._capture is not None:
                self._capture.append("\\")
            self._escape = True
            return end + 1
        self._close_string()
        return end + 1

    def _close_string(self) -> None:
        self._in_string = False
        raw = "".join(self._capture) if self._capture is not None else ""
        self._capture = None
        if self._string_is_key:
            key = _decode(raw)
            self._key = key if isinstance(key, str) else raw
            return
        if self._target_value:
            self._target_value = False
            decoded = _decode(raw)
            self._finish(decoded if isinstance(decoded, str) else None)

    def _structural(self, char: str) -> bool:
        if char == '"':
            self._in_string = True
            at_key_position = self._depth == 1 and not self._expect_value
            self._string_is_key = at_key_position
            if at_key_position:
                self._capture = []
            elif self._depth == 1 and self._expect_value and self._last_key == self._target:
                self._target_value = True
                self._capture = []
            self._expect_value = False
            return False
        if char == ":":
            if self._depth == 1:
                self._last_key = self._key
                self._expect_value = True
            return False
        if char in "{[":
            if self._expect_value and self._depth == 1:
                self._start_nonstring_value()
            self._expect_value = False
            self._depth += 1
            return False
        if char in "}]":
            self._depth -= 1
            if self._depth == 0 and self._nonstring_target:
                return self._finish(None)
            return False
        # char == ","
        self._expect_value = False
        if self._depth == 1 and self._nonstring_target:
            return self._finish(None)
        return False

    def _start_nonstring_value(self) -> None:
        self._expect_value = False
        if self._last_key == self._target:
            self._nonstring_target = True

    def _finish(self, value: str | None) -> bool:
        self.done = True
        self.value = value
        return True


def _decode(raw: str) -> object:
    try:
        return json.loads(f'"{raw}"')
    except ValueError:
        return raw
