"""What the routes answer, as JSON values: a listed thread, a step (`tl.StepRecord`), and the
opaque cursor of the next page."""

from __future__ import annotations

import base64
import binascii
import dataclasses
import json
import math
from typing import Any

import threadlab as tl

__all__ = ["BadCursor", "decode_cursor", "encode_cursor", "step_json", "thread_json"]


class BadCursor(ValueError):
    """A cursor this server did not make."""


def thread_json(overview: tl.ThreadOverview) -> dict[str, Any]:
    """One thread of a page."""
    return {
        "id": overview.id,
        "target": overview.agent,
        "status": overview.status,
        "origin": overview.origin_kind,
        "made_in": overview.origin,
        "created_at": overview.created_at,
        "updated_at": overview.updated_at,
        "usage": overview.usage or {},
        "cost_usd": overview.cost_usd,
        "duration_s": overview.duration_s,
        "forked_from": overview.forked_from,
    }


def step_json(step: tl.StepRecord) -> dict[str, Any]:
    """A step as `thread.steps()` reads it: its fields (a model step's request is left out:
    read on demand, it would read every request of the thread), and its duration."""
    value: dict[str, Any] = {}
    for field in dataclasses.fields(step):
        if field.name.startswith("_"):
            continue
        item = getattr(step, field.name)
        is_record = dataclasses.is_dataclass(item) and not isinstance(item, type)
        value[field.name] = dataclasses.asdict(item) if is_record else item
    value["duration_s"] = step.duration_s
    return value


def encode_cursor(place: tuple[float, int]) -> str:
    """The next page's place, as a string a client hands back unread."""
    return base64.urlsafe_b64encode(json.dumps(list(place)).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[float, int]:
    """The place `encode_cursor` wrote; `BadCursor` for anything else."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        created_at, order = json.loads(raw)
        # What this server writes: a finite time and a row number a database holds.
        if isinstance(created_at, bool) or not isinstance(created_at, int | float):
            raise TypeError("not a time")
        if isinstance(order, bool) or not isinstance(order, int) or not 0 <= order < 2**63:
            raise TypeError("not a row")
        if not math.isfinite(float(created_at)):
            raise ValueError("not a finite time")
        return float(created_at), order
    except (binascii.Error, ValueError, TypeError, OverflowError) as exc:
        raise BadCursor(f"the cursor {cursor[:40]!r} is not one this server gave") from exc
