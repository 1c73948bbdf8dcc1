"""JupyterLab's Threads panel, its server side: a Jupyter Server extension that lists the
threads of a store, a page at a time, filtered and searched, a thread's steps, and what its
player is drawn from, behind Jupyter's own authentication.

Enabled by the configuration threadlab installs (`jupyter_server_config.d/threadlab.json`);
the store is the `ThreadlabServer.store` setting (default `.threadlab` in the server's root).
"""

from __future__ import annotations

from typing import Any

from ._extension import load_jupyter_server_extension
from ._settings import ThreadlabServer

__all__ = ["ThreadlabServer", "load_jupyter_server_extension"]


def _jupyter_server_extension_points() -> list[dict[str, Any]]:
    """What Jupyter Server loads: this module's `_load_jupyter_server_extension`."""
    return [{"module": "threadlab.lab_server"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    load_jupyter_server_extension(serverapp)
