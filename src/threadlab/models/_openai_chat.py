"""OpenAI Chat Completions, the API every OpenAI-compatible server speaks (Ollama, vLLM,
llama.cpp, LM Studio, Gemini's compatible endpoint), streamed.

Request: the system prompt as a system message, the history as chat messages (each tool call
answered by a `tool` message), tools as functions (strict where the schema allows), usage asked
for in the last chunk. Response: `choices[0].delta` text and tool-call pieces, which the
`CallAssembler` numbers, whatever the server does with `index`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any

from .._data import Message
from ._base import FinishChunk, ModelChunk, ModelRequest, ReasoningChunk, TextChunk, ToolSpec
from ._call_assembly import CallAssembler
from ._endpoint import SdkName
from ._history import arguments_text, message_text, paired
from ._remote import ProtocolViolation, send, usage
from ._tool_schemas import strict_ok

__all__ = ["ChatCompletionsApi", "tool_choice"]

_MODES = ("auto", "none", "required")


class ChatCompletionsApi:
    """Chat Completions with `stream=True`."""

    sdk: SdkName = "openai"
    output_limits: tuple[str, ...] = ("max_completion_tokens", "max_tokens")

    def body(self, request: ModelRequest, model: str) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": model,
            "messages": chat_messages(request.messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if request.tools:
            body["tools"] = [_function(spec) for spec in request.tools]
            body["tool_choice"] = tool_choice(request.tool_choice, nested=True)
            body["parallel_tool_calls"] = request.parallel_tool_calls
        return body

    async def open(self, client: Any, body: dict[str, Any]) -> Any:
        return await send(client.chat.completions.create, body)

    async def read(self, stream: Any) -> AsyncIterator[ModelChunk]:
        calls = CallAssembler()
        counted: dict[str, int] | None = None
        finished = False
        response_id: str | None = None
        async for chunk in stream:
            response_id = response_id or getattr(chunk, "id", None) or None
            if chunk.usage is not None:
                counted = usage(
                    chunk.usage.prompt_tokens,
                    chunk.usage.completion_tokens,
                    getattr(chunk.usage.prompt_tokens_details, "cached_tokens", None),
                )
            for choice in chunk.choices:
                if choice.index:
                    continue  # n > 1 is not asked for; a second choice is not this turn's
                finished = finished or choice.finish_reason is not None
                delta = choice.delta
                for chunk in _content(delta):
                    yield chunk
                for piece in delta.tool_calls or ():
                    function = piece.function
                    out = calls.feed(
                        getattr(piece, "index", None),  # Gemini's endpoint sends none
                        piece.id,
                        function.name if function else None,
                        function.arguments if function else None,
                    )
                    if out is not None:
                        yield out
        if not finished:
            raise ProtocolViolation("the stream ended without a finish_reason")
        yield FinishChunk(usage=counted, response_id=response_id)


def _content(delta: Any) -> list[TextChunk | ReasoningChunk]:
    """A delta's text and reasoning. `content` is a string, or (Mistral's reasoning models)
    a list of parts: "text" parts are text, "thinking" parts (their text in a list of parts of
    their own) reasoning; DeepSeek sends reasoning as `reasoning_content`, other servers as
    `reasoning`. None of these servers takes reasoning back, so it is only kept to show."""
    out: list[TextChunk | ReasoningChunk] = []
    thought = getattr(delta, "reasoning_content", None) or getattr(delta, "reasoning", None)
    if isinstance(thought, str) and thought:
        out.append(ReasoningChunk(0, thought, api="openai"))
    content = delta.content
    if isinstance(content, str):
        if content:
            out.append(TextChunk(content))
        return out
    for part in content or ():
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "text" and part.get("text"):
            out.append(TextChunk(str(part["text"])))
        elif kind == "thinking":
            text = _part_text(part.get("thinking"))
            if text:
                out.append(ReasoningChunk(0, text, api="openai"))
    return out


def _part_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(_part_text(p.get("text") if isinstance(p, dict) else p) for p in value)
    return ""


def chat_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """The history as Chat Completions messages."""
    out: list[dict[str, Any]] = []
    for message in paired(messages):
        if message.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": message.content}
            if message.tool_calls:
                entry["tool_calls"] = [
                    {
                        "id": call.id,
                        "type": "function",
                        "function": {"name": call.name, "arguments": arguments_text(call)},
                    }
                    for call in message.tool_calls
                ]
            out.append(entry)
        elif message.role == "tool":
            out.append(
                {
                    "role": "tool",
                    "tool_call_id": message.tool_call_id,
                    "content": message_text(message),
                }
            )
        else:
            out.append({"role": message.role, "content": message_text(message)})
    return out


def tool_choice(choice: str, *, nested: bool) -> Any:
    """A prompt's `tool_choice` in OpenAI's terms: a mode, or the one tool to call (nested
    under "function" in Chat Completions, flat in Responses)."""
    if choice in _MODES:
        return choice
    if nested:
        return {"type": "function", "function": {"name": choice}}
    return {"type": "function", "name": choice}


def _function(spec: ToolSpec) -> dict[str, Any]:
    function: dict[str, Any] = {
        "name": spec.name,
        "description": spec.description,
        "parameters": spec.parameters,
    }
    if strict_ok(spec.parameters):
        function["strict"] = True
    return {"type": "function", "function": function}
