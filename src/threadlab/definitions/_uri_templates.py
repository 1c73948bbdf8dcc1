"""The URIs a defined resource is read at: a fixed URI, or a URI template of RFC 6570's level 1
("simple string expansion", `notes://{topic}`), which is what MCP's resource templates are
in practice. A parameter stands for one non-empty piece of the URI without "/", "?" or "#"
(simple expansion percent-encodes those in a value, so an expanded URI never holds them
there); a matched value is percent-decoded. The other levels' operators (`{+path}`,
`{/segments*}`, `{?query}`) are refused by name rather than matched wrongly.

Written here rather than taken from the MCP SDK's `uri_template` (which has levels 1 to 3):
definitions are checked where the `mcp` extra may not be installed."""

from __future__ import annotations

import functools
import re
from urllib.parse import unquote

from .._errors import DefinitionError

__all__ = ["match_uri", "template_parameters", "template_shape"]

# RFC 3986's scheme, then at least one character: "notes://x", "urn:isbn:1", "test://static".
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:\S")
# RFC 6570 §2.3's varname: letters, digits and "_", in groups joined by single dots.
_VARNAME = re.compile(r"^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$")
_EXPRESSION = re.compile(r"\{([^{}]*)\}")
_OPERATORS = "+#./;?&=,!@|"
_VALUE = "[^/?#]+"


def template_parameters(what: str, uri: str) -> tuple[str, ...]:
    """The parameters of `uri`, in order (none: a fixed URI); DefinitionError naming the fault
    for a URI without a scheme or a malformed template."""
    # The scheme comes first, so a template cannot begin with a parameter ("{scheme}://x").
    if not isinstance(uri, str) or not _SCHEME.match(uri) or any(c.isspace() for c in uri):
        raise DefinitionError(
            f"{what}: {uri!r} is not a URI: it needs a scheme and no spaces, as in"
            ' "notes://today" or the template "notes://{topic}"'
        )
    names: list[str] = []
    rest = _EXPRESSION.sub("", uri)
    if "{" in rest or "}" in rest:
        raise DefinitionError(
            f"{what}: the template {uri!r} has an unmatched '{{' or '}}': a parameter is"
            " written {name}"
        )
    for expression in _EXPRESSION.finditer(uri):
        names.append(_parameter(what, uri, expression.group(1)))
    if re.search(r"\}\{", uri):
        raise DefinitionError(
            f"{what}: the template {uri!r} has two parameters side by side: put a literal"
            " between them (as in {a}-{b}) so a URI says where one ends"
        )
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise DefinitionError(
            f"{what}: the template {uri!r} names the parameter {twice[0]!r} twice"
        )
    return tuple(names)


def _parameter(what: str, uri: str, expression: str) -> str:
    operator = bool(expression) and expression[0] in _OPERATORS
    if operator or expression.endswith("*") or ":" in expression:
        raise DefinitionError(
            f"{what}: the template {uri!r} uses {{{expression}}}: only simple parameters"
            " (RFC 6570 level 1, {name}) are supported; match the rest in read()"
        )
    if not _VARNAME.match(expression):
        raise DefinitionError(
            f"{what}: the template {uri!r} has the parameter {{{expression}}}: a parameter's"
            " name is letters, digits and '_' (dots between them)"
        )
    return expression


def template_shape(uri: str) -> str:
    """`uri` with its parameters' names set aside: two templates of one shape match the same
    URIs."""
    return _EXPRESSION.sub("{}", uri)


MAX_URI_CHARS = 8192
"""The longest URI a template is matched against: a longer one is no resource's."""


@functools.lru_cache(maxsize=256)
def _pieces(template: str) -> tuple[str, ...]:
    """The template's literal text around its parameters: one more piece than parameters."""
    pieces: list[str] = []
    pos = 0
    for expression in _EXPRESSION.finditer(template):
        pieces.append(template[pos : expression.start()])
        pos = expression.end()
    pieces.append(template[pos:])
    return tuple(pieces)


def match_uri(template: str, parameters: tuple[str, ...], uri: str) -> dict[str, str] | None:
    """The values `uri` gives the template's parameters (percent-decoded), or None when it is
    not one of the template's URIs.

    Matched in one pass, left to right, with no backtracking (a pattern that backtracks takes
    time that grows with the square of a URI's length, or its cube, for a client to choose):
    a value ends at the first occurrence of the literal after it, the last one at the
    template's closing literal. A value is refused (no match) when it is empty, holds "/",
    "?" or "#", or decodes to a path step ("." or ".."), a "/" or "\\", a control character
    or bytes that are not UTF-8: a value reaches `read` as one safe piece of a name.

    Examples:
        >>> match_uri("docs://{name}.{ext}", ("name", "ext"), "docs://a.b.txt")
        {'name': 'a', 'ext': 'b.txt'}
        >>> match_uri("notes://{topic}", ("topic",), "notes://..%2Fetc") is None
        True
    """
    if len(uri) > MAX_URI_CHARS:
        return None
    if not parameters:
        return {} if uri == template else None
    pieces = _pieces(template)
    head, tail = pieces[0], pieces[-1]
    if not uri.startswith(head) or not uri.endswith(tail) or len(uri) < len(head) + len(tail):
        return None
    body = uri[len(head) : len(uri) - len(tail)]
    raw: list[str] = []
    pos = 0
    for literal in pieces[1:-1]:
        end = body.find(literal, pos)
        if end < 0:
            return None
        raw.append(body[pos:end])
        pos = end + len(literal)
    raw.append(body[pos:])
    values = {}
    for name, value in zip(parameters, raw, strict=True):
        decoded = _decoded(value)
        if decoded is None:
            return None
        values[name] = decoded
    return values


def _decoded(value: str) -> str | None:
    if not value or any(c in value for c in "/?#"):
        return None
    try:
        decoded = unquote(value, errors="strict")
    except UnicodeDecodeError:
        return None
    unsafe = decoded in (".", "..") or any(
        c in "/\\" or ord(c) < 0x20 or ord(c) == 0x7F for c in decoded
    )
    return None if unsafe else decoded
