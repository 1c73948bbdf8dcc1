"""The IPython extension: `%load_ext threadlab`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .._frame_names import SOURCE_NAMERS
from ._cell_transform import thread_cells_to_await
from ._magics import ThreadlabMagics
from ._misspelt import misspelt_magics

__all__ = ["ThreadlabMagics", "load_ipython_extension", "unload_ipython_extension"]


_namers: dict[int, Callable[[str], str | None]] = {}


def _cell_namer(ipython: Any) -> Callable[[str], str | None]:
    """Names a cell's code as IPython's tracebacks do ("Cell In[5]")."""

    def name(filename: str) -> str | None:
        named = ipython.compile.format_code_name(filename)
        return f"{named[0]} {named[1]}" if named else None

    return name


def load_ipython_extension(ipython: Any) -> None:
    for transform in (misspelt_magics, thread_cells_to_await):
        if transform not in ipython.input_transformers_cleanup:
            ipython.input_transformers_cleanup.append(transform)
    ipython.register_magics(ThreadlabMagics)
    _namers.setdefault(id(ipython), _cell_namer(ipython))
    if _namers[id(ipython)] not in SOURCE_NAMERS:
        SOURCE_NAMERS.append(_namers[id(ipython)])


def unload_ipython_extension(ipython: Any) -> None:
    namer = _namers.pop(id(ipython), None)
    if namer in SOURCE_NAMERS:
        SOURCE_NAMERS.remove(namer)
    for transform in (misspelt_magics, thread_cells_to_await):
        if transform in ipython.input_transformers_cleanup:
            ipython.input_transformers_cleanup.remove(transform)
    magics = ipython.magics_manager.registry.get("ThreadlabMagics")
    if magics is not None:
        magics.memory.close()
