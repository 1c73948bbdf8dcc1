"""Checks a definition cell can make at once: names it refers to that are not defined (yet).
Definitions may come in any order, so these are warnings with a "did you mean"; the error at
run time names the cell to fix."""

from __future__ import annotations

import difflib
import sys
from collections.abc import Iterable

from .. import MCPServerDefinition, Registry

__all__ = ["warn_unknown"]


def warn_unknown(owner: str, what: str, names: Iterable[str], registry: Registry) -> None:
    """Print a warning for each of `names` the registry does not define. "mcp:NAME" names a
    defined MCP server's tools; a server's tools are listed when a run first needs them, so a
    name one of its tools may have is not warned about."""
    known = [t.name for t in registry.tools()] + [p.name for p in registry.prompts()]
    known += [a.name for a in registry.agents()]
    servers = registry.mcp_servers()
    for name in names:
        server = MCPServerDefinition.named_by(name)
        if server is not None:
            if registry.mcp_server(server) is None:
                _warn(owner, "MCP server", server, [s.name for s in servers])
            continue
        if registry.get(name) is not None or _maybe_listed(name, servers):
            continue
        _warn(owner, what, name, known)


def _maybe_listed(name: str, servers: list[MCPServerDefinition]) -> bool:
    """Whether a defined server may list a tool of that name (all its tools, or it names it)."""
    return any(s.tools is None or name in {s.local_name(t) for t in s.tools} for s in servers)


def _warn(owner: str, what: str, name: str, known: list[str]) -> None:
    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    print(
        f"warning: {owner} refers to {what} {name!r}, which is not defined yet{hint}",
        file=sys.stderr,
    )
