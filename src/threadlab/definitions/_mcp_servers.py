"""MCP servers as definitions: where a Model Context Protocol server is (a command to start
over stdio, or a streamable-HTTP URL) and which of its tools a registry offers. The tools
themselves are listed from the server when a run first needs them."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from .._errors import DefinitionError
from ._define import check_approval
from ._oauth import OAuth, SignIn, oauth_option
from ._registry import Registry, default_registry
from ._types import MCP_PREFIX, MCPServerDefinition

__all__ = [
    "MCP_PREFIX",
    "MCPServerDefinition",
    "define_mcp_server",
    "fill_headers",
    "header_variables",
]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_HEADER_VARIABLE = re.compile(r"\{\{\s*env\s*:\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def header_variables(definition: MCPServerDefinition) -> list[str]:
    """The variables the server's header values name."""
    found: list[str] = []
    for value in (definition.headers or {}).values():
        found += [m.group(1) for m in _HEADER_VARIABLE.finditer(value)]
    return found


def fill_headers(
    definition: MCPServerDefinition, value_of: Mapping[str, str | None]
) -> dict[str, str]:
    """The headers with each "{{env:NAME}}" replaced by the variable's value (DefinitionError
    naming the variable when it has none)."""

    def fill(match: re.Match[str]) -> str:
        value = value_of.get(match.group(1))
        if value is None:
            raise DefinitionError(
                f"MCP server {definition.name!r}: header variable {match.group(1)!r} has no value"
            )
        return value

    return {k: _HEADER_VARIABLE.sub(fill, v) for k, v in (definition.headers or {}).items()}


def define_mcp_server(
    name: str,
    *,
    command: str | None = None,
    args: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
    url: str | None = None,
    headers: Mapping[str, str] | None = None,
    tools: Iterable[str] | None = None,
    prefix: str | None = None,
    timeout: float = 30.0,
    approval: Any = None,
    sampling_model: Any = None,
    oauth: OAuth | SignIn | None = None,
    registry: Registry | None = None,
) -> MCPServerDefinition:
    """Define an MCP server whose tools prompts can list.

    Examples:
        >>> import threadlab as tl
        >>> reg = tl.Registry()
        >>> server = tl.define_mcp_server("files", command="mcp-files", args=["/tmp"],
        ...                               prefix="fs", registry=reg)
        >>> server.local_name("read"), reg.mcp_server("files") is server
        ('fs_read', True)
    """
    what = f"MCP server {name!r}"
    if not isinstance(name, str) or not _NAME.match(name):
        raise DefinitionError(
            f"{what}: invalid name: use 1-64 letters, digits, '_' or '-', starting with a"
            " letter or '_'"
        )
    if (command is None) == (url is None):
        raise DefinitionError(f"{what}: give exactly one of command= (stdio) or url= (HTTP)")
    if url is not None and not re.match(r"^https?://", url):
        raise DefinitionError(f"{what}: url must start with http:// or https://, got {url!r}")
    if command is not None and not (isinstance(command, str) and command.strip()):
        raise DefinitionError(f"{what}: command must be a program to run, got {command!r}")
    if prefix is not None and not _NAME.match(prefix):
        raise DefinitionError(f"{what}: prefix {prefix!r} is not a valid name start")
    if headers is not None and command is not None:
        raise DefinitionError(f"{what}: headers= is for an HTTP server (url=)")
    check_approval(what, approval)
    signing_in = oauth_option(what, oauth)
    if signing_in is not None and url is None:
        raise DefinitionError(f"{what}: oauth= is for an HTTP server (url=)")
    if signing_in is not None and any(k.lower() == "authorization" for k in headers or {}):
        raise DefinitionError(
            f"{what}: give an Authorization header or oauth=, not both (the sign-in sends its"
            " own token)"
        )
    if not isinstance(timeout, int | float) or timeout <= 0:
        raise DefinitionError(f"{what}: timeout must be a positive number of seconds")
    listed = None if tools is None else tuple(tools)
    if listed is not None and (not listed or not all(isinstance(t, str) for t in listed)):
        raise DefinitionError(f"{what}: tools= must name at least one of the server's tools")
    definition = MCPServerDefinition(
        name=name,
        command=command,
        args=tuple(str(a) for a in args),
        env=dict(env) if env is not None else None,
        url=url,
        headers=dict(headers) if headers is not None else None,
        tools=listed,
        prefix=prefix,
        timeout=float(timeout),
        approval=approval,
        sampling_model=sampling_model,
        oauth=signing_in,
    )
    (registry if registry is not None else default_registry()).add_mcp_server(definition)
    return definition
