"""The scripted server speaks each API's real shapes: every event the builders make parses
as the SDK's own type, strictly (a missing or misspelt field fails here)."""

from __future__ import annotations

from anthropic.types import RawMessageStreamEvent
from openai.types.chat import ChatCompletionChunk
from openai.types.responses import ResponseStreamEvent
from pydantic import TypeAdapter

from ._protocols import (
    anthropic_events,
    anthropic_leading,
    chat_chunks,
    responses_events,
    responses_leading,
)
from .test_reasoning import thinking_block

CALLS = [("call_1", "write_file", '{"path": "a.txt", "content": "héllo \\"x\\""}')]


def test_chat_chunks_are_chat_completion_chunks() -> None:
    for chunk in chat_chunks("Hello there", CALLS):
        ChatCompletionChunk.model_validate(chunk, strict=False)


def test_responses_events_are_response_stream_events() -> None:
    adapter: TypeAdapter[object] = TypeAdapter(ResponseStreamEvent)
    for event in responses_events("Hello there", CALLS):
        adapter.validate_python(event)


def test_anthropic_events_are_raw_message_stream_events() -> None:
    adapter: TypeAdapter[object] = TypeAdapter(RawMessageStreamEvent)
    for event in anthropic_events("Hello there", CALLS):
        if event["type"] != "ping":  # ping is a transport event the SDK drops itself
            adapter.validate_python(event)


def test_thinking_and_server_tool_blocks_are_raw_message_stream_events() -> None:
    adapter: TypeAdapter[object] = TypeAdapter(RawMessageStreamEvent)
    search = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}}
    found = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "content": [{"type": "web_search_result", "url": "https://example.com", "title": "W",
                     "encrypted_content": "xyz", "page_age": None}],
    }  # fmt: skip
    blocks = [
        thinking_block("Think."),
        ({"type": "redacted_thinking", "data": "ENC=="}, []),
        (search, [{"type": "input_json_delta", "partial_json": '{"query": "w"}'}]),
        (found, []),
    ]
    for event in anthropic_leading(anthropic_events("Hi", CALLS), blocks):
        if event["type"] != "ping":
            adapter.validate_python(event)


def test_reasoning_items_are_response_stream_events() -> None:
    adapter: TypeAdapter[object] = TypeAdapter(ResponseStreamEvent)
    item = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "Use the add tool."}],
        "encrypted_content": "gAAAAB-opaque",
    }
    for event in responses_leading(responses_events("Hi", CALLS), [item]):
        adapter.validate_python(event)
