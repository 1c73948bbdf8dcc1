"""Loading the extension into a Jupyter server: its settings read, its routes added."""

from __future__ import annotations

from typing import Any

from jupyter_server.utils import url_path_join

from ._handlers import StepsHandler, ThreadsHandler, ViewHandler
from ._settings import ThreadlabServer
from ._store_access import StoreAccess

__all__ = ["API_PATH", "load_jupyter_server_extension"]

API_PATH = "threadlab/api/threads"


def load_jupyter_server_extension(serverapp: Any) -> None:
    """Add the Threads panel's routes to `serverapp`, on the store its settings name."""
    settings = ThreadlabServer(parent=serverapp)
    access = StoreAccess(settings.store_spec(str(serverapp.root_dir)))
    base = serverapp.web_app.settings["base_url"]
    serverapp.web_app.add_handlers(
        ".*$",
        [
            (url_path_join(base, API_PATH), ThreadsHandler, {"access": access}),
            (url_path_join(base, API_PATH, r"([^/]+)", "steps"), StepsHandler, {"access": access}),
            (url_path_join(base, API_PATH, r"([^/]+)", "view"), ViewHandler, {"access": access}),
        ],
    )
    serverapp.log.info("threadlab: the Threads panel lists the store %s", access.shown)
