"""Chat Completions on the wire: the official `openai` SDK against the scripted server."""

from __future__ import annotations

import json

import threadlab as tl

from ._protocols import chat_args, chat_call_start, chat_chunk, chat_chunks, chat_frames
from ._server import Reply, ScriptedServer
from ._setup import (
    KEY,
    arguments,
    collect,
    first_calls,
    new_thread,
    remote_prompt,
)

WRITE = ("call_w1", "write_file", arguments({"path": "/index.html", "content": "<h1>hi</h1>"}))
ADD = ("call_a1", "add", arguments({"a": 2, "b": 3}))


def reply(*chunks: dict[str, object], **kw: object) -> Reply:
    return Reply(frames=chat_frames(chunks), **kw)  # type: ignore[arg-type]


async def test_a_request_without_tools_asks_for_a_stream_with_usage(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, tools=())
    server.reply(reply(*chat_chunks("Hello.")))
    thread = await new_thread(rt)
    await thread.send("hi")

    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {KEY}"
    assert sent.body["model"] == "test-model"
    assert sent.body["stream"] is True
    assert sent.body["stream_options"] == {"include_usage": True}
    assert sent.body["messages"] == [
        {"role": "system", "content": "You are a test."},
        {"role": "user", "content": "hi"},
    ]
    assert "tools" not in sent.body


async def test_calls_go_back_as_one_assistant_message_and_a_tool_message_each(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server)
    server.reply(reply(*chat_chunks(calls=[WRITE, ADD], size=5)), reply(*chat_chunks("done")))
    thread = await new_thread(rt)
    await thread.send("build it")
    results = [m for m in thread.messages if m.role == "tool"]

    second = server.requests[1].body["messages"]
    assert second[2] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_w1", "type": "function", "function": {"name": "write_file",
             "arguments": json.dumps({"path": "/index.html", "content": "<h1>hi</h1>"},
                                     separators=(",", ":"))}},
            {"id": "call_a1", "type": "function", "function": {"name": "add",
             "arguments": '{"a":2,"b":3}'}},
        ],
    }  # fmt: skip
    assert second[3:] == [
        {"role": "tool", "tool_call_id": "call_w1", "content": results[0].content},
        {"role": "tool", "tool_call_id": "call_a1", "content": "5"},
    ]


async def test_ollama_reuses_index_0_and_sends_each_call_whole(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server)

    def whole(call: tuple[str, str, str]) -> dict[str, object]:
        start = chat_call_start(0, call)
        start["tool_calls"][0]["function"]["arguments"] = call[2]
        return chat_chunk(start)

    server.reply(
        reply(chat_chunk({"role": "assistant", "content": ""}), whole(WRITE), whole(ADD),
              chat_chunk({}, finish="tool_calls")),
        reply(*chat_chunks("ok", usage=None)),
    )  # fmt: skip
    thread = await new_thread(rt)
    events = await collect(thread, "go")

    started = [e for e in events if isinstance(e, tl.ToolCallStartedEvent)]
    assert [e.tool_call_id for e in started] == ["call_w1", "call_a1"]
    calls = first_calls(thread)
    assert [(c.id, c.name) for c in calls] == [("call_w1", "write_file"), ("call_a1", "add")]
    assert calls[1].arguments == {"a": 2, "b": 3}
    assert thread.messages[-1].usage is None  # this server reported none


async def test_gemini_sends_no_index(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server)
    server.reply(
        reply(
            chat_chunk(chat_call_start(None, WRITE)),
            chat_chunk(chat_args(None, WRITE[2][:10])),
            chat_chunk(chat_args(None, WRITE[2][10:])),
            chat_chunk(chat_call_start(None, ADD)),
            chat_chunk(chat_args(None, ADD[2])),
            chat_chunk({}, finish="tool_calls"),
        ),
        reply(*chat_chunks("ok")),
    )
    thread = await new_thread(rt)
    await collect(thread, "go")

    calls = first_calls(thread)
    assert [(c.id, c.arguments) for c in calls] == [
        ("call_w1", {"path": "/index.html", "content": "<h1>hi</h1>"}),
        ("call_a1", {"a": 2, "b": 3}),
    ]
    assert [m.tool_status for m in thread.messages if m.role == "tool"] == ["success"] * 2


async def test_a_parameterless_call_that_streams_no_arguments_means_empty_object(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    tl.define_tool(
        "ping", description="Ping.", args=None, execute=lambda s, a: "pong", registry=registry
    )
    remote_prompt(registry, server, tools=("ping",))
    announced = chat_chunk(chat_call_start(0, ("call_p", "ping", "")))
    server.reply(reply(announced, chat_chunk({}, finish="tool_calls")), reply(*chat_chunks("ok")))
    thread = await new_thread(rt)
    await thread.send("ping")

    assert first_calls(thread)[0].arguments == {}
    assert [m.content for m in thread.messages if m.role == "tool"] == ["pong"]


async def test_tool_choice_parallel_calls_strict_schemas_and_options_reach_the_request(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, temperature=0.2, max_completion_tokens=300)
    tl.define_prompt(
        "p",
        prompt="You are a test.",
        model="remote",
        tools=["write_file", "add"],
        tool_choice="add",
        parallel_tool_calls=True,
        registry=registry,
    )
    server.reply(reply(*chat_chunks("no")))
    thread = await new_thread(rt)
    await thread.send("x")

    body = server.requests[0].body
    assert body["tool_choice"] == {"type": "function", "function": {"name": "add"}}
    assert body["parallel_tool_calls"] is True
    assert body["temperature"] == 0.2
    assert body["max_completion_tokens"] == 300
    assert "max_retries" not in body
    assert "timeout" not in body
    tools = {t["function"]["name"]: t["function"] for t in body["tools"]}
    assert tools["write_file"]["strict"] is True  # closed, every property required
    assert "strict" not in tools["add"]  # b is optional: sent as declared, not strict
    assert tools["add"]["parameters"]["properties"]["a"] == {"type": "integer"}


async def test_each_dual_ai_side_sends_the_history_as_it_sees_it(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, tools=())
    tl.define_prompt("writer", prompt="Write.", model="remote", registry=registry)
    tl.define_prompt("editor", prompt="Edit.", model="remote", registry=registry)
    tl.define_agent(
        "duo",
        type="dual_ai",
        side_a=tl.Side("writer"),
        side_b=tl.Side("editor"),
        max_session_turns=2,
        registry=registry,
    )
    server.reply(reply(*chat_chunks("Draft one.")), reply(*chat_chunks("Needs a title.")))
    thread = await rt.create_thread("duo", secrets={"OPENAI_API_KEY": KEY})
    await thread.send("Write a haiku.")

    writer, editor = (r.body["messages"] for r in server.requests[:2])
    assert writer == [
        {"role": "system", "content": "Write."},
        {"role": "user", "content": "Write a haiku."},
    ]
    # The editor sees the writer's answer as what it was asked; itself as the assistant.
    assert editor[0] == {"role": "system", "content": "Edit."}
    assert editor[-1] == {"role": "user", "content": "Draft one."}
    assert all(m["role"] != "assistant" for m in editor)
