"""A tool call's arguments as a card shows them: pretty JSON, long strings folded, and a short
label that tells two calls of one tool apart at a glance (which subagent, which file)."""

from __future__ import annotations

import json
from typing import Any

from ._json_text import as_json_text

__all__ = [
    "LIVE_ARGUMENT_CHARS",
    "argument_label",
    "folded_arguments",
    "readable_arguments",
]

FOLD_CHARS = 200
"""A string argument longer than this shows its start and how much more there is."""

LIVE_ARGUMENT_CHARS = 2000
"""How much of the argument text a card shows while it streams (the size counts on)."""

# The arguments that name what a call is about, in the order they are tried.
_LABEL_KEYS = ("agent", "name", "reference", "path", "file", "url", "query")


def folded_arguments(arguments: dict[str, Any] | str) -> tuple[str, bool]:
    """Pretty JSON of `arguments` with every long string folded (malformed arguments, kept as
    the model's raw text, are shown as that text, folded too), and whether that leaves out
    part of them (a card then offers the rest).

    Examples:
        >>> text, folded = folded_arguments({"content": "x" * 500})
        >>> text.splitlines()[1][-30:], folded
        ('xxxxxx… (300 more characters)"', True)
        >>> print(folded_arguments({"path": "/a"})[0])
        {
          "path": "/a"
        }
    """
    if isinstance(arguments, str):
        shown = _fold(arguments)
        return shown, shown != arguments
    folded = _folded(arguments)
    return as_json_text(folded, indent=2), folded != arguments


def readable_arguments(text: str) -> str:
    r"""A card's arguments (`folded_arguments`' JSON) to read: `name: value` per line, a
    multi-line string as an indented block with its line breaks, anything else as JSON; text
    that is no JSON object is shown as it is (the live view does the same).

    Examples:
        >>> print(readable_arguments('{"path": "/a.html", "content": "<h1>\\nhi"}'))
        path: /a.html
        content: |
          <h1>
          hi
    """
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if not isinstance(value, dict):
        return text
    lines = []
    for key, item in value.items():
        if isinstance(item, str) and "\n" in item:
            lines.append(f"{key}: |")
            lines += [f"  {line}" for line in item.split("\n")]
        elif isinstance(item, str):
            lines.append(f"{key}: {item}")
        else:
            shown = json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n  ")
            lines.append(f"{key}: {shown}")
    return "\n".join(lines)


def argument_label(arguments: dict[str, Any] | str) -> str:
    """The call's subject in a few words, e.g. 'site_builder · landing' for a
    `subagent_create`; "" when no argument names one.

    Examples:
        >>> argument_label({"agent": "site_builder", "name": "landing", "message": "..."})
        'site_builder · landing'
    """
    if not isinstance(arguments, dict):
        return ""
    found = [arguments[key] for key in _LABEL_KEYS if isinstance(arguments.get(key), str | int)][:2]
    return " · ".join(_fold(str(value), 60) for value in found)


def _folded(value: Any) -> Any:
    if isinstance(value, str):
        return _fold(value)
    if isinstance(value, dict):
        return {key: _folded(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_folded(item) for item in value]
    return value


def _fold(text: str, limit: int = FOLD_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text) - limit} more characters)"
