"""`define_resource`: a resource of the user's own, served over MCP by `tl.mcp.serve` beside
the served threads' files — a fixed URI, or a URI template whose matched values `read` is
given."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from .._errors import DefinitionError
from ._docstrings import parse_docstring
from ._registry import Registry, default_registry
from ._types import ResourceDefinition
from ._uri_templates import template_parameters

__all__ = ["RESERVED_SCHEME", "define_resource"]

RESERVED_SCHEME = "threadlab:"
"""The scheme of the served threads' files (`threadlab://threads/{thread_id}/files/{path}`)."""


def define_resource(
    uri: str,
    *,
    read: Callable[..., Any],
    name: str | None = None,
    description: str | None = None,
    mime_type: str | None = None,
    registry: Registry | None = None,
) -> ResourceDefinition:
    """Define a resource that `tl.mcp.serve` serves, and register it.

    `uri` is fixed ("notes://today") or a URI template of simple parameters ("notes://{topic}",
    RFC 6570 level 1: each stands for one piece of the URI without "/", "?" or "#").
    `read(params)` gets the matched values (`{}` for a fixed URI), sync or async, and returns
    text (str) or bytes (served base64, as a blob). `name` defaults to the URI, `description`
    to the first paragraph of `read`'s docstring, `mime_type` to what the URI's extension
    says (else text/plain for text, application/octet-stream for bytes).

    Examples:
        >>> import threadlab as tl
        >>> reg = tl.Registry()
        >>> def note(params: dict[str, str]) -> str:
        ...     '''A note on a topic.'''
        ...     return f"Notes on {params['topic']}."
        >>> notes = tl.define_resource("notes://{topic}", read=note, registry=reg)
        >>> notes.parameters, notes.description, reg.resource("notes://{topic}") is notes
        (('topic',), 'A note on a topic.', True)
    """
    what = f"resource {uri!r}"
    parameters = template_parameters(what, uri)
    if uri.lower().startswith(RESERVED_SCHEME):
        raise DefinitionError(
            f"{what}: the {RESERVED_SCHEME} scheme is where the served threads' files are;"
            " pick a scheme of your own (notes://, docs://)"
        )
    _check_read(what, read)
    if name is not None and not (isinstance(name, str) and name.strip()):
        raise DefinitionError(f"{what}: name must be a non-empty string, got {name!r}")
    if description is not None and not isinstance(description, str):
        raise DefinitionError(f"{what}: description must be a string, got {description!r}")
    if mime_type is not None and not (isinstance(mime_type, str) and "/" in mime_type):
        raise DefinitionError(
            f"{what}: mime_type {mime_type!r} is not a media type such as 'text/markdown'"
        )
    documented = inspect.getdoc(read) if inspect.isfunction(read) or inspect.ismethod(read) else ""
    definition = ResourceDefinition(
        uri=uri,
        read=read,
        name=name or uri,
        description=description if description is not None else parse_docstring(documented)[0],
        mime_type=mime_type,
        parameters=parameters,
    )
    (registry if registry is not None else default_registry()).add_resource(definition)
    return definition


def _check_read(what: str, read: object) -> None:
    """`read` is callable with one argument, the parameters' values."""
    if not callable(read):
        raise DefinitionError(
            f"{what}: read must be callable, read(params) -> str | bytes; got {read!r}"
        )
    try:
        inspect.signature(read).bind({})
    except TypeError:
        raise DefinitionError(
            f"{what}: read must take one argument, the template's values (a dict): def"
            " read(params) -> str | bytes"
        ) from None
    except ValueError:  # a callable whose signature Python cannot tell (some builtins)
        pass
