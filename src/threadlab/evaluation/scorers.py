"""Scorers for `tl.evaluate` that read what a run did: which tools it called with which
arguments, what it answered, how it ended. Each is a plain callable `(tl.EvalContext) ->
bool` named after what it checks, so a report's columns say it.

Examples:
    >>> from threadlab import scorers
    >>> scorers.called("search", query="tea").__name__
    "called(search, query='tea')"
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._context import EvalContext

__all__ = ["called", "contains", "equals", "not_called", "status"]

Scorer = Callable[[EvalContext], bool]


def _named(name: str, check: Scorer) -> Scorer:
    check.__name__ = check.__qualname__ = name
    return check


def called(tool: str, **arguments: Any) -> Scorer:
    """True when some call of `tool` had (at least) these argument values."""

    def check(ctx: EvalContext) -> bool:
        for call in ctx.tool_calls():
            given = call.arguments if isinstance(call.arguments, dict) else {}
            if call.name == tool and all(given.get(k) == v for k, v in arguments.items()):
                return True
        return False

    shown = "".join(f", {k}={v!r}" for k, v in arguments.items())
    return _named(f"called({tool}{shown})", check)


def not_called(tool: str) -> Scorer:
    """True when no call of `tool` was made."""
    return _named(f"not_called({tool})",
                  lambda ctx: all(c.name != tool for c in ctx.tool_calls()))  # fmt: skip


def contains(text: str) -> Scorer:
    """True when the run's final text contains `text` (case-sensitive)."""
    return _named(f"contains({text!r})", lambda ctx: text in ctx.output)


def equals(text: str) -> Scorer:
    """True when the run's final text is `text`, surrounding whitespace aside."""
    return _named(f"equals({text!r})", lambda ctx: ctx.output.strip() == text.strip())


def status(expected: str) -> Scorer:
    """True when the run ended with status `expected` ("completed", "failed", ...)."""
    return _named(f"status({expected})", lambda ctx: ctx.run.status == expected)
