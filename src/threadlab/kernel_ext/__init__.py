"""The IPython extension: `%load_ext threadlab`."""

from __future__ import annotations

from typing import Any

from ._cell_transform import thread_cells_to_await
from ._magics import ThreadlabMagics

__all__ = ["ThreadlabMagics", "load_ipython_extension", "unload_ipython_extension"]


def load_ipython_extension(ipython: Any) -> None:
    if thread_cells_to_await not in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.append(thread_cells_to_await)
    ipython.register_magics(ThreadlabMagics)


def unload_ipython_extension(ipython: Any) -> None:
    if thread_cells_to_await in ipython.input_transformers_cleanup:
        ipython.input_transformers_cleanup.remove(thread_cells_to_await)
    magics = ipython.magics_manager.registry.get("ThreadlabMagics")
    if magics is not None:
        magics.session.close()
