"""Anthropic's Messages API, streamed.

Request: the system prompt apart, the history as alternating user/assistant turns (tool calls
as `tool_use` blocks, their results as `tool_result` blocks in the next user turn), tools with
`input_schema`. A tool with a progress argument asks for eager input streaming, so its
progress value arrives early rather than after the whole input is buffered; the price is that
the input may be partial or invalid JSON (at `max_tokens`, say): such a call is kept as text and
answered with an error result, like any malformed call. Response: content blocks, each text or
a `tool_use` whose input streams as `input_json_delta`s; usage on `message_start` (input) and
`message_delta` (output, counted so far).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from .._data import Message, Reasoning
from ._base import FinishChunk, ModelChunk, ModelRequest, ReasoningChunk, TextChunk, ToolSpec
from ._call_assembly import CallAssembler
from ._endpoint import SdkName
from ._history import message_text, paired, system_text
from ._remote import ProtocolViolation, send, usage

__all__ = ["MessagesApi"]

DEFAULT_MAX_TOKENS = 4096
"""The Messages API requires `max_tokens`; this is sent when the model's options give none."""


class MessagesApi:
    """The Messages API with `stream=True`."""

    sdk: SdkName = "anthropic"
    output_limits: tuple[str, ...] = ("max_tokens",)

    def body(self, request: ModelRequest, model: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": DEFAULT_MAX_TOKENS,
            "messages": turns(request.messages),
            "stream": True,
        }
        system = system_text(request.messages)
        if system:
            body["system"] = system
        if request.tools:
            body["tools"] = [_tool(spec) for spec in request.tools]
            body["tool_choice"] = _tool_choice(request.tool_choice, request.parallel_tool_calls)
        return body

    async def open(self, client: Any, body: dict[str, Any]) -> Any:
        return await send(client.messages.create, body)

    async def read(self, stream: Any) -> AsyncIterator[ModelChunk]:
        calls = CallAssembler()
        tool_blocks: set[int] = set()  # the blocks that are calls of ours, by index
        input_tokens: int | None = None
        cached: int | None = None
        written: int | None = None
        output_tokens: int | None = None
        response_id: str | None = None
        finished = False
        async for event in stream:
            kind = event.type
            if kind == "content_block_delta":
                delta = event.delta
                if delta.type == "text_delta":
                    if delta.text:
                        yield TextChunk(delta.text)
                elif delta.type == "input_json_delta" and event.index in tool_blocks:
                    # A server tool's block (`server_tool_use`, web search) streams its input
                    # too: the API runs it, so it is no call of ours and is not assembled.
                    out = calls.feed(event.index, None, None, delta.partial_json)
                    if out is not None:
                        yield out
                elif delta.type == "thinking_delta":
                    yield ReasoningChunk(event.index, delta.thinking, api="anthropic")
                elif delta.type == "signature_delta":
                    yield ReasoningChunk(event.index, api="anthropic", signature=delta.signature)
            elif kind == "content_block_start":
                block = event.content_block
                if block.type == "tool_use":
                    # The start carries `input: {}`; the input itself follows as deltas.
                    tool_blocks.add(event.index)
                    out = calls.feed(event.index, block.id, block.name, "")
                    if out is not None:
                        yield out
                elif block.type == "text" and block.text:
                    yield TextChunk(block.text)
                elif block.type == "thinking":
                    yield ReasoningChunk(
                        event.index,
                        block.thinking or "",
                        api="anthropic",
                        signature=getattr(block, "signature", None) or None,
                    )
                elif block.type == "redacted_thinking":
                    yield ReasoningChunk(event.index, api="anthropic", redacted=block.data)
            elif kind == "message_start":
                response_id = event.message.id
                counts = event.message.usage
                cached = counts.cache_read_input_tokens
                written = counts.cache_creation_input_tokens
                # The API counts cache reads and writes apart from `input_tokens`; threadlab's
                # input is all of it, as the other APIs count it.
                input_tokens = (counts.input_tokens or 0) + (cached or 0) + (written or 0)
                output_tokens = counts.output_tokens
            elif kind == "message_stop":
                finished = True
            elif kind == "message_delta":
                output_tokens = event.usage.output_tokens  # a running total, not an increment
        if not finished:
            raise ProtocolViolation("the stream ended without message_stop")
        counted = usage(input_tokens, output_tokens, cached, written)
        yield FinishChunk(usage=counted or None, response_id=response_id)


def turns(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The history as Messages API turns: roles alternate (neighbours of one role merge), tool
    results ride in the user turn after their calls."""
    out: list[dict[str, Any]] = []
    for message in paired(messages):
        if message.role == "system":
            continue
        blocks: list[dict[str, Any]]
        if message.role == "tool":
            role = "user"
            result: dict[str, Any] = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": message_text(message),
            }
            if message.tool_status == "error":
                result["is_error"] = True
            blocks = [result]
        else:
            role = message.role
            text = message_text(message)
            # Signed thinking goes back first, with the answer it preceded (the API checks
            # it); a server tool's blocks were never kept, so nothing of them goes back.
            blocks = [_thinking(r) for r in message.reasoning if r.api == "anthropic"]
            blocks += [{"type": "text", "text": text}] if text else []
            blocks += [
                {
                    "type": "tool_use",
                    "id": call.id,
                    "name": call.name,
                    # A call whose arguments were not an object was answered with an error;
                    # the API needs an object, so it goes back empty.
                    "input": call.arguments if isinstance(call.arguments, dict) else {},
                }
                for call in message.tool_calls
            ]
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    return out


def _thinking(reasoning: Reasoning) -> dict[str, Any]:
    if reasoning.redacted is not None:
        return {"type": "redacted_thinking", "data": reasoning.redacted}
    return {"type": "thinking", "thinking": reasoning.text, "signature": reasoning.signature}


def _tool(spec: ToolSpec) -> dict[str, Any]:
    tool: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "input_schema": spec.parameters,
    }
    if spec.progress_argument is not None:
        tool["eager_input_streaming"] = True
    return tool


def _tool_choice(choice: str, parallel: bool) -> dict[str, Any]:
    modes = {"auto": "auto", "required": "any", "none": "none"}
    chosen: dict[str, Any] = (
        {"type": modes[choice]} if choice in modes else {"type": "tool", "name": choice}
    )
    if not parallel and chosen["type"] != "none":
        chosen["disable_parallel_tool_use"] = True
    return chosen
