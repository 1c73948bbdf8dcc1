"""The extension's settings, as traitlets: `c.ThreadlabServer.store = ...` in a Jupyter
configuration file, or `--ThreadlabServer.store=...` on the command line."""

from __future__ import annotations

import os

from traitlets import Unicode
from traitlets.config import Configurable

__all__ = ["ThreadlabServer"]


class ThreadlabServer(Configurable):
    """The Threads panel's server side."""

    store = Unicode(
        "",
        help=(
            "The store the Threads panel lists: a directory (SQLite) or a postgresql:// URL."
            " Empty: .threadlab in the server's root directory. A relative path is relative to"
            " the root directory."
        ),
    ).tag(config=True)

    def store_spec(self, root_dir: str) -> str:
        """The store to open: a URL as given, a path made absolute against `root_dir`."""
        spec = str(self.store).strip()
        if not spec:
            return os.path.join(root_dir, ".threadlab")
        if "://" in spec:
            return spec
        return os.path.join(root_dir, os.path.expanduser(spec))
