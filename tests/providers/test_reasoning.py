"""Reasoning on the wire, in each API's recorded shape, through the official SDKs: Mistral's
list-of-parts content, DeepSeek's `reasoning_content`, Anthropic's signed `thinking` and
`redacted_thinking` blocks and its server tools' blocks, and the Responses API's encrypted
reasoning items. Reasoning is stored with the step; it goes back only where the API wants it
(Anthropic, Responses in stateless mode) and never where it does not (Chat Completions)."""

from __future__ import annotations

import json
from typing import Any

import threadlab as tl
from threadlab.widgets import replay, static_html

from ._protocols import (
    anthropic_events,
    anthropic_frames,
    anthropic_leading,
    chat_chunk,
    chat_chunks,
    chat_frames,
    responses_events,
    responses_frames,
    responses_leading,
)
from ._server import Reply, ScriptedServer
from ._setup import KEY, arguments, new_thread, remote_prompt

ADD = ("call_a1", "add", arguments({"a": 2, "b": 3}))
SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDdW5uaW5nU2lnbmF0dXJl"


async def test_mistral_content_parts_are_text_and_thinking(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, tools=())
    thinking = [
        {"type": "text", "text": "The user greets me; "},
        {"type": "text", "text": "greet back."},
    ]
    chunks = [
        chat_chunk({"role": "assistant", "content": ""}),
        chat_chunk({"content": [{"type": "thinking", "thinking": thinking[:1]}]}),
        chat_chunk({"content": [{"type": "thinking", "thinking": thinking[1:]}]}),
        chat_chunk({"content": [{"type": "text", "text": "Hello "}]}),
        chat_chunk({"content": [{"type": "text", "text": "to you."}]}),
        chat_chunk({}, finish="stop"),
    ]
    server.reply(Reply(frames=chat_frames(chunks)))
    thread = await new_thread(rt)
    run = await thread.send("hi")
    assert (run.status, run.text) == ("completed", "Hello to you.")
    (reasoning,) = thread.messages[-1].reasoning
    assert (reasoning.text, reasoning.api) == ("The user greets me; greet back.", "openai")
    # (Chat Completions servers take no reasoning back: see the DeepSeek test below.)


async def test_deepseek_reasoning_content_is_kept_and_never_sent_back(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server)
    chunks = [
        chat_chunk({"role": "assistant", "content": None, "reasoning_content": "Add 2 and 3"}),
        chat_chunk({"content": None, "reasoning_content": " with the tool."}),
        *chat_chunks(calls=[ADD])[1:],
    ]
    server.reply(Reply(frames=chat_frames(chunks)), Reply(frames=chat_frames(chat_chunks("5"))))
    thread = await new_thread(rt)
    assert (await thread.send("2+3?")).text == "5"
    step = next(m for m in thread.messages if m.tool_calls)
    assert [r.text for r in step.reasoning] == ["Add 2 and 3 with the tool."]
    assistant = server.requests[1].body["messages"][2]
    assert set(assistant) == {"role", "content", "tool_calls"}


def thinking_block(text: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    half = len(text) // 2
    return (
        {"type": "thinking", "thinking": "", "signature": ""},
        [
            {"type": "thinking_delta", "thinking": text[:half]},
            {"type": "thinking_delta", "thinking": text[half:]},
            {"type": "signature_delta", "signature": SIGNATURE},
        ],
    )


async def test_anthropic_signed_thinking_goes_back_with_its_tool_use(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, "anthropic")
    first = anthropic_leading(
        anthropic_events(calls=[ADD]),
        [
            thinking_block("I should add them."),
            ({"type": "redacted_thinking", "data": "ENC=="}, []),
        ],
    )
    server.reply(
        Reply(frames=anthropic_frames(first)), Reply(frames=anthropic_frames(anthropic_events("5")))
    )
    thread = await new_thread(rt, "anthropic")
    run = await thread.send("2+3?")
    assert (run.status, run.text) == ("completed", "5")
    step = next(m for m in thread.messages if m.tool_calls)
    assert [(r.text, r.signature, r.redacted) for r in step.reasoning] == [
        ("I should add them.", SIGNATURE, None),
        ("", None, "ENC=="),
    ]
    assistant = server.requests[1].body["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == [
        {"type": "thinking", "thinking": "I should add them.", "signature": SIGNATURE},
        {"type": "redacted_thinking", "data": "ENC=="},
        {"type": "tool_use", "id": "call_a1", "name": "add", "input": {"a": 2, "b": 3}},
    ]


async def test_anthropic_server_tool_blocks_are_no_calls_of_ours(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, "anthropic")
    search = {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search", "input": {}}
    query = [{"type": "input_json_delta", "partial_json": json.dumps({"query": "weather"})}]
    found = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_01",
        "content": [{"type": "web_search_result", "url": "https://example.com", "title": "W",
                     "encrypted_content": "xyz", "page_age": None}],
    }  # fmt: skip
    reply = anthropic_leading(anthropic_events("Sunny.", [ADD]), [(search, query), (found, [])])
    server.reply(
        Reply(frames=anthropic_frames(reply)), Reply(frames=anthropic_frames(anthropic_events("5")))
    )
    thread = await new_thread(rt, "anthropic")
    run = await thread.send("weather, and 2+3?")
    assert (run.status, run.text) == ("completed", "5")
    (step,) = [m for m in thread.messages if m.tool_calls]
    assert [c.name for c in step.tool_calls] == ["add"]  # the search was the API's to run
    # Dropped consistently: the next request holds the text and our call, no server block.
    assert server.requests[1].body["messages"][1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Sunny."},
            {"type": "tool_use", "id": "call_a1", "name": "add", "input": {"a": 2, "b": 3}},
        ],
    }


async def test_responses_encrypted_reasoning_goes_back_before_its_call(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, "openai-responses")
    item = {
        "id": "rs_1",
        "type": "reasoning",
        "summary": [{"type": "summary_text", "text": "Use the add tool."}],
        "encrypted_content": "gAAAAB-opaque",
    }
    first = responses_leading(responses_events(calls=[ADD]), [item])
    server.reply(
        Reply(frames=responses_frames(first)),
        Reply(frames=responses_frames(responses_events("5"))),
    )
    thread = await new_thread(rt, "openai-responses")
    assert (await thread.send("2+3?")).text == "5"
    step = next(m for m in thread.messages if m.tool_calls)
    (reasoning,) = step.reasoning
    assert (reasoning.text, reasoning.encrypted, reasoning.id) == (
        "Use the add tool.", "gAAAAB-opaque", "rs_1"
    )  # fmt: skip
    sent = server.requests[1].body["input"]
    assert [i.get("type", i.get("role")) for i in sent] == [
        "user", "reasoning", "function_call", "function_call_output"
    ]  # fmt: skip
    assert sent[1] == {
        "type": "reasoning",
        "id": "rs_1",
        "encrypted_content": "gAAAAB-opaque",
        "summary": [{"type": "summary_text", "text": "Use the add tool."}],
    }


async def test_reasoning_shows_as_thinking_and_never_holds_a_secret(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, tools=())
    chunks = [
        chat_chunk({"role": "assistant", "content": None, "reasoning_content": f"key {KEY}?"}),
        chat_chunk({"content": None, "reasoning_content": " No, just answer."}),
        *chat_chunks("Hi.")[1:],
    ]
    server.reply(Reply(frames=chat_frames(chunks)))
    thread = await new_thread(rt)
    await thread.send("hi")
    (reasoning,) = thread.messages[-1].reasoning
    assert reasoning.text == "key [secret:OPENAI_API_KEY]? No, just answer."
    state = replay(thread)
    (answer,) = [m for m in state.messages[thread.id] if m["role"] == "assistant"]
    assert answer["reasoning"] == reasoning.text
    page = static_html(thread)
    assert "<summary>thinking</summary>" in page
    assert KEY not in page + json.dumps(state.snapshot())


async def test_endless_thinking_is_cut_at_max_output_bytes(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    # A server (or a model an attacker steers) that thinks forever and never answers.
    remote_prompt(registry, server, "anthropic", max_output_bytes=1 << 20)

    def frames() -> Any:
        yield from anthropic_frames(anthropic_events()[:2])  # message_start, ping
        start = {"type": "thinking", "thinking": "", "signature": ""}
        yield from anthropic_frames([{"type": "content_block_start", "index": 0,
                                      "content_block": start}])  # fmt: skip
        delta = {"type": "thinking_delta", "thinking": "hmm " * 2048}
        while True:
            yield from anthropic_frames([{"type": "content_block_delta", "index": 0,
                                          "delta": delta}])  # fmt: skip

    server.reply(Reply(frames=frames()))
    thread = await new_thread(rt, "anthropic")
    run = await thread.send("think")
    assert run.status == "failed"
    assert "went over 1,048,576 bytes (the model's max_output_bytes option)" in (run.error or "")
