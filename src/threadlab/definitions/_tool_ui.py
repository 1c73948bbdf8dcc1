"""A tool's own interactive UI (an MCP App, the `io.modelcontextprotocol/ui` extension): an HTML
page a host draws in a sandboxed frame and talks to over JSON-RPC on postMessage, given the
call's arguments and result. A tool defined here carries its page (`@tl.tool(ui=...)`); a tool
of an MCP server names a `ui://` resource that is read from the server when it is called."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .._data import APP_EVENT
from .._errors import DefinitionError

__all__ = ["APP_EVENT", "APP_MIME", "MAX_APP_CHARS", "AppVisibility", "ToolUI", "parse_csp",
           "tool_ui"]  # fmt: skip

APP_MIME = "text/html;profile=mcp-app"
"""The media type of an MCP App's page."""

MAX_APP_CHARS = 4 << 20
"""The largest page an app may have (characters): it is kept with each call that shows it."""

AppVisibility = Literal["model", "app"]

_CSP_KEYS = ("connectDomains", "resourceDomains", "frameDomains", "baseUriDomains")


@dataclass(frozen=True)
class ToolUI:
    """A tool's UI: its `ui://` address, its page (None: read from the tool's MCP server when
    it is called), the origins its page may reach (the resource's `_meta.ui.csp`: keys
    `connectDomains`, `resourceDomains`, `frameDomains`, `baseUriDomains`; none by default) and
    who may call the tool (`visibility`: "model" and/or "app"; an app-only tool is not offered
    to a model)."""

    uri: str
    html: str | None = None
    csp: tuple[tuple[str, tuple[str, ...]], ...] = ()
    visibility: tuple[AppVisibility, ...] = ("model", "app")

    def __repr__(self) -> str:  # a notebook shows a tool's definition: not its whole page
        page = "read from its server" if self.html is None else f"{len(self.html):,} chars"
        return f"ToolUI({self.uri!r}, page: {page})"

    @property
    def offered_to_model(self) -> bool:
        return "model" in self.visibility

    def csp_json(self) -> dict[str, list[str]]:
        """The origins as the protocol spells them."""
        return {key: list(domains) for key, domains in self.csp}

    def shown(self, html: str) -> dict[str, Any]:
        """What a call of the tool keeps so that its card can draw the app: the page, its
        address and the origins it may reach."""
        return {"uri": self.uri, "html": html, "csp": self.csp_json()}


def parse_csp(what: str, value: Any) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The `csp` of a resource's `_meta.ui` as `ToolUI.csp` (unknown keys are left out; a
    value that is not a list of strings is an error)."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise DefinitionError(f"{what}: the UI's csp must be an object of origin lists")
    out = []
    for key in _CSP_KEYS:
        domains = value.get(key)
        if domains is None:
            continue
        if not isinstance(domains, list) or not all(isinstance(d, str) for d in domains):
            raise DefinitionError(f"{what}: the UI's csp {key} must be a list of origins")
        out.append((key, tuple(domains)))
    return tuple(out)


def tool_ui(name: str, ui: Any) -> ToolUI | None:
    """`ui` as given to `@tl.tool(ui=...)`: a page's HTML (a str), an HTML file (a Path, read
    now) or a `ToolUI`; served at ui://threadlab/<name>."""
    what = f"tool {name!r}"
    if ui is None or isinstance(ui, ToolUI):
        return ui
    if isinstance(ui, Path):
        try:
            ui = ui.read_text(encoding="utf-8")
        except OSError as exc:
            raise DefinitionError(f"{what}: cannot read its UI page {str(ui)!r}: {exc}") from None
    if not isinstance(ui, str):
        raise DefinitionError(
            f"{what}: ui must be an HTML page (a str), an HTML file (a pathlib.Path) or a"
            f" ToolUI, got {type(ui).__name__}"
        )
    if not ui.strip():
        raise DefinitionError(f"{what}: its UI page is empty")
    if len(ui) > MAX_APP_CHARS:
        raise DefinitionError(
            f"{what}: its UI page has {len(ui):,} characters, over the {MAX_APP_CHARS:,} an"
            " app may have (it is kept with each call that shows it)"
        )
    return ToolUI(uri=f"ui://threadlab/{name}", html=ui)
