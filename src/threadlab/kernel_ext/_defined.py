"""What a definition cell shows: what now exists, and for a tool what the model will see —
its name, description and an argument table from its JSON Schema (the progress argument
marked) — as HTML with `text/plain` beside it."""

from __future__ import annotations

import html
from typing import Any

from .. import ToolDefinition

__all__ = ["Defined", "tool_summary"]


class Defined:
    """The display of a definition cell."""

    def __init__(self, text: str, html_body: str | None = None) -> None:
        self.text = text
        self._html = html_body

    def __repr__(self) -> str:
        return self.text

    def _repr_mimebundle_(self, **_: Any) -> dict[str, str]:
        bundle = {"text/plain": self.text}
        if self._html is not None:
            bundle["text/html"] = self._html
        return bundle


def tool_summary(tool: ToolDefinition) -> Defined:
    """A tool as the model sees it."""
    schema = tool.args.for_model(tool.progress_argument)
    properties: dict[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", []))
    rows = []
    lines = [f"tool {tool.name}: {tool.description}"]
    for name, prop in properties.items():
        kind = _type_of(prop)
        flags = ["required" if name in required else "optional"]
        if name == tool.progress_argument:
            flags.append("progress")
        about = str(prop.get("description", ""))
        lines.append(f"  {name} ({kind}, {', '.join(flags)}) {about}".rstrip())
        cells = (
            f"<code>{html.escape(name)}</code>",
            html.escape(kind),
            html.escape(", ".join(flags)),
            html.escape(about),
        )
        rows.append("<tr>" + "".join(f"<td {_LEFT}>{c}</td>" for c in cells) + "</tr>")
    if not properties:
        lines.append("  (no arguments)")
    heads = "".join(f"<th {_LEFT}>{h}</th>" for h in ("argument", "type", "", "description"))
    table = (
        f"<table><tr>{heads}</tr>" + "".join(rows) + "</table>"
        if rows
        else "<p><i>no arguments</i></p>"
    )
    body = (
        f'<div class="threadlab-defined"><b>tool <code>{html.escape(tool.name)}</code></b>'
        f" — {html.escape(tool.description)}{table}</div>"
    )
    return Defined("\n".join(lines), body)


# JupyterLab right-aligns table cells in rendered HTML; a schema reads better left-aligned.
_LEFT = 'style="text-align:left"'


def _type_of(prop: dict[str, Any]) -> str:
    kind = prop.get("type")
    if isinstance(kind, list):
        return " | ".join(str(k) for k in kind)
    if kind is not None:
        return str(kind)
    for key in ("anyOf", "oneOf"):
        if isinstance(prop.get(key), list):
            return " | ".join(_type_of(option) for option in prop[key] if isinstance(option, dict))
    return "any"
