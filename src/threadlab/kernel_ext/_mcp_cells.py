"""`%threadlab mcp serve | stop | status`: the registry's tools served over MCP from the
kernel's loop."""

from __future__ import annotations

import shlex
from typing import Any

from IPython.core.error import UsageError
from IPython.display import display

from .. import (
    ThreadlabError,
    default_registry,
    mcp,
)
from ..widgets import ServedView
from ._arguments import split_names
from ._magics_host import MagicsHost

__all__ = ["run_mcp_cell"]


async def run_mcp_cell(magics: MagicsHost, line: str) -> None:
    """`%threadlab mcp serve [--port N] [--host H] [--tools A,B] [--no-token]`, `mcp
    stop` or `mcp status`, as a cell of its own (the endpoint runs on the kernel loop)."""
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"%threadlab mcp: {exc}") from None
    usage = (
        "usage: %threadlab mcp serve [--port N] [--host H] [--tools A,B] [--no-token]"
        " | mcp stop | mcp status"
    )
    if words[:1] == ["stop"] and len(words) == 1:
        if magics.mcp_service is None:
            raise UsageError("%threadlab mcp stop: nothing is served")
        await magics.mcp_service.close()
        print(f"stopped serving at {magics.mcp_service.url}")
        magics.mcp_service = None
        return
    if words[:1] == ["status"] and len(words) == 1:
        served = magics.mcp_service
        if served is None:
            print("nothing is served (%threadlab mcp serve starts it)")
        else:
            print(f"serving {', '.join(n for n, _, _ in served.offered())} at {served.url}")
        return
    if words[:1] != ["serve"]:
        raise UsageError(usage)
    options = _serve_options(words[1:], usage)
    if magics.mcp_service is not None:
        await magics.mcp_service.close()
    try:
        service = await mcp.serve(default_registry(), runtime=magics.memory.runtime, **options)
    except (ThreadlabError, ValueError, OSError) as exc:
        raise UsageError(f"%threadlab mcp serve: {exc}") from None
    magics.mcp_service = service
    # Its token (and the client configuration that holds it) only on screen: never in the
    # cell's output, which the notebook keeps.
    display(ServedView(magics.memory.runtime, service))


def _serve_options(words: list[str], usage: str) -> dict[str, Any]:
    """`tl.mcp.serve`'s keywords from `%threadlab mcp serve`'s options."""
    options: dict[str, Any] = {}
    flags = iter(words)
    for flag in flags:
        if flag == "--no-token":
            options["token"] = None
            continue
        value = next(flags, None)
        if value is None or flag not in ("--port", "--host", "--tools"):
            raise UsageError(usage)
        if flag == "--port":
            if not value.isdigit():
                raise UsageError(f"%threadlab mcp serve: --port takes a number\n{usage}")
            options["port"] = int(value)
        elif flag == "--host":
            options["host"] = value
        else:
            options["tools"] = split_names(value)
    return options
