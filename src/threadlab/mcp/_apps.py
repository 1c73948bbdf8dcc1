"""The served tools' own UIs (MCP Apps, `@tl.tool(ui=...)`): a tool with a UI lists its page's
address in `_meta.ui.resourceUri`, and the page is a resource of media type
`text/html;profile=mcp-app` that a host reads and draws in a sandboxed frame."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..definitions import APP_MIME, Registry, ToolDefinition, ToolUI

__all__ = ["ServedApps", "app_meta"]


def app_meta(ui: ToolUI) -> dict[str, Any]:
    """A tool's `_meta` for its UI; with the flat key the protocol's first hosts read."""
    meta: dict[str, Any] = {"resourceUri": ui.uri}
    if tuple(ui.visibility) != ("model", "app"):
        meta["visibility"] = list(ui.visibility)
    return {"ui": meta, "ui/resourceUri": ui.uri}


class ServedApps:
    """The pages of the tools an endpoint serves."""

    def __init__(self, registry: Registry, served: Callable[[ToolDefinition], bool]) -> None:
        self._registry = registry
        self._served = served  # whether the endpoint serves a tool

    def _apps(self) -> dict[str, ToolUI]:
        return {
            tool.ui.uri: tool.ui
            for tool in self._registry.tools()
            if tool.ui is not None and tool.ui.html is not None and self._served(tool)
        }

    def meta(self, name: str) -> dict[str, Any] | None:
        """The `_meta` of the served tool `name` (None: it has no UI)."""
        tool = self._registry.get(name)
        if not isinstance(tool, ToolDefinition) or tool.ui is None or tool.ui.html is None:
            return None
        return app_meta(tool.ui)

    def listing(self) -> list[Any]:
        from mcp import types

        return [types.Resource(
            uri=uri, name=uri.removeprefix("ui://"), mime_type=APP_MIME,
            description=f"The UI of the tool {uri.rsplit('/', 1)[-1]!r} (an MCP App)",
            _meta=_resource_meta(ui),
        ) for uri, ui in self._apps().items()]  # fmt: skip

    def read(self, uri: str) -> list[Any] | None:
        """The page at `uri`, or None when no served tool's UI is there."""
        from mcp import types

        ui = self._apps().get(uri)
        if ui is None or ui.html is None:
            return None
        return [types.TextResourceContents(
            uri=uri, mime_type=APP_MIME, text=ui.html, _meta=_resource_meta(ui),
        )]  # fmt: skip


def _resource_meta(ui: ToolUI) -> dict[str, Any]:
    # A page reaches no origin unless it declares it: an empty csp says so to the host.
    return {"ui": {"csp": ui.csp_json(), "prefersBorder": True}}
