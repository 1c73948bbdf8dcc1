"""Who may reach a served endpoint: a bearer token (compared in constant time, its scheme
read case-insensitively as HTTP says), and — on every bind address, not only loopback — the
Host and Origin a request names, against the loopback names, the bound host and the hosts the
user allowed (DNS rebinding: a web page must not reach the endpoint through a name of its own)."""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from typing import Any

__all__ = ["bearer", "transport_security"]

_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
_WILDCARDS = ("0.0.0.0", "::", "")


def transport_security(host: str, allowed_hosts: Iterable[str]) -> Any:
    """The SDK's Host/Origin check for an endpoint bound to `host`."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = [*_LOOPBACK, *([] if host in _WILDCARDS else [host]), *allowed_hosts]
    hosts: list[str] = []
    for name in names:
        hosts += _with_ports(_bracketed(name.strip()))
    hosts = [h for h in dict.fromkeys(hosts) if h]
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )


def _bracketed(name: str) -> str:
    """An IPv6 address as a Host header writes it."""
    return f"[{name}]" if name.count(":") > 1 and not name.startswith("[") else name


def _with_ports(name: str) -> list[str]:
    """`name` as a Host value, on any port unless it names one."""
    has_port = "]:" in name if name.startswith("[") else ":" in name
    return [name] if has_port else [name, f"{name}:*"]


def bearer(app: Any, token: str | None) -> Any:
    """`app` behind "Authorization: Bearer <token>"."""
    if token is None:
        return app
    expected = token.encode()

    async def guarded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            scheme, _, credentials = given.strip().partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(
                credentials.strip(), expected
            ):
                await send({"type": "http.response.start", "status": 401, "headers": [
                    (b"content-type", b"text/plain"), (b"www-authenticate", b"Bearer"),
                ]})  # fmt: skip
                await send({"type": "http.response.body", "body": b"a bearer token is needed"})
                return
        await app(scope, receive, send)

    return guarded
