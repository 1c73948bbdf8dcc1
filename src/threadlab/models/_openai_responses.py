"""OpenAI's Responses API, streamed.

Request: the system prompt as `instructions`, the history as input items (messages,
`function_call` items and their `function_call_output`s), flat function tools. Response: typed
events — text deltas, a `function_call` item announced by `response.output_item.added`, its
argument deltas, and `.done` with the whole argument text (all some servers send), usage on
`response.completed`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from .._data import Message
from .._errors import ModelError
from ._base import FinishChunk, ModelChunk, ModelRequest, ReasoningChunk, TextChunk
from ._call_assembly import CallAssembler
from ._endpoint import SdkName
from ._history import arguments_text, message_text, paired, system_text
from ._openai_chat import tool_choice
from ._remote import ProtocolViolation, send, usage
from ._tool_schemas import strict_ok

__all__ = ["ResponsesApi"]


class ResponsesApi:
    """The Responses API with `stream=True`."""

    sdk: SdkName = "openai"
    output_limits: tuple[str, ...] = ("max_output_tokens",)

    def body(self, request: ModelRequest, model: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": model,
            "input": input_items(request.messages),
            "stream": True,
        }
        instructions = system_text(request.messages)
        if instructions:
            body["instructions"] = instructions
        if request.tools:
            body["tools"] = [
                {
                    "type": "function",
                    "name": spec.name,
                    "description": spec.description,
                    "parameters": spec.parameters,
                    "strict": strict_ok(spec.parameters),
                }
                for spec in request.tools
            ]
            body["tool_choice"] = tool_choice(request.tool_choice, nested=False)
            body["parallel_tool_calls"] = request.parallel_tool_calls
        return body

    async def open(self, client: Any, body: dict[str, Any]) -> Any:
        return await send(client.responses.create, body)

    async def read(self, stream: Any) -> AsyncIterator[ModelChunk]:
        calls = CallAssembler()
        call_of_item: dict[str, str] = {}  # argument events name the item, not the call
        counted: dict[str, int] | None = None
        response_id: str | None = None
        finished = False
        async for event in stream:
            kind = event.type
            if kind == "response.output_text.delta":
                if event.delta:
                    yield TextChunk(event.delta)
            elif kind == "response.output_item.added":
                item = event.item
                if item.type == "function_call":
                    if getattr(item, "id", None):
                        call_of_item[item.id] = item.call_id
                    out = calls.feed(event.output_index, item.call_id, item.name, item.arguments)
                    if out is not None:
                        yield out
            elif kind == "response.function_call_arguments.delta":
                out = calls.feed(
                    event.output_index, call_of_item.get(event.item_id), None, event.delta
                )
                if out is not None:
                    yield out
            elif kind == "response.function_call_arguments.done":
                out = calls.finish(
                    event.output_index, call_of_item.get(event.item_id), event.arguments
                )
                if out is not None:
                    yield out
            elif kind == "response.output_item.done" and event.item.type == "function_call":
                out = calls.finish(event.output_index, event.item.call_id, event.item.arguments)
                if out is not None:
                    yield out
            elif kind == "response.output_item.done" and event.item.type == "reasoning":
                item = event.item
                summary = "\n\n".join(p.text for p in (item.summary or ()) if p.text)
                yield ReasoningChunk(
                    event.output_index,
                    summary,
                    api="openai-responses",
                    encrypted=getattr(item, "encrypted_content", None),
                    id=item.id,
                )
            elif kind in ("response.completed", "response.incomplete"):
                finished = True
                counted = _usage(event.response)
                response_id = getattr(event.response, "id", None)
            elif kind == "response.failed":
                error = event.response.error
                raise ModelError(f"the response failed: {error.message if error else 'no reason'}")
            elif kind == "error":
                raise ModelError(f"the server reported an error mid-stream: {event.message}")
        if not finished:
            raise ProtocolViolation("the stream ended without response.completed")
        yield FinishChunk(usage=counted, response_id=response_id)


def input_items(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The history as Responses input items (system messages go to `instructions`)."""
    items: list[dict[str, Any]] = []
    for message in paired(messages):
        if message.role == "system":
            continue
        if message.role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": message.tool_call_id,
                    "output": message_text(message),
                }
            )
            continue
        # Reasoning goes back where the API wants it: before the answer it preceded, when it
        # is encrypted (stateless mode, `store: false`); a stored one is the server's own.
        items += [
            {
                "type": "reasoning",
                "id": r.id,
                "encrypted_content": r.encrypted,
                "summary": [{"type": "summary_text", "text": r.text}] if r.text else [],
            }
            for r in message.reasoning
            if r.api == "openai-responses" and r.encrypted
        ]
        if message.role == "user" or message.content:
            items.append({"role": message.role, "content": message_text(message)})
        for call in message.tool_calls:
            items.append(
                {
                    "type": "function_call",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": arguments_text(call),
                }
            )
    return items


def _usage(response: Any) -> dict[str, int] | None:
    counts = getattr(response, "usage", None)
    if counts is None:
        return None
    details = getattr(counts, "input_tokens_details", None)
    return usage(counts.input_tokens, counts.output_tokens, getattr(details, "cached_tokens", None))
