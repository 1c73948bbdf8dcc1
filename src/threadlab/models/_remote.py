"""A model served by a provider: one `Endpoint` (client, key, URL) and one `Api` (how a request
is written and a stream read for that API). Everything an API does differently lives in its
`Api`; this class only opens the stream, bounds it, closes it whatever happens, and turns
failures into `ModelError`s.

A server may stream forever, or keep a stream open with keep-alive comments and no data (the
HTTP client's read timeout counts any byte). Two bounds end such a response, and the run,
with the limit named: `max_output_bytes` of text and arguments in one response (8 MiB unless
the model's options say), and the model's `timeout` between two pieces of data."""

from __future__ import annotations

import asyncio
import functools
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from typing import Any, Protocol

from .._errors import ModelError
from ._base import ModelChunk, ModelRequest, ReasoningChunk, TextChunk, ToolCallChunk
from ._endpoint import Endpoint, SdkName, describe_failure

__all__ = ["DEFAULT_MAX_OUTPUT_BYTES", "Api", "ProtocolViolation", "RemoteModel", "send", "usage"]

DEFAULT_MAX_OUTPUT_BYTES = 8 << 20
"""The most text and argument bytes one response may stream (far past any model's output)."""


class ProtocolViolation(Exception):
    """The server's stream is not the API's protocol (an `Api` raises it; the model turns it
    into a `ModelError` naming the server)."""


class Api(Protocol):
    """One provider API: the request it takes and the stream it gives."""

    sdk: SdkName
    output_limits: tuple[str, ...]
    """The request fields that limit a step's output, as this API names them: the first is
    sent; one the model's options already set is lowered instead."""

    def body(self, request: ModelRequest, model: str) -> dict[str, Any]:
        """The SDK call's keyword arguments for `request` (the model's options are laid over
        them by `RemoteModel`)."""
        ...

    async def open(self, client: Any, body: dict[str, Any]) -> Any:
        """Send the request; the SDK's stream object."""
        ...

    def read(self, stream: Any) -> AsyncIterator[ModelChunk]:
        """The stream's events as model chunks."""
        ...


class RemoteModel:
    """A provider's model, streamed through its official SDK."""

    def __init__(
        self,
        name: str,
        model: str,
        api: Api,
        endpoint: Endpoint,
        options: Mapping[str, Any] | None = None,
        max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
        provider: str = "",
    ) -> None:
        if not isinstance(max_output_bytes, int) or max_output_bytes <= 0:
            raise ModelError(f"model {name!r}: max_output_bytes must be a positive integer")
        self.name = name
        self.model = model
        self.api = api
        self.endpoint = endpoint
        self.options = dict(options or {})
        self.max_output_bytes = max_output_bytes
        self.provider = provider
        """The provider as defined ("openai", "openai-responses", "anthropic")."""

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        # The model's options win over what the API writes; None removes a field (a server
        # that refuses `stream_options`, say).
        merged = {**self.api.body(request, self.model), **self.options}
        if request.max_output_tokens is not None:
            _limit_output(merged, self.api.output_limits, request.max_output_tokens)
        body = {key: value for key, value in merged.items() if value is not None}
        try:
            stream = await self.api.open(self.endpoint.client(), body)
        except ModelError:
            raise
        except Exception as exc:
            raise describe_failure(exc, self.endpoint, self.model) from exc
        # Closed on every way out — the end, an error, or the consumer cancelling (which
        # closes this generator): the HTTP response must not outlive the run.
        try:
            async for chunk in self._bounded(self.api.read(stream)):
                yield chunk
        except ModelError:
            raise
        except Exception as exc:
            raise describe_failure(exc, self.endpoint, self.model) from exc
        finally:
            await stream.close()

    async def _bounded(self, chunks: AsyncIterator[ModelChunk]) -> AsyncIterator[ModelChunk]:
        received = 0
        idle = self.endpoint.timeout
        while True:
            try:
                async with asyncio.timeout(idle):
                    chunk = await anext(chunks)
            except StopAsyncIteration:
                return
            except TimeoutError:
                raise ModelError(
                    f"no data from {self.endpoint.url} within {idle:g} s (keep-alives do not"
                    " count); raise the model's timeout option, or check the server"
                ) from None
            if isinstance(chunk, TextChunk):
                received += len(chunk.text.encode())
            elif isinstance(chunk, ToolCallChunk):
                received += len(chunk.arguments.encode())
            elif isinstance(chunk, ReasoningChunk):  # endless thinking is output too
                parts = (chunk.text, chunk.signature, chunk.redacted, chunk.encrypted)
                received += sum(len(part.encode()) for part in parts if part)
            if received > self.max_output_bytes:
                raise ModelError(
                    f"the response from {self.endpoint.url} went over {self.max_output_bytes:,}"
                    " bytes (the model's max_output_bytes option)"
                )
            yield chunk


def usage(
    input_tokens: int | None,
    output_tokens: int | None,
    cached_tokens: int | None = None,
    cache_write_tokens: int | None = None,
) -> dict[str, int]:
    """Token usage in threadlab's words, whatever the API called the counts: `input_tokens`
    is all the input, cache reads (`cached_tokens`) and writes (`cache_write_tokens`)
    included."""
    counts = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cached_tokens": cached_tokens,
        "cache_write_tokens": cache_write_tokens,
    }
    return {key: value for key, value in counts.items() if isinstance(value, int)}


async def send(create: Callable[..., Awaitable[Any]], body: dict[str, Any]) -> Any:
    """Call an SDK's `create` with `body`. The SDKs name each request field as a parameter,
    and their releases drop some (a field a server still takes, or one only a compatible
    server knows): whatever `create` does not name goes in `extra_body`, so every option
    reaches the wire as given."""
    known = _parameters(create)
    extra = {key: value for key, value in body.items() if key not in known}
    if not extra:
        return await create(**body)
    named = {key: value for key, value in body.items() if key in known}
    return await create(**named, extra_body={**named.pop("extra_body", {}), **extra})


@functools.cache
def _parameter_names(function: Callable[..., Any]) -> frozenset[str]:
    return frozenset(inspect.signature(function).parameters)


def _parameters(create: Callable[..., Any]) -> frozenset[str]:
    # Bound methods are made afresh on each access: the signature is the function's.
    return _parameter_names(getattr(create, "__func__", create))


def _limit_output(body: dict[str, Any], names: tuple[str, ...], limit: int) -> None:
    """Bound the step's output by `limit` tokens: a limit the body already has (the API's
    default, the model's options) is lowered to it, else the API's own field is added."""
    given = [name for name in names if isinstance(body.get(name), int)]
    for name in given:
        body[name] = min(body[name], limit)
    if not given:
        body[names[0]] = limit
