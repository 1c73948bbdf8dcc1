"""The Responses API on the wire (`provider="openai-responses"`)."""

from __future__ import annotations

import threadlab as tl

from ._protocols import responses_events, responses_frames
from ._server import Reply, ScriptedServer
from ._setup import (
    KEY,
    arguments,
    collect,
    first_calls,
    new_thread,
    remote_prompt,
)

WRITE = ("call_w1", "write_file", arguments({"path": "/a.txt", "content": "x" * 40}))
ADD = ("call_a1", "add", arguments({"a": 2, "b": 3}))


def reply(events: list[dict[str, object]]) -> Reply:
    return Reply(frames=responses_frames(events))


async def test_text_and_calls_go_back_as_input_items(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, "openai-responses")
    server.reply(
        reply(responses_events("Let me write.", [WRITE, ADD], size=6)),
        reply(responses_events("All done.", usage=(30, 4, 10))),
    )
    thread = await new_thread(rt)
    await thread.send("go")

    first, second = server.requests
    assert first.path == "/v1/responses"
    assert first.headers["authorization"] == f"Bearer {KEY}"
    assert first.body["instructions"] == "You are a test."
    assert first.body["input"] == [{"role": "user", "content": "go"}]
    tools = {t["name"]: t for t in first.body["tools"]}
    assert tools["write_file"]["type"] == "function"
    assert tools["write_file"]["strict"] is True
    assert tools["add"]["strict"] is False
    assert second.body["input"][1:] == [
        {"role": "assistant", "content": "Let me write."},
        {"type": "function_call", "call_id": "call_w1", "name": "write_file",
         "arguments": '{"path":"/a.txt","content":"' + "x" * 40 + '"}'},
        {"type": "function_call", "call_id": "call_a1", "name": "add",
         "arguments": '{"a":2,"b":3}'},
        {"type": "function_call_output", "call_id": "call_w1",
         "output": "wrote 40 characters to /a.txt"},
        {"type": "function_call_output", "call_id": "call_a1", "output": "5"},
    ]  # fmt: skip


async def test_arguments_sent_only_with_done_make_one_whole_call(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, "openai-responses")
    server.reply(
        reply(responses_events(calls=[WRITE, ADD], argument_deltas=False)),
        reply(responses_events("ok")),
    )
    thread = await new_thread(rt)
    events = await collect(thread, "go")

    started = [e for e in events if isinstance(e, tl.ToolCallStartedEvent)]
    assert [(e.tool_call_id, e.progress) for e in started] == [
        ("call_w1", "/a.txt"),
        ("call_a1", None),
    ]
    assert [c.arguments for c in first_calls(thread)][1] == {"a": 2, "b": 3}
    assert [m.tool_status for m in thread.messages if m.role == "tool"] == ["success", "success"]


async def test_a_failed_response_ends_the_run_with_the_providers_reason(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, "openai-responses")
    failed = {
        "type": "response.failed",
        "sequence_number": 1,
        "response": {
            **responses_events()[0]["response"],
            "status": "failed",
            "error": {"code": "server_error", "message": "the model crashed"},
        },
    }
    server.reply(reply([responses_events()[0], failed]))
    thread = await new_thread(rt)
    run = await thread.send("go")

    assert run.status == "failed"
    assert run.error is not None
    assert "the model crashed" in run.error
