"""An MCP endpoint the kernel serves, as a view: its address and tools in the notebook, and
its bearer token and client configuration only on screen, while the kernel that serves it
is there. The token is never part of the view's synced state, its saved output or its text:
the kernel sends it to a view that says it is on screen, over the widget's comm."""

from __future__ import annotations

import json
from typing import Any

import traitlets

from .. import Runtime
from ..mcp import MCPService
from ._messages import Ready, ViewMessage
from ._views import _View

__all__ = ["ServedView"]


class ServedView(_View):
    """`%threadlab mcp serve`'s output: where the endpoint is and what it serves; its token
    shown live only."""

    url = traitlets.Unicode("").tag(sync=True)
    tools: traitlets.List[str] = traitlets.List().tag(sync=True)
    guarded = traitlets.Bool(True).tag(sync=True)
    """Whether clients need a token (False: served with --no-token)."""

    def __init__(self, rt: Runtime, service: MCPService, **kwargs: Any) -> None:
        super().__init__(rt, view="served", **kwargs)
        self._service = service
        self.url = service.url
        self.tools = [name for name, _, _ in service.offered()]
        self.guarded = service.token is not None

    def _handle(self, message: ViewMessage) -> None:
        # A view on screen asks once it is drawn: the token goes to it and nowhere else.
        if isinstance(message, Ready) and self._service.token:
            config = json.dumps(self._service.client_config(), indent=2)
            self.tell({"op": "secret", "token": self._service.token, "config": config})

    def saved_state(self) -> dict[str, Any]:
        return {**super().saved_state(), "url": self.url, "tools": self.tools,
                "guarded": self.guarded}  # fmt: skip

    def __repr__(self) -> str:
        tools = ", ".join(self.tools) or "no tools yet"
        token = (
            "bearer token: shown in the live view only (service.token in the serving kernel)"
            if self.guarded
            else "no token"
        )
        return f"MCP endpoint {self.url}: serving {tools}; {token}"
