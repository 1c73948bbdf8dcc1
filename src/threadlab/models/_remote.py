"""A model served by a provider: one `Endpoint` (client, key, URL) and one `Api` (how a request
is written and a stream read for that API). Everything an API does differently lives in its
`Api`; this class only opens the stream, closes it whatever happens, and turns failures into
`ModelError`s."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any, Protocol

from .._errors import ModelError
from ._base import ModelChunk, ModelRequest
from ._endpoint import Endpoint, SdkName, describe_failure

__all__ = ["Api", "RemoteModel", "usage"]


class Api(Protocol):
    """One provider API: the request it takes and the stream it gives."""

    sdk: SdkName

    def body(self, request: ModelRequest, model: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """The SDK call's keyword arguments for `request`."""
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
    ) -> None:
        self.name = name
        self.model = model
        self.api = api
        self.endpoint = endpoint
        self.options = dict(options or {})

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        body = self.api.body(request, self.model, self.options)
        try:
            stream = await self.api.open(self.endpoint.client(), body)
        except ModelError:
            raise
        except Exception as exc:
            raise describe_failure(exc, self.endpoint, self.model) from exc
        # Closed on every way out — the end, an error, or the consumer cancelling (which
        # closes this generator): the HTTP response must not outlive the run.
        try:
            async for chunk in self.api.read(stream):
                yield chunk
        except ModelError:
            raise
        except Exception as exc:
            raise describe_failure(exc, self.endpoint, self.model) from exc
        finally:
            await stream.close()


def usage(
    input_tokens: int | None, output_tokens: int | None, cached_tokens: int | None = None
) -> dict[str, int]:
    """Token usage in threadlab's words, whatever the API called the counts."""
    counts = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cached_tokens": cached_tokens,
    }
    return {key: value for key, value in counts.items() if isinstance(value, int)}
