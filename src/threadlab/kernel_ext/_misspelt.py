"""A misspelt threadlab magic (`%%toool`, `%threadlb`) gets the magic it was close to named,
instead of IPython's bare "not found"."""

from __future__ import annotations

import difflib
from typing import Any

__all__ = ["CELL_MAGICS", "LINE_MAGICS", "misspelt_magics", "suggestion"]

CELL_MAGICS = ("tool", "prompt", "agent", "mcp", "eval", "thread")
LINE_MAGICS = ("threadlab",)


def suggestion(name: str, kind: str) -> str | None:
    """The threadlab magic `name` is close to (None when it is close to none)."""
    known = CELL_MAGICS if kind == "cell" else LINE_MAGICS
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.7)
    return close[0] if close else None


def misspelt_magics(lines: list[str]) -> list[str]:
    """An IPython cleanup transformer: a cell that starts with a magic IPython does not know,
    close to a threadlab one, becomes a call that says which one was meant."""
    if not lines or not lines[0].startswith("%"):
        return lines
    first = lines[0]
    kind = "cell" if first.startswith("%%") else "line"
    name = first.lstrip("%").split(maxsplit=1)[0] if first.strip("%").strip() else ""
    if not name.isidentifier() or suggestion(name, kind) is None:
        return lines
    shell = _shell()
    if shell is None or _known(shell, name, kind):
        return lines
    return [
        f"get_ipython().magics_manager.registry['ThreadlabMagics'].misspelt({name!r}, {kind!r})\n"
    ]


def _shell() -> Any:
    from IPython import get_ipython  # the shell the cell runs in, when there is one

    return get_ipython()


def _known(shell: Any, name: str, kind: str) -> bool:
    find = shell.find_cell_magic if kind == "cell" else shell.find_line_magic
    return find(name) is not None
