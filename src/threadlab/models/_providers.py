"""The one place a named model's fields become a `RemoteModel`: which API serves the provider,
which SDK client reaches it, which options are the client's own."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import ModelError
from ._anthropic import MessagesApi
from ._endpoint import Endpoint
from ._openai_chat import ChatCompletionsApi
from ._openai_responses import ResponsesApi
from ._remote import Api, RemoteModel

__all__ = ["CLIENT_OPTIONS", "READING_OPTIONS", "remote_model"]

CLIENT_OPTIONS = ("timeout", "max_retries")
"""Options that set up the SDK client rather than go into each request."""
READING_OPTIONS = ("max_output_bytes",)
"""Options that bound how a response is read, never sent."""

_APIS: dict[str, Api] = {
    "openai": ChatCompletionsApi(),
    "openai-responses": ResponsesApi(),
    "anthropic": MessagesApi(),
}


def remote_model(
    name: str,
    *,
    provider: str,
    model: str,
    base_url: str | None,
    key_variable: str,
    api_key: str,
    options: Mapping[str, Any],
) -> RemoteModel:
    """A provider's model, ready to stream: `provider` is "openai" (Chat Completions),
    "openai-responses" or "anthropic"; `options` go into each request, except `timeout` and
    `max_retries`, which set up the client, and `max_output_bytes`, which bounds a response."""
    api = _APIS.get(provider)
    if api is None:
        raise ModelError(f"model {name!r}: {provider!r} is not a remote provider")
    client = {key: options[key] for key in CLIENT_OPTIONS if key in options}
    reading = {key: options[key] for key in READING_OPTIONS if key in options}
    request_options = {
        k: v for k, v in options.items() if k not in CLIENT_OPTIONS and k not in READING_OPTIONS
    }
    endpoint = Endpoint(api.sdk, base_url, key_variable, api_key, **client)
    return RemoteModel(name, model, api, endpoint, request_options, **reading, provider=provider)
