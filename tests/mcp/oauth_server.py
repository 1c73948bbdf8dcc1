"""An MCP server behind OAuth 2.1, with its own authorization server, for the tests: protected
resource metadata (RFC 9728), authorization server metadata (RFC 8414), dynamic registration
(RFC 7591), an authorization endpoint that approves at once (redirecting with a code, as a
person who clicked "Allow"), PKCE S256, the `resource` parameter checked, refresh tokens.
Served by uvicorn on 127.0.0.1 in a thread of the test process, so a test reads what it issued
and turns its knobs (`expires_in`, `refuse_refresh`, `token_endpoint`)."""

from __future__ import annotations

import base64
import hashlib
import secrets
import socket
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route


@dataclass
class Grant:
    client_id: str
    scope: str
    expires_at: float


@dataclass
class OAuthServer:
    """The server's state: what it issued, what it was asked, and its knobs."""

    port: int = 0
    expires_in: int = 3600
    refuse_refresh: bool = False
    refuse_codes: bool = False
    """Refuse to exchange codes, quoting the last tokens issued (as no server should)."""
    token_endpoint: str | None = None
    """Announced in the metadata instead of the server's own token endpoint."""
    clients: dict[str, list[str]] = field(default_factory=dict)  # client id -> redirect URIs
    codes: dict[str, dict[str, str]] = field(default_factory=dict)
    access: dict[str, Grant] = field(default_factory=dict)
    refresh: dict[str, Grant] = field(default_factory=dict)
    grants: list[str] = field(default_factory=list)  # the token requests' grant types, in order
    issued: list[str] = field(default_factory=list)  # every token, in order
    authorizations: int = 0

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        return f"{self.base}/mcp"

    def app(self) -> Any:
        mcp = MCPServer("test-oauth", log_level="WARNING")

        @mcp.tool()
        def add(a: int, b: int) -> int:
            """Add two integers."""
            return a + b

        @mcp.tool()
        def fail(reason: str) -> str:
            """Always raises."""
            raise RuntimeError(f"it broke: {reason}")

        served = mcp.streamable_http_app()
        auth = Starlette(routes=[
            Route("/.well-known/oauth-protected-resource/mcp", self._resource),
            Route("/.well-known/oauth-authorization-server", self._metadata),
            Route("/register", self._register, methods=["POST"]),
            Route("/authorize", self._authorize),
            Route("/token", self._token, methods=["POST"]),
        ])  # fmt: skip

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            if scope["type"] == "http" and scope["path"].startswith("/mcp"):
                bearer = dict(scope.get("headers") or []).get(b"authorization", b"").decode()
                grant = self.access.get(bearer.removeprefix("Bearer "))
                if grant is None or grant.expires_at < time.time():
                    where = f"{self.base}/.well-known/oauth-protected-resource/mcp"
                    challenge = f'Bearer error="invalid_token", resource_metadata="{where}"'
                    response = JSONResponse({"error": "invalid_token"}, 401,
                                            {"WWW-Authenticate": challenge})  # fmt: skip
                    return await response(scope, receive, send)
                return await served(scope, receive, send)
            if scope["type"] == "lifespan":
                return await served(scope, receive, send)
            return await auth(scope, receive, send)

        return app

    async def _resource(self, request: Request) -> Response:
        return JSONResponse({"resource": self.url, "authorization_servers": [self.base],
                             "scopes_supported": ["tools"]})  # fmt: skip

    async def _metadata(self, request: Request) -> Response:
        return JSONResponse({
            "issuer": self.base,
            "authorization_endpoint": f"{self.base}/authorize",
            "token_endpoint": self.token_endpoint or f"{self.base}/token",
            "registration_endpoint": f"{self.base}/register",
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"],
        })  # fmt: skip

    async def _register(self, request: Request) -> Response:
        asked = await request.json()
        client_id = f"client-{len(self.clients) + 1}"
        self.clients[client_id] = list(asked.get("redirect_uris") or [])
        registered = {"client_id": client_id, "redirect_uris": self.clients[client_id],
                      "token_endpoint_auth_method": "none"}  # fmt: skip
        return JSONResponse(registered, 201)

    async def _authorize(self, request: Request) -> Response:
        q = request.query_params
        if q.get("redirect_uri") not in self.clients.get(q.get("client_id", ""), []):
            return JSONResponse({"error": "invalid_request"}, 400)
        if q.get("code_challenge_method") != "S256" or q.get("resource") != self.url:
            return _redirect(q["redirect_uri"], error="invalid_request", state=q.get("state"))
        self.authorizations += 1
        code = secrets.token_urlsafe(16)
        self.codes[code] = {"client_id": q["client_id"], "challenge": q["code_challenge"],
                            "scope": q.get("scope", "")}  # fmt: skip
        return _redirect(q["redirect_uri"], code=code, state=q.get("state"))

    async def _token(self, request: Request) -> Response:
        form = await request.form()
        self.grants.append(str(form.get("grant_type")))
        if form.get("resource") != self.url:
            return JSONResponse({"error": "invalid_target"}, 400)
        if form.get("grant_type") == "authorization_code":
            asked = self.codes.pop(str(form.get("code")), None)
            verifier = str(form.get("code_verifier", "")).encode()
            challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier).digest()).rstrip(b"=")
            if asked is None or challenge.decode() != asked["challenge"]:
                return JSONResponse({"error": "invalid_grant"}, 400)
            if self.refuse_codes:
                said = f"no more tokens like {' or '.join(self.issued[-2:])}"
                return JSONResponse({"error": "invalid_grant", "error_description": said}, 400)
            return self._issue(asked["client_id"], asked["scope"])
        if form.get("grant_type") == "refresh_token":
            grant = self.refresh.pop(str(form.get("refresh_token")), None)
            if grant is None or self.refuse_refresh:
                why = f"{form.get('refresh_token')} is expired"
                return JSONResponse({"error": "invalid_grant", "error_description": why}, 400)
            return self._issue(grant.client_id, grant.scope)
        return JSONResponse({"error": "unsupported_grant_type"}, 400)

    def _issue(self, client_id: str, scope: str) -> Response:
        access, refresh = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        self.access[access] = Grant(client_id, scope, time.time() + self.expires_in)
        self.refresh[refresh] = Grant(client_id, scope, time.time() + 86400)
        self.issued += [access, refresh]
        return JSONResponse({"access_token": access, "token_type": "Bearer", "scope": scope,
                             "expires_in": self.expires_in, "refresh_token": refresh})  # fmt: skip


def _redirect(uri: str, **params: str | None) -> Response:
    query = urlencode({k: v for k, v in params.items() if v is not None})
    return RedirectResponse(f"{uri}{'&' if '?' in uri else '?'}{query}", 302)


class Served:
    """`server` served by uvicorn in a thread until `stop()`."""

    def __init__(self, server: OAuthServer) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            server.port = probe.getsockname()[1]
        config = uvicorn.Config(server.app(), host="127.0.0.1", port=server.port,
                                log_level="warning", lifespan="on")  # fmt: skip
        self._uvicorn = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._uvicorn.run, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._uvicorn.started:
            assert self._thread.is_alive(), "the test OAuth server exited"
            assert time.monotonic() < deadline, "the test OAuth server did not start"
            time.sleep(0.02)

    def stop(self) -> None:
        self._uvicorn.should_exit = True
        self._thread.join(30)
