"""Each API's streaming wire format, built from a script: the event and chunk shapes of the
SDKs' own types (`test_protocol_shapes.py` validates every builder against them)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ._server import sse

Call = tuple[str, str, str]  # id, name, argument text


def pieces(text: str, size: int) -> list[str]:
    """`text` in slices of `size` characters (at least one slice, maybe empty)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


# --- Chat Completions ------------------------------------------------------------------------


def chat_chunk(
    delta: dict[str, Any] | None = None,
    *,
    finish: str | None = None,
    usage: tuple[int, int, int] | None = None,
) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": "chatcmpl-1",
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "test-model",
        "choices": []
        if delta is None
        else [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}],
    }
    if usage is not None:
        prompt, completion, cached = usage
        chunk["usage"] = {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": cached},
        }
    return chunk


def chat_call_start(index: int | None, call: Call) -> dict[str, Any]:
    piece: dict[str, Any] = {
        "id": call[0],
        "type": "function",
        "function": {"name": call[1], "arguments": ""},
    }
    if index is not None:
        piece["index"] = index
    return {"tool_calls": [piece]}


def chat_args(index: int | None, text: str) -> dict[str, Any]:
    piece: dict[str, Any] = {"function": {"arguments": text}}
    if index is not None:
        piece["index"] = index
    return {"tool_calls": [piece]}


def chat_chunks(
    text: str | None = None,
    calls: Sequence[Call] = (),
    *,
    size: int = 8,
    usage: tuple[int, int, int] | None = (12, 7, 3),
) -> list[dict[str, Any]]:
    """A whole streamed response, as OpenAI sends it."""
    out = [chat_chunk({"role": "assistant", "content": ""})]
    if text:
        out += [chat_chunk({"content": part}) for part in pieces(text, size)]
    for index, call in enumerate(calls):
        out.append(chat_chunk(chat_call_start(index, call)))
        out += [chat_chunk(chat_args(index, part)) for part in pieces(call[2], size) if part]
    out.append(chat_chunk({}, finish="tool_calls" if calls else "stop"))
    if usage is not None:
        out.append(chat_chunk(usage=usage))
    return out


def chat_frames(chunks: Sequence[dict[str, Any]]) -> list[bytes]:
    return [sse(chunk) for chunk in chunks] + [sse("[DONE]")]


# --- Responses -------------------------------------------------------------------------------


def response_object(status: str, usage: tuple[int, int, int] | None = None) -> dict[str, Any]:
    response: dict[str, Any] = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1_700_000_000,
        "model": "test-model",
        "status": status,
        "output": [],
        "parallel_tool_calls": False,
        "tool_choice": "auto",
        "tools": [],
    }
    if usage is not None:
        prompt, completion, cached = usage
        response["usage"] = {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": cached, "cache_write_tokens": 0},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": prompt + completion,
        }
    return response


def responses_events(
    text: str | None = None,
    calls: Sequence[Call] = (),
    *,
    size: int = 8,
    usage: tuple[int, int, int] | None = (12, 7, 3),
    argument_deltas: bool = True,
) -> list[dict[str, Any]]:
    """A whole streamed response as the Responses API sends it; `argument_deltas=False` sends
    each call's arguments only with its `.done` event, as some servers do."""
    seq = iter(range(10_000))
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response_object("in_progress")}
    ]
    output = 0
    if text:
        item = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "status": "in_progress",
            "content": [],
        }
        events.append({"type": "response.output_item.added", "output_index": 0, "item": item})
        for part in pieces(text, size):
            events.append(
                {
                    "type": "response.output_text.delta",
                    "item_id": "msg_1",
                    "output_index": 0,
                    "content_index": 0,
                    "delta": part,
                    "logprobs": [],
                }
            )
        output = 1
    for offset, (call_id, name, arguments) in enumerate(calls):
        index = output + offset
        item_id = f"fc_{index}"
        item = {
            "id": item_id,
            "type": "function_call",
            "call_id": call_id,
            "name": name,
            "arguments": "",
            "status": "in_progress",
        }
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        if argument_deltas:
            for part in pieces(arguments, size):
                if part:
                    events.append(
                        {
                            "type": "response.function_call_arguments.delta",
                            "item_id": item_id,
                            "output_index": index,
                            "delta": part,
                        }
                    )
        events.append(
            {
                "type": "response.function_call_arguments.done",
                "item_id": item_id,
                "output_index": index,
                "arguments": arguments,
            }
        )
        done = {**item, "arguments": arguments, "status": "completed"}
        events.append({"type": "response.output_item.done", "output_index": index, "item": done})
    events.append({"type": "response.completed", "response": response_object("completed", usage)})
    for event in events:
        event["sequence_number"] = next(seq)
    return events


def responses_frames(events: Sequence[dict[str, Any]]) -> list[bytes]:
    return [sse(event, event["type"]) for event in events]


# --- Anthropic Messages ----------------------------------------------------------------------


def anthropic_events(
    text: str | None = None,
    calls: Sequence[Call] = (),
    *,
    size: int = 8,
    usage: tuple[int, int, int] = (12, 7, 3),
    stop_reason: str | None = None,
) -> list[dict[str, Any]]:
    """A whole streamed message as the Messages API sends it."""
    prompt, completion, cached = usage
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "test-model",
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {
                    "input_tokens": prompt,
                    "output_tokens": 1,
                    "cache_read_input_tokens": cached,
                    "cache_creation_input_tokens": 0,
                },
            },
        },
        {"type": "ping"},
    ]
    index = 0
    if text:
        events.append(
            {
                "type": "content_block_start",
                "index": 0,
                "content_block": {"type": "text", "text": ""},
            }
        )
        events += [
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}
            for p in pieces(text, size)
        ]
        events.append({"type": "content_block_stop", "index": 0})
        index = 1
    for offset, (call_id, name, arguments) in enumerate(calls):
        block = index + offset
        events.append(
            {
                "type": "content_block_start",
                "index": block,
                "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
            }
        )
        events += [
            {
                "type": "content_block_delta",
                "index": block,
                "delta": {"type": "input_json_delta", "partial_json": p},
            }
            for p in pieces(arguments, size)
            if p
        ]
        events.append({"type": "content_block_stop", "index": block})
    events.append(
        {
            "type": "message_delta",
            "delta": {
                "stop_reason": stop_reason or ("tool_use" if calls else "end_turn"),
                "stop_sequence": None,
            },
            "usage": {"output_tokens": completion},
        }
    )
    events.append({"type": "message_stop"})
    return events


def anthropic_frames(events: Sequence[dict[str, Any]]) -> list[bytes]:
    return [sse(event, event["type"]) for event in events]


def anthropic_leading(
    events: list[dict[str, Any]], blocks: Sequence[tuple[dict[str, Any], list[dict[str, Any]]]]
) -> list[dict[str, Any]]:
    """`events` with `blocks` (each a `content_block_start` block and its deltas) streamed
    first, at indices 0, 1, ...: the blocks after them move up, as the API numbers them."""
    shift = len(blocks)
    out: list[dict[str, Any]] = []
    for event in events:
        if "index" in event:
            event = {**event, "index": event["index"] + shift}
        out.append(event)
    head: list[dict[str, Any]] = []
    for index, (block, deltas) in enumerate(blocks):
        head.append({"type": "content_block_start", "index": index, "content_block": block})
        head += [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
        head.append({"type": "content_block_stop", "index": index})
    return out[:2] + head + out[2:]  # after message_start and ping


def responses_leading(
    events: list[dict[str, Any]], items: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """`events` with output `items` (reasoning, say) added and done first, at output indices
    0, 1, ...: the items after them move up; sequence numbers run on."""
    shift = len(items)
    out = [
        {**e, "output_index": e["output_index"] + shift} if "output_index" in e else dict(e)
        for e in events
    ]
    head: list[dict[str, Any]] = []
    for index, item in enumerate(items):
        started = {**item, "summary": [], "encrypted_content": None}
        head.append({"type": "response.output_item.added", "output_index": index, "item": started})
        head.append({"type": "response.output_item.done", "output_index": index, "item": item})
    merged = out[:1] + head + out[1:]  # after response.created
    for number, event in enumerate(merged):
        event["sequence_number"] = number
    return merged


# --- any of the three ------------------------------------------------------------------------

PROVIDERS = ["openai", "openai-responses", "anthropic"]
"""The three streaming APIs, by the `provider=` that selects each."""


def provider_frames(
    provider: str,
    text: str | None = None,
    calls: Sequence[Call] = (),
    *,
    size: int = 8,
    usage: tuple[int, int, int] = (12, 7, 3),
) -> list[bytes]:
    """A whole streamed response in `provider`'s own wire shape: `text`, then `calls`, each
    sent in pieces of `size` characters; `usage` as (input, output, cached) tokens the way the
    API counts them (Anthropic counts its uncached input apart from the cached)."""
    if provider == "openai":
        return chat_frames(chat_chunks(text, calls, size=size, usage=usage))
    if provider == "openai-responses":
        return responses_frames(responses_events(text, calls, size=size, usage=usage))
    return anthropic_frames(anthropic_events(text, calls, size=size, usage=usage))
