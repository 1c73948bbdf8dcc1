"""Values as the front end gets them: JSON text, written by pydantic's encoder (in Rust)."""

from __future__ import annotations

import json
from typing import Any

from pydantic_core import PydanticSerializationError, from_json, to_json

__all__ = ["as_json_text", "json_copy"]


def as_json_text(value: Any, *, indent: int | None = None) -> str:
    """`value` as JSON text, compact or indented; non-ASCII characters kept as they are.

    A large synced value (a view state, a history's points) goes to the front end as one such
    text: ipywidgets walks every list and dict of a state it sends, looking for binary parts,
    and on a long history that walk was a third of the kernel's time to open a player (the
    front end parses the text once: `js/synced.js`). Python's own encoder writes indented
    JSON in pure Python: a long thread's arguments took a tenth of a second.

    Examples:
        >>> as_json_text({"path": "/é.html", "lines": [1, 2]})
        '{"path":"/é.html","lines":[1,2]}'
        >>> print(as_json_text({"n": [1]}, indent=2))
        {
          "n": [
            1
          ]
        }
    """
    try:
        return to_json(value, indent=indent).decode()
    except PydanticSerializationError:
        # Text with a lone surrogate (a model's bad escape) cannot be UTF-8: Python's encoder
        # writes it as it is, and the transport escapes it as it does any other.
        separators = None if indent else (",", ":")
        return json.dumps(value, ensure_ascii=False, indent=indent, separators=separators)


def json_copy(text: str) -> Any:
    """The value `text` (of `as_json_text`) holds, new: a deep copy of a large value, in a
    third of the time Python's own parser takes.

    Examples:
        >>> json_copy('{"a":[1,"é"]}')
        {'a': [1, 'é']}
        >>> json_copy(as_json_text({"a": "\\ud800"}))  # a lone surrogate: Python's parser
        {'a': '\\ud800'}
    """
    try:
        return from_json(text)
    except (TypeError, ValueError):  # text that cannot be UTF-8 (see `as_json_text`)
        return json.loads(text)
