"""The notebook's face of a sign-in: a "Sign in to NAME" link shown in the output of the cell
that is running, replaced by what came of it."""

from __future__ import annotations

import html
from collections.abc import Callable
from typing import Any

__all__ = ["SignInLink", "kernel_display"]


def kernel_display() -> bool:
    """Whether this code runs in a Jupyter kernel, whose outputs a person sees."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class SignInLink:
    """The link to one sign-in, shown until `finish` replaces it."""

    def __init__(self, server: str, url: str, *, again: bool = False) -> None:
        from IPython import display as ipython_display

        display: Callable[..., Any] = ipython_display.display
        self._server = server
        why = " (its earlier sign-in has expired)" if again else ""
        shown = html.escape(url, quote=True)
        self._handle: Any = display(
            {
                "text/html": (
                    f"<p>MCP server <b>{html.escape(server)}</b> asks you to sign in{why}: "
                    f'<a href="{shown}" target="_blank" rel="noopener noreferrer">'
                    f"Sign in to {html.escape(server)}</a></p>"
                ),
                "text/plain": f"Sign in to {server}{why}: {url}",
            },
            raw=True,
            display_id=True,
        )

    def finish(self, outcome: str) -> None:
        """Replace the link by `outcome` (a link used once cannot be used again)."""
        if self._handle is not None:
            self._handle.update(
                {"text/html": f"<p>{html.escape(outcome)}</p>", "text/plain": outcome}, raw=True
            )
