"""The registry's own resources (`tl.define_resource`) as MCP resources: the fixed ones listed,
the templates listed as resource templates, and both read by URI — a fixed URI before any
template that also matches it, templates in the order they were defined.

A read calls the definition's `read(params)` (sync ones in the endpoint's own few worker
threads, so a slow read holds up neither the endpoint nor the process's other work), within
`READ_TIMEOUT_S`: text is served as text, bytes as a base64 blob. A read that raises, times
out, or returns something else, is an MCP error naming the resource and what went wrong (URLs
in it without their credentials, as in any error threadlab shows, and cut to
`ERROR_CHARS`); a result too large for one server-sent event is refused as a thread's file is
(`_large_files`)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import inspect
import os
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .._errors import SecretValueError
from .._urls import scrub
from ..definitions import Registry, ResourceDefinition, is_async_callable
from ..threads import Redactor
from ._content import mime_type
from ._large_files import fits, too_large
from ._watchers import Watchers

__all__ = ["ERROR_CHARS", "READ_TIMEOUT_S", "DefinedResources"]

_INTERNAL_ERROR = -32603
READ_TIMEOUT_S = 30.0
"""How long a resource's `read` may take before its client is told it timed out."""
ERROR_CHARS = 2000
"""The longest a read's error is, as its client is told it."""
# Sync reads run here, not in the event loop's default pool: reads that hang (a client may
# ask for as many as it likes) then hold only these threads, never the lookups and other
# work of the rest of the process.
_READERS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="threadlab-resource-read")


class DefinedResources:
    """The resources `registry` defines, as an endpoint serves them."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self.watchers = Watchers()
        """Who watches which of them: told when `MCPService.resource_updated` says one
        changed (what `read` returns changes unseen otherwise)."""

    def listing(self) -> list[Any]:
        """The fixed resources."""
        from mcp import types

        return [types.Resource(
            uri=d.uri, name=d.name, description=d.description or None,
            mime_type=d.mime_type or _named_type(d.uri),
        ) for d in self._registry.resources() if not d.is_template]  # fmt: skip

    def templates(self) -> list[Any]:
        from mcp import types

        return [types.ResourceTemplate(
            uri_template=d.uri, name=d.name, description=d.description or None,
            mime_type=d.mime_type or _named_type(d.uri),
        ) for d in self._registry.resources() if d.is_template]  # fmt: skip

    def defines_template(self, template: str) -> bool:
        found = self._registry.resource(template)
        return found is not None and found.is_template

    def find(self, uri: str) -> tuple[ResourceDefinition, dict[str, str]] | None:
        """The definition that answers for `uri` and the values of its parameters."""
        fixed = self._registry.resource(uri)
        if fixed is not None and not fixed.is_template:
            return fixed, {}
        for definition in self._registry.resources():
            values = definition.match(uri) if definition.is_template else None
            if values is not None:
                return definition, values
        return None

    def _secrets(self) -> Redactor:
        """The values of the secret variables the registry declares, as the process
        environment gives them (what a read may hold and must not tell its client)."""
        redactor = Redactor()
        declared = [
            *(v for d in self._registry.tools() for v in d.variables),
            *(v for d in self._registry.prompts() for v in d.variables),
            *(v for d in self._registry.agents() for v in d.variables),
        ]
        for variable in declared:
            if variable.type == "secret":
                with contextlib.suppress(SecretValueError):  # too short to redact
                    redactor.add(variable.name, os.environ.get(variable.name))
        return redactor

    async def read(self, uri: str, as_event: bool = False) -> list[Any] | None:
        """The contents of `uri`, or None when no definition answers for it; `as_event`: the
        answer travels as one server-sent event, so a result too large for one is refused."""
        from mcp import types

        found = self.find(uri)
        if found is None:
            return None
        definition, values = found
        value = await _called(definition, uri, values, self._secrets())
        media = definition.mime_type or _named_type(uri) or (
            "text/plain" if isinstance(value, str) else "application/octet-stream"
        )  # fmt: skip
        contents: list[Any] = [
            types.TextResourceContents(uri=uri, mime_type=media, text=value)
            if isinstance(value, str)
            else types.BlobResourceContents(
                uri=uri, mime_type=media, blob=base64.b64encode(value).decode()
            )
        ]
        if as_event and not fits(types.ReadResourceResult(contents=contents)):
            size = len(value.encode() if isinstance(value, str) else value)
            raise too_large("Resource", uri, size)
        return contents


async def _called(
    definition: ResourceDefinition, uri: str, values: dict[str, str], secrets: Redactor
) -> str | bytes:
    """What `read` returns for `values`; an MCP error saying what went wrong otherwise."""
    from mcp.shared.exceptions import MCPError

    try:
        async with asyncio.timeout(READ_TIMEOUT_S):
            value = await _read(definition, values)
    except TimeoutError:
        message = f"resource {uri}: read did not answer within {READ_TIMEOUT_S:g} s"
        raise MCPError(_INTERNAL_ERROR, message, {"uri": uri}) from None
    except Exception as exc:
        said = secrets.text(scrub(f"resource {uri}: read failed: {type(exc).__name__}: {exc}"))
        if len(said) > ERROR_CHARS:
            said = said[:ERROR_CHARS] + f"… ({len(said):,} characters, cut)"
        raise MCPError(_INTERNAL_ERROR, said, {"uri": uri}) from None
    if isinstance(value, bytearray | memoryview):
        value = bytes(value)
    if not isinstance(value, str | bytes):
        raise MCPError(_INTERNAL_ERROR, (
            f"resource {uri}: read returned {type(value).__name__}; it must return str (text)"
            " or bytes"
        ), {"uri": uri})  # fmt: skip
    return value


async def _read(definition: ResourceDefinition, values: dict[str, str]) -> Any:
    if is_async_callable(definition.read):
        return await definition.read(dict(values))
    loop = asyncio.get_running_loop()
    value = await loop.run_in_executor(_READERS, definition.read, dict(values))
    if inspect.isawaitable(value):  # a plain function that hands back a coroutine
        value = await value
    return value


def _named_type(uri: str) -> str | None:
    """The media type the extension of the URI's last segment says ("assets://logo.png",
    "docs://guide/intro.md"), if it names a document's kind: text, an image, audio, video,
    JSON, XML or PDF. Not the other types the platform's table knows, which a host's name
    matches more often than a document's (".com" is a DOS program there, ".org" Lotus
    Organizer)."""
    last = uri.rsplit("/", 1)[-1]
    if "." not in last:
        return None
    known = mime_type(last)
    kind, _, sub = known.partition("/")
    wanted = kind in ("text", "image", "audio", "video") or sub in ("json", "xml", "pdf")
    return known if wanted else None
