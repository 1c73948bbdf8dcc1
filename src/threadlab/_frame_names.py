"""How a tool's traceback names the files of its frames, for the reader who sees it.

A module of its own, below every layer, so that the IPython extension can register how a
kernel names its cells without importing the runtime at `%load_ext`."""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["SOURCE_NAMERS"]

SOURCE_NAMERS: list[Callable[[str], str | None]] = []
"""Ways to name a traceback frame's file as its reader knows it (a notebook's kernel names
its cells "Cell In[5]"); None: the file's path. Asked in order."""
