"""The scripted server speaks each API's real shapes: every event the builders make parses
as the SDK's own type, strictly (a missing or misspelt field fails here)."""

from __future__ import annotations

from anthropic.types import RawMessageStreamEvent
from openai.types.chat import ChatCompletionChunk
from openai.types.responses import ResponseStreamEvent
from pydantic import TypeAdapter

from ._protocols import anthropic_events, chat_chunks, responses_events

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
