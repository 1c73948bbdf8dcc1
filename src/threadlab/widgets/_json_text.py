"""Large values as the front end gets them: one compact JSON text."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["as_json_text"]


def as_json_text(value: Any) -> str:
    """A large synced value (a trace, a history's points) as it goes to the front end: one
    JSON text. ipywidgets walks every list and dict of a state it sends, looking for binary
    parts: on a long history that walk was a third of the kernel's time to open a player. The
    front end parses the text once (`js/synced.js`)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
