"""`%%thread` and `%%eval` cells (and a `%threadlab fork`, `approve`, `reject` or `mcp`
line) become a top-level `await`, so the run streams on the kernel's own event loop while
the cell is busy (and widgets stay interactive) instead of blocking it."""

from __future__ import annotations

__all__ = ["thread_cells_to_await"]

_AWAITED = {"%%thread": "thread_cell", "%%eval": "eval_cell"}
"""Cell magics that run on the kernel loop, and the method each becomes."""


def thread_cells_to_await(lines: list[str]) -> list[str]:
    """An IPython cleanup transformer: rewrite a `%%thread` or `%%eval` cell, or a cell that
    is one `%threadlab fork` line (it runs the branch), into an awaited call."""
    if not lines:
        return lines
    first = lines[0]
    words = first.split()
    alone = not "".join(lines[1:]).strip()
    if words[:2] == ["%threadlab", "fork"] and alone:
        rest = first.strip()[len("%threadlab fork") :].strip()
        return [
            f"await get_ipython().magics_manager.registry['ThreadlabMagics'].fork_cell({rest!r})\n"
        ]
    if words[:1] == ["%threadlab"] and words[1:2] in (["approve"], ["reject"]) and alone:
        rest = first.strip()[len("%threadlab") :].strip()
        return [
            "await get_ipython().magics_manager.registry['ThreadlabMagics']"
            f".decide_cell({rest!r})\n"
        ]
    if words[:2] == ["%threadlab", "mcp"] and alone:
        rest = first.strip()[len("%threadlab mcp") :].strip()
        return [
            f"await get_ipython().magics_manager.registry['ThreadlabMagics'].mcp_cell({rest!r})\n"
        ]
    magic = next((m for m in _AWAITED if first.startswith(m)), None)
    if magic is None:
        return lines
    rest = first[len(magic) :]
    if rest and not rest[0].isspace():
        return lines  # another magic whose name starts with "thread" or "eval"
    if rest.strip().endswith("?"):
        return lines  # `%%thread?` asks for help: leave it to IPython
    line = rest.strip()
    body = "".join(lines[1:])
    call = (
        "await get_ipython().magics_manager.registry['ThreadlabMagics']"
        f".{_AWAITED[magic]}({line!r}, {body!r})\n"
    )
    return [call]
