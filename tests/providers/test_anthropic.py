"""Anthropic's Messages API on the wire."""

from __future__ import annotations

import json

import threadlab as tl

from ._protocols import anthropic_events, anthropic_frames
from ._server import Reply, ScriptedServer
from ._setup import (
    KEY,
    arguments,
    collect,
    first_calls,
    new_thread,
    remote_prompt,
)

WRITE = ("toolu_w1", "write_file", arguments({"path": "/site/index.html", "content": "<p>" * 30}))
ADD = ("toolu_a1", "add", arguments({"a": "two"}))  # not an integer: an error result


def reply(events: list[dict[str, object]]) -> Reply:
    return Reply(frames=anthropic_frames(events))


async def test_tool_use_and_tool_results_on_the_wire(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, "anthropic")
    server.reply(
        reply(anthropic_events("Writing now.", [WRITE, ADD], size=5)),
        reply(anthropic_events("Done.", usage=(50, 9, 40))),
    )
    thread = await new_thread(rt, "anthropic")
    await thread.send("build")
    results = [m for m in thread.messages if m.role == "tool"]
    assert [m.tool_status for m in results] == ["success", "error"]

    first, second = server.requests
    assert first.path == "/v1/messages"
    assert first.headers["authorization"] == f"Bearer {KEY}"
    assert first.body["system"] == "You are a test."
    assert first.body["max_tokens"] == 4096
    assert first.body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "build"}]}
    ]
    tools = {t["name"]: t for t in first.body["tools"]}
    assert tools["write_file"]["eager_input_streaming"] is True  # it has a progress argument
    assert "eager_input_streaming" not in tools["add"]
    assert tools["add"]["input_schema"]["required"] == ["a"]
    assert first.body["tool_choice"] == {"type": "auto", "disable_parallel_tool_use": True}
    assert second.body["messages"][1:] == [
        {"role": "assistant", "content": [
            {"type": "text", "text": "Writing now."},
            {"type": "tool_use", "id": "toolu_w1", "name": "write_file",
             "input": {"path": "/site/index.html", "content": "<p>" * 30}},
            {"type": "tool_use", "id": "toolu_a1", "name": "add", "input": {"a": "two"}},
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_w1", "content": results[0].content},
            {"type": "tool_result", "tool_use_id": "toolu_a1", "content": results[1].content,
             "is_error": True},
        ]},
    ]  # fmt: skip


async def test_input_cut_at_max_tokens_is_an_error_result_not_a_crash(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, "anthropic")
    cut = ("toolu_c", "write_file", '{"path": "/big.txt", "content": "aaaa')  # eager, unfinished
    server.reply(
        reply(anthropic_events(calls=[cut], stop_reason="max_tokens")),
        reply(anthropic_events("I ran out of room.")),
    )
    thread = await new_thread(rt, "anthropic")
    events = await collect(thread, "write a big file")

    started = [e for e in events if isinstance(e, tl.ToolCallStartedEvent)]
    assert [e.progress for e in started] == ["/big.txt"]  # the progress value came early
    assert first_calls(thread)[0].arguments == cut[2]  # kept as the text the model sent
    result = next(m for m in thread.messages if m.role == "tool")
    assert result.tool_status == "error"
    assert thread.messages[-1].content == "I ran out of room."
    assert thread.files.stat_sync("/big.txt") is None
    # The malformed call goes back as an empty input (the API takes objects only) with its error.
    history = server.requests[1].body["messages"]
    assert history[1]["content"][0]["input"] == {}
    assert history[2]["content"][0]["is_error"] is True
    assert json.loads(events[-1].model_dump_json())["status"] == "completed"


async def test_tool_choice_required_and_a_named_tool(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, "anthropic", max_tokens=100, temperature=0)
    for choice, parallel in (("required", True), ("add", False)):
        tl.define_prompt(
            "p", prompt="t", model="remote", tools=["add"], tool_choice=choice,
            parallel_tool_calls=parallel, registry=registry,
        )  # fmt: skip
        server.reply(reply(anthropic_events("ok")))
        thread = await new_thread(rt, "anthropic")
        run = await thread.send("x")
        assert run.status == "completed"
    first, second = (r.body for r in server.requests)
    assert first["tool_choice"] == {"type": "any"}
    assert second["tool_choice"] == {
        "type": "tool",
        "name": "add",
        "disable_parallel_tool_use": True,
    }
    assert first["max_tokens"] == 100
    assert first["temperature"] == 0  # an option this SDK release does not name still goes
