"""The UIs of an MCP server's tools (MCP Apps): a listed tool that names a `ui://` page in its
`_meta` gets a `ToolUI`; when it is called, its page is read from the server (once per
session) and kept with the call, so the call's card draws the app now and when the notebook
is reopened. A page that cannot be read is said in the card; the call runs all the same."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from .._errors import DefinitionError, MCPServerError
from ..definitions import APP_MIME, MAX_APP_CHARS, AppVisibility, ToolUI, parse_csp
from ._connection import MCPConnection

__all__ = ["AppPages", "listed_ui"]

_VISIBILITIES: tuple[AppVisibility, ...] = ("model", "app")


def listed_ui(tool: Any) -> ToolUI | None:
    """The UI a listed tool declares (`_meta.ui.resourceUri`, or the flat `ui/resourceUri` of
    the protocol's first servers), or None."""
    meta = getattr(tool, "meta", None) or {}
    if not isinstance(meta, dict):
        return None
    declared = meta.get("ui")
    ui: dict[str, Any] = declared if isinstance(declared, dict) else {}
    uri = ui.get("resourceUri") or meta.get("ui/resourceUri")
    if not isinstance(uri, str) or not uri.startswith("ui://"):
        return None
    visibility = ui.get("visibility")
    if not isinstance(visibility, list) or not visibility:
        return ToolUI(uri=uri)
    # Unknown words are left out; none left is the default, as a host that reads fewer would.
    known = tuple(v for v in _VISIBILITIES if v in visibility)
    return ToolUI(uri=uri, visibility=known or _VISIBILITIES)


class AppPages:
    """The pages read for one runtime's MCP tools, by server and address."""

    def __init__(self) -> None:
        self._pages: dict[tuple[str, str], dict[str, Any]] = {}

    def forget(self, server: str) -> None:
        """A server's session ended: its pages are read again on next use."""
        for key in [k for k in self._pages if k[0] == server]:
            del self._pages[key]

    async def shown(self, connection: MCPConnection, server: str, ui: ToolUI) -> dict[str, Any]:
        """What a call of a tool with `ui` keeps for its card (`ToolUI.shown`); when the page
        cannot be read, its address and why."""
        key = (server, ui.uri)
        if key not in self._pages:
            try:
                self._pages[key] = _page(server, ui, await connection.read_resource(ui.uri))
            except (MCPServerError, DefinitionError) as exc:
                return {"uri": ui.uri, "error": str(exc)}
        return self._pages[key]


def _page(server: str, ui: ToolUI, contents: list[Any]) -> dict[str, Any]:
    what = f"MCP server {server!r}'s app {ui.uri}"
    html: str | None = None
    found: Any = None
    for content in contents:
        media = (getattr(content, "mime_type", None) or "").replace(" ", "").lower()
        if media.startswith((APP_MIME, "text/html")):
            found = content
            break
    if found is None:
        raise MCPServerError(f"{what} is not an HTML page (no {APP_MIME} content)")
    if isinstance(getattr(found, "text", None), str):
        html = found.text
    else:
        try:
            html = base64.b64decode(getattr(found, "blob", "") or "", validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            raise MCPServerError(f"{what} is not text") from None
    if len(html) > MAX_APP_CHARS:
        raise MCPServerError(
            f"{what} has {len(html):,} characters, over the {MAX_APP_CHARS:,} an app may have"
        )
    meta = getattr(found, "meta", None) or {}
    declared = meta.get("ui", {}) if isinstance(meta, dict) else {}
    csp = parse_csp(what, declared.get("csp") if isinstance(declared, dict) else None)
    return ToolUI(uri=ui.uri, html=html, csp=csp).shown(html)
