"""Signing in to an MCP server that asks for OAuth 2.1, on the `mcp` SDK's own OAuth client
(`OAuthClientProvider`: discovery of the protected resource's and the authorization server's
metadata, dynamic registration, PKCE, the `resource` parameter, refresh, scope step-up).
What threadlab adds: who the person is asked through (`tl.OAuth.sign_in`, or a link in the
notebook answered on a loopback listener), where the tokens are kept, and words that name the
server when it goes wrong.

Tokens are kept in memory, per runtime and server, and never written anywhere: a thread's env
is the only place the store keeps secrets, and it is a thread's (and logs every value it was
ever given), while a sign-in is a person's grant to this process. A new runtime signs in anew.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
import weakref
from collections.abc import AsyncGenerator, Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlsplit

from .._errors import MCPServerError
from .._urls import shown
from ..definitions import OAuth
from ._oauth_link import SignInLink, kernel_display
from ._oauth_listener import LoopbackListener
from ._sign_in_clock import SignInClock

if TYPE_CHECKING:
    import httpx2
    from mcp.client.auth import AuthorizationCodeResult
    from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

__all__ = ["ServerSignIn", "sign_in_for"]

log = logging.getLogger("threadlab.mcp_client")

_PERSON_SECONDS = 600.0  # how long a notebook link waits for its redirect
_STEP_UPS = 3  # sign-ins for more scope in a row, before the server is taken to never grant it
_DEFAULT_REDIRECT = "http://127.0.0.1/callback"
# The loggers of the SDK that quote what went wrong in a sign-in (an authorization server's
# error body may quote a token): each gets the filter that hides the tokens held now.
_SDK_LOGGERS = (
    "mcp.client.auth.oauth2",
    "mcp.client.auth.utils",
    "mcp.client.streamable_http",
    "mcp.client.client",
    "mcp.shared.jsonrpc_dispatcher",
    "client",
    "httpx2",
)


class _MemoryTokens:
    """The SDK's `TokenStorage`, in memory: the tokens (and when the access token expires,
    which the SDK keeps per session only) and the client's registration."""

    def __init__(self, client: OAuthClientInformationFull | None) -> None:
        self.tokens: OAuthToken | None = None
        self.expires_at: float | None = None
        self.client = client
        self.held: set[str] = set()
        """Every token value ever held: no message may show one, even after it was dropped."""

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        from mcp.shared.auth_utils import calculate_token_expiry

        self.tokens = tokens
        self.expires_at = calculate_token_expiry(tokens.expires_in)
        self.held |= {tokens.access_token, tokens.refresh_token or ""}

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class ServerSignIn:
    """One server's sign-in, for one runtime: its tokens and registration (kept across the
    sessions the runtime opens with the server), the listener a notebook link comes back to,
    and what a session's auth needs (`auth()`)."""

    def __init__(self, name: str, url: str, options: OAuth, *, implicit: bool = False) -> None:
        self.name = name
        self.url = url
        self.options = options
        self.implicit = implicit
        """Signing in because a notebook can, not because `oauth=` was given: only a server
        whose 401 challenges for a bearer token is taken to want a sign-in."""
        self.clock = SignInClock()
        self._listener: LoopbackListener | None = None
        if options.sign_in is None:
            port, path = _port_and_path(options.redirect_uri)
            try:
                self._listener = LoopbackListener(name, port, path)
            except OSError as exc:
                raise MCPServerError(
                    f"MCP server {name!r}: cannot listen on 127.0.0.1:{port} for the sign-in's"
                    f" redirect ({exc.strerror or exc}); give oauth redirect_uri= another port"
                ) from None
        self.redirect_uri = (
            self._listener.redirect_uri if self._listener is not None and not options.redirect_uri
            else options.redirect_uri or _DEFAULT_REDIRECT
        )  # fmt: skip
        self._storage = _MemoryTokens(self._pre_registered())
        self._answer: AuthorizationCodeResult | None = None
        self._expired = False
        _LIVE.add(self)
        _hide_tokens_in_sdk_logs()
        self.step_ups = 0
        """Sign-ins in a row made while holding tokens that the server did not accept."""

    def auth(self) -> httpx2.Auth:
        """The auth of one session's HTTP client (the SDK's OAuth client, told what it is for)."""
        from mcp.client.auth import OAuthClientProvider
        from mcp.shared.auth import OAuthClientMetadata
        from pydantic import AnyUrl

        sign_in = self

        class Provider(OAuthClientProvider):
            async def _initialize(self) -> None:
                await super()._initialize()
                # a new session refreshes an expired token instead of sending it
                self.context.token_expiry_time = sign_in._storage.expires_at

            async def _perform_authorization(self) -> httpx2.Request:
                sign_in.check_endpoint(self._get_token_endpoint(), "token endpoint")
                return await super()._perform_authorization()

            async def _auth_flow(
                self, request: httpx2.Request
            ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
                flow = super()._auth_flow(request)
                try:
                    outgoing = await flow.__anext__()
                    while True:
                        if outgoing is not request:  # discovery, registration, tokens
                            sign_in.check_endpoint(str(outgoing.url), "authorization server")
                            if sign_in.implicit and _undiscovered(outgoing, self.context):
                                # It published no OAuth metadata: no sign-in to make, and
                                # the server's own refusal is the answer.
                                yield request
                                return
                        response = yield outgoing
                        if outgoing is request and response.status_code < 400:
                            sign_in.step_ups = 0  # the grant sufficed
                        if outgoing is request and sign_in.not_for_oauth(response):
                            return
                        outgoing = await flow.asend(response)
                except StopAsyncIteration:
                    return
                finally:
                    await flow.aclose()

            async def _handle_refresh_response(self, response: httpx2.Response) -> bool:
                refreshed = await super()._handle_refresh_response(response)
                if not refreshed:
                    sign_in.refresh_refused(response.status_code)
                return refreshed

        metadata = OAuthClientMetadata(
            client_name=self.options.client_name,
            redirect_uris=[AnyUrl(self.redirect_uri)],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        )
        return Provider(
            self.url, metadata, self._storage, redirect_handler=self._sign_in,
            callback_handler=self._answered, client_metadata_url=self.options.client_metadata_url,
        )  # fmt: skip

    def not_for_oauth(self, response: httpx2.Response) -> bool:
        """Whether a 401 is none of a sign-in's business: without `oauth=`, one that does
        not challenge for a bearer token (the server wants other credentials)."""
        if not self.implicit or response.status_code != 401 or self._storage.tokens is not None:
            return False
        return not response.headers.get("www-authenticate", "").lower().startswith("bearer")

    def secrets(self) -> list[str]:
        """The values no message may show: every token held, and the client's secret."""
        given = self.options.client_secret
        values = {*self._storage.held, given.get_secret_value() if given is not None else ""}
        client = self._storage.client
        if client is not None and client.client_secret:
            values.add(client.client_secret)
        return [v for v in values if len(v) >= 4]

    def hide(self, text: str) -> str:
        """`text` without any of `secrets()`."""
        return _hidden(text, self.secrets())

    def refresh_refused(self, status: int) -> None:
        """The authorization server refused the refresh token: forget the tokens (the next
        request signs in again, and says why)."""
        self._storage.tokens = None
        self._expired = True
        log.warning(
            "MCP server %r: the authorization server refused to refresh the sign-in (HTTP %s);"
            " signing in again",
            self.name,
            status,
        )

    def check_endpoint(self, url: str, what: str) -> None:
        """Refuse to send any part of a sign-in in the clear to another host: an endpoint must
        be https, or on the MCP server's own origin (whose URL was given), or on this machine."""
        parts, own = urlsplit(url), urlsplit(self.url)
        if parts.scheme == "https" or (parts.scheme, parts.netloc) == (own.scheme, own.netloc):
            return
        if parts.scheme == "http" and _loopback(parts.hostname):
            return
        raise self._error(
            f"its {what} {shown(url)} is not https and not on the server's own origin;"
            " threadlab sends nothing of a sign-in in the clear to another host"
        )

    def close(self) -> None:
        if self._listener is not None:
            self._listener.close()

    def _pre_registered(self) -> OAuthClientInformationFull | None:
        from mcp.shared.auth import OAuthClientInformationFull
        from pydantic import AnyUrl

        options = self.options
        if options.client_id is None:
            return None
        secret = options.client_secret.get_secret_value() if options.client_secret else None
        return OAuthClientInformationFull(
            client_id=options.client_id, client_secret=secret, client_name=options.client_name,
            redirect_uris=[AnyUrl(self.redirect_uri)],
            token_endpoint_auth_method="client_secret_basic" if secret else "none",
        )  # fmt: skip

    async def _sign_in(self, authorization_url: str) -> None:
        """The SDK's redirect handler: the whole sign-in, its answer kept for `_answered`."""
        self._answer = None
        again, self._expired = self._expired, False
        self.check_endpoint(authorization_url, "authorization endpoint")
        asked = dict(parse_qsl(urlsplit(authorization_url).query))
        state = asked.get("state", "")
        self._count_step_up(asked.get("scope"))
        with self.clock.person():
            if self.options.sign_in is not None:
                answer = await self._ask_callable(authorization_url)
            else:
                answer = await self._ask_in_notebook(authorization_url, state, again=again)
        self._answer = self._result(answer, state)

    async def _answered(self) -> AuthorizationCodeResult:
        """The SDK's callback handler: what `_sign_in` was answered."""
        assert self._answer is not None
        answer, self._answer = self._answer, None
        return answer

    async def _ask_callable(self, authorization_url: str) -> Any:
        sign_in = self.options.sign_in
        assert sign_in is not None
        try:
            answer = sign_in(authorization_url)
            if inspect.isawaitable(answer):
                answer = await answer
        except MCPServerError:
            raise
        except Exception as exc:
            raise self._error(f"its oauth sign_in failed: {type(exc).__name__}: {exc}") from None
        return answer

    async def _ask_in_notebook(self, authorization_url: str, state: str, *, again: bool) -> Any:
        if not kernel_display():
            raise self._error(
                "it asks for an OAuth sign-in, and without a notebook to show the link in,"
                " threadlab needs oauth=tl.OAuth(sign_in=...) on define_mcp_server: a callable"
                " given the authorization URL that returns the redirect URL"
            )
        assert self._listener is not None
        link = SignInLink(self.name, authorization_url, again=again)
        try:
            answer = await asyncio.wait_for(self._listener.redirect(state), _PERSON_SECONDS)
        except TimeoutError:
            link.finish(f"The sign-in to {self.name} was not completed in time.")
            raise self._error(
                f"nobody completed the sign-in within {_PERSON_SECONDS / 60:g} minutes; run"
                " again for a new link"
            ) from None
        except BaseException:
            link.finish(f"The sign-in to {self.name} was abandoned.")
            raise
        refused = "error" in answer
        link.finish(f"{'The sign-in was refused by' if refused else 'Signed in to'} {self.name}.")
        return answer

    def _result(self, answer: Any, state: str) -> AuthorizationCodeResult:
        from mcp.client.auth import AuthorizationCodeResult

        if isinstance(answer, tuple) and len(answer) == 2:
            params = {"code": str(answer[0]), "state": str(answer[1])}
        elif isinstance(answer, str) and "=" in answer:
            params = dict(parse_qsl(urlsplit(answer).query or answer.lstrip("?")))
        elif isinstance(answer, dict):
            params = {str(k): str(v) for k, v in answer.items()}
        else:
            raise self._error(
                "its oauth sign_in must return the redirect URL (or its (code, state)), not"
                f" {type(answer).__name__}"
            )
        if "error" in params:
            said = params["error"][:100]
            if params.get("error_description"):
                said += f": {params['error_description'][:300]}"
            raise self._error(f"the authorization server refused the sign-in ({said})")
        if params.get("state") != state:
            raise self._error(
                "the redirect's state is not the one this sign-in sent (an old or forged"
                " redirect); nothing was exchanged"
            )
        if not params.get("code"):
            raise self._error("the redirect carries no authorization code")
        return AuthorizationCodeResult(code=params["code"], state=state, iss=params.get("iss"))

    def _count_step_up(self, scope: str | None) -> None:
        """A server whose 403s ask for scope it never grants (or whose 401s refuse every token)
        would have threadlab sign in forever: past `_STEP_UPS` sign-ins in a row while tokens
        were held, with no request accepted between, it is an error."""
        if self._storage.tokens is None:
            self.step_ups = 0
            return
        self.step_ups += 1
        if self.step_ups > _STEP_UPS:
            self.step_ups = 0
            raise self._error(
                f"it asked for more scope ({scope or 'unnamed'}) {_STEP_UPS} times after"
                " granting it; not signing in again"
            )

    def _error(self, why: str) -> MCPServerError:
        return MCPServerError(f"MCP server {self.name!r} ({self.url}): {self.hide(why)}")


def sign_in_for(oauth: OAuth | None, headers: dict[str, str]) -> tuple[OAuth | None, bool]:
    """The sign-in options a session with this server uses, and whether they are implicit:
    `oauth` as defined; or, without it and without an Authorization header of its own, the
    notebook's link where there is a notebook (None: no sign-in; a server that asks for one is
    refused with a message)."""
    if oauth is not None:
        return oauth, False
    if any(k.lower() == "authorization" for k in headers) or not kernel_display():
        return None, False
    return OAuth(), True


def _undiscovered(outgoing: httpx2.Request, context: Any) -> bool:
    """Whether the flow is about to register (or exchange) with a server that published no
    OAuth metadata at all (it is not an OAuth 2.1 resource)."""
    found = context.protected_resource_metadata or context.oauth_metadata
    return outgoing.method == "POST" and found is None


def _loopback(host: str | None) -> bool:
    return host is not None and (host in ("localhost", "::1") or host.startswith("127."))


def _port_and_path(redirect_uri: str | None) -> tuple[int, str]:
    if redirect_uri is None:
        return 0, "/callback"
    parts = urlsplit(redirect_uri)
    return parts.port or 0, parts.path or "/"


def _hidden(text: str, secrets: Iterable[str]) -> str:
    for value in sorted(secrets, key=len, reverse=True):
        text = text.replace(value, "***")
    return text


_LIVE: weakref.WeakSet[ServerSignIn] = weakref.WeakSet()


class _TokenFilter(logging.Filter):
    """Rewrites a log record (its message and its traceback) so that no token of a sign-in
    alive in this process shows."""

    def filter(self, record: logging.LogRecord) -> bool:
        secrets = [value for sign_in in list(_LIVE) for value in sign_in.secrets()]
        if not secrets:
            return True
        message = record.getMessage()
        hidden = _hidden(message, secrets)
        if hidden != message:
            record.msg, record.args = hidden, None
        if record.exc_info:
            text = record.exc_text or logging.Formatter().formatException(record.exc_info)
            hidden = _hidden(text, secrets)
            if hidden != text:  # the traceback as text, hidden; not the exception to render
                record.exc_text, record.exc_info = hidden, None
        return True


@functools.cache
def _hide_tokens_in_sdk_logs() -> None:
    for name in _SDK_LOGGERS:
        logging.getLogger(name).addFilter(_TokenFilter())
