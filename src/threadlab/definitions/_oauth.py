"""How threadlab signs in to an MCP server that asks for OAuth 2.1: the `tl.OAuth` options of
`define_mcp_server(oauth=...)`, checked when the server is defined."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, SecretStr

from .._errors import DefinitionError

__all__ = ["LOOPBACK_HOSTS", "OAuth", "SignIn", "oauth_option"]

SignInAnswer = str | tuple[str, str]
SignIn = Callable[[str], SignInAnswer | Awaitable[SignInAnswer]]
"""Given the authorization URL, the redirect that ended the sign-in: the full redirect URL, or
its `(code, state)`; sync or async."""

LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost", "[::1]"})


class OAuth(BaseModel):
    """How to sign in to an MCP server that answers 401 and names an OAuth 2.1 authorization
    server (`tl.define_mcp_server(..., oauth=tl.OAuth(...))`; a plain callable there is
    `tl.OAuth(sign_in=that)`).

    threadlab finds the authorization server from the MCP server's metadata, registers itself
    (dynamic client registration) unless `client_id` is given, signs in with PKCE, sends the
    `resource` parameter, refreshes the access token when it expires, and asks for more scopes
    when the server answers 403 `insufficient_scope`.

    Examples:
        >>> import threadlab as tl
        >>> def sign_in(authorization_url: str) -> str:
        ...     print("Open", authorization_url)
        ...     return input("Paste the URL you were sent to: ")
        >>> options = tl.OAuth(sign_in=sign_in, client_id="my-app", client_secret="s3cret!!")
        >>> options.client_id, options.client_secret  # the secret shows as stars
        ('my-app', SecretStr('**********'))
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    sign_in: SignIn | None = None
    """Called with the authorization URL when a sign-in is needed; returns the redirect URL the
    authorization server sent the person to (or its `(code, state)`). Sync or async. None: in a
    notebook, a "Sign in to NAME" link is shown and the redirect comes back to a listener on
    127.0.0.1; elsewhere a sign-in without it is an error that says to pass it."""
    client_name: str = "threadlab"
    """The name the client registers under (shown by the authorization server's consent page)."""
    client_id: str | None = None
    """A client registered beforehand with the authorization server: no dynamic registration."""
    client_secret: SecretStr | None = None
    """That client's secret (sent with HTTP Basic authentication); None for a public client."""
    client_metadata_url: str | None = None
    """An https URL of a client ID metadata document: the client ID where the authorization
    server accepts URL-based client IDs, dynamic registration elsewhere."""
    redirect_uri: str | None = None
    """Where the authorization server sends the person back. None: a free port of 127.0.0.1
    for the notebook's listener, or http://127.0.0.1/callback for a `sign_in` callable (which
    reads the redirect wherever it ends). A notebook sign-in takes only an http 127.0.0.1 or
    localhost address with a port: it listens there."""

    def __init__(
        self,
        *,
        sign_in: SignIn | None = None,
        client_name: str = "threadlab",
        client_id: str | None = None,
        client_secret: str | SecretStr | None = None,
        client_metadata_url: str | None = None,
        redirect_uri: str | None = None,
    ) -> None:
        super().__init__(
            sign_in=sign_in, client_name=client_name, client_id=client_id,
            client_secret=client_secret, client_metadata_url=client_metadata_url,
            redirect_uri=redirect_uri,
        )  # fmt: skip

    def __repr_args__(self) -> Any:
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if value != field.get_default(call_default_factory=True):
                yield name, value


def oauth_option(what: str, value: OAuth | SignIn | None) -> OAuth | None:
    """`define_mcp_server`'s `oauth=` as an `OAuth` (DefinitionError naming `what` when it is
    neither that, a callable nor None, or its options do not hold together)."""
    if value is None:
        return None
    if not isinstance(value, OAuth):
        if not callable(value):
            raise DefinitionError(
                f"{what}: oauth= takes tl.OAuth(...) or a callable given the authorization URL"
                f" that returns the redirect URL, not {type(value).__name__}"
            )
        value = OAuth(sign_in=value)
    if value.client_secret is not None and value.client_id is None:
        raise DefinitionError(f"{what}: oauth client_secret= needs the client_id= it belongs to")
    if value.client_metadata_url is not None:
        parts = urlsplit(value.client_metadata_url)
        if parts.scheme != "https" or parts.path in ("", "/"):
            raise DefinitionError(
                f"{what}: oauth client_metadata_url= must be an https URL with a path, got"
                f" {value.client_metadata_url!r}"
            )
    if value.redirect_uri is not None:
        _check_redirect(what, value.redirect_uri, listening=value.sign_in is None)
    return value


def _check_redirect(what: str, uri: str, *, listening: bool) -> None:
    parts = urlsplit(uri)
    if not re.match(r"^[a-z][a-z0-9+.-]*$", parts.scheme) or not parts.netloc:
        raise DefinitionError(f"{what}: oauth redirect_uri= is not an absolute URL: {uri!r}")
    loopback = parts.scheme == "http" and _host(parts.netloc) in LOOPBACK_HOSTS
    if listening and not (loopback and parts.port is not None):
        raise DefinitionError(
            f"{what}: the notebook sign-in listens on 127.0.0.1 itself, so its redirect_uri="
            f" must be http://127.0.0.1:PORT/... (or localhost), got {uri!r}; give sign_in= to"
            " read a redirect that ends elsewhere"
        )


def _host(netloc: str) -> str:
    host = netloc.rsplit("@", 1)[-1]
    return host.rsplit(":", 1)[0] if not host.endswith("]") else host
