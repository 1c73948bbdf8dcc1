"""Checks a definition cell can make at once: names it refers to that are not defined (yet).
Definitions may come in any order, so these are warnings with a "did you mean"; the error at
run time names the cell to fix."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterable

from .. import Registry

__all__ = ["warn_unknown"]


def warn_unknown(owner: str, what: str, names: Iterable[str], registry: Registry) -> None:
    """Print a warning for each of `names` the registry does not define."""
    known = [t.name for t in registry.tools()] + [p.name for p in registry.prompts()]
    known += [a.name for a in registry.agents()]
    for name in names:
        if registry.get(name) is not None:
            continue
        close = difflib.get_close_matches(name, known, n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        print(
            f"warning: {owner} refers to {what} {name!r}, which is not defined yet{hint}",
            file=sys.stderr,
        )
