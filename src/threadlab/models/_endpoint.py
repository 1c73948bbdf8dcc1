"""Where a provider is reached and how its failures read: the client side of a remote model.

An `Endpoint` holds what the SDK client needs (base URL, key, timeout, retries); its clients
are made once per event loop (an HTTP connection pool belongs to the loop that opened it) and
reused by every request. A failure of the SDK becomes a `ModelError` that says what to do:
the variable to set for a rejected key, the model and URL for an unknown model, the status and
the provider's own message after the SDK's retries.
"""

from __future__ import annotations

import asyncio
import importlib
import weakref
from dataclasses import dataclass, field
from typing import Any, Literal

from .._errors import ModelError
from .._urls import scrub, scrub_http_logs, shown

__all__ = ["Endpoint", "SdkName", "describe_failure"]

SdkName = Literal["openai", "anthropic"]

_DEFAULT_URLS: dict[SdkName, str] = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
_CLIENT_CLASSES: dict[SdkName, str] = {"openai": "AsyncOpenAI", "anthropic": "AsyncAnthropic"}

_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Endpoint, Any]] = (
    weakref.WeakKeyDictionary()
)


def sdk(name: SdkName) -> Any:
    """The SDK module, or a clear error naming the extra that installs it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ModelError(
            f"the {name!r} provider needs the {name} package: pip install 'threadlab[{name}]'"
        ) from None


@dataclass(frozen=True)
class Endpoint:
    """A provider's API as one client reaches it."""

    sdk: SdkName
    base_url: str | None
    key_variable: str
    api_key: str = field(repr=False)
    timeout: float = 600.0
    max_retries: int = 2

    @property
    def url(self) -> str:
        """The base URL requests go to (the provider's own when none was given), as shown to a
        person: without a password it may carry."""
        return shown(self.base_url or _DEFAULT_URLS[self.sdk])

    def client(self) -> Any:
        """This loop's SDK client for the endpoint."""
        loop = asyncio.get_running_loop()
        per_loop = _clients.setdefault(loop, {})
        client = per_loop.get(self)
        if client is None:
            module = sdk(self.sdk)
            scrub_http_logs()
            client = getattr(module, _CLIENT_CLASSES[self.sdk])(
                api_key=self.api_key,
                base_url=self.base_url,
                timeout=self.timeout,
                max_retries=self.max_retries,
            )
            per_loop[self] = client
        return client


def describe_failure(exc: Exception, endpoint: Endpoint, model: str) -> ModelError:
    """`exc`, raised by the SDK for a request to `model`, as a `ModelError` a person can act
    on (the SDK's words may quote the URL it used: never with a password in it)."""
    return ModelError(scrub(str(_described(exc, endpoint, model))))


def _described(exc: Exception, endpoint: Endpoint, model: str) -> ModelError:
    module = sdk(endpoint.sdk)
    retries = f" (after {endpoint.max_retries} retries)" if endpoint.max_retries else ""
    if isinstance(exc, module.APIStatusError):
        status = exc.status_code
        said = _provider_message(exc)
        if status in (401, 403):
            return ModelError(
                f"{endpoint.url} rejected the API key in {endpoint.key_variable} (HTTP"
                f" {status}: {said}); set it with %threadlab secret {endpoint.key_variable}, or"
                " in the environment"
            )
        if status == 404:
            return ModelError(
                f"model {model!r} was not found at {endpoint.url} (HTTP 404: {said}); check the"
                " model id and base_url"
            )
        if status < 400:  # an error event inside a stream that had started well
            return ModelError(f"{endpoint.url} reported an error mid-stream: {said}")
        return ModelError(f"{endpoint.url} answered HTTP {status}{retries}: {said}")
    if isinstance(exc, module.APITimeoutError) or _is_transport(exc, "TimeoutException"):
        return ModelError(
            f"no answer from {endpoint.url} within {endpoint.timeout:g} s{retries}; raise the"
            " model's timeout option, or check the server"
        )
    if isinstance(exc, module.APIConnectionError):
        cause = exc.__cause__ or exc
        return ModelError(f"cannot reach {endpoint.url}{retries}: {cause}")
    if isinstance(exc, module.APIError):
        # An error event in a stream that had started well (Groq's `event: error`, or an
        # `{"error": ...}` chunk): the SDK raises it with what the provider said.
        return ModelError(f"{endpoint.url} reported an error mid-stream: {_provider_message(exc)}")
    return ModelError(
        f"the response from {endpoint.url} broke off or is not the protocol:"
        f" {str(exc) or type(exc).__name__}"
    )


def _is_transport(exc: Exception, kind: str) -> bool:
    # The SDKs wrap their HTTP library's errors on some paths and not on others (a timeout
    # while reading a stream, say); those are told apart by the library's class names, which
    # httpx and its successors share.
    return any(cls.__name__ == kind for cls in type(exc).__mro__)


def _provider_message(exc: Any) -> str:
    # Both SDKs keep the decoded error body; its message is what the provider said.
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        if isinstance(error, str):
            return error
    return str(getattr(exc, "message", exc))
