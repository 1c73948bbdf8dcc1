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


async def test_text_streams_as_deltas_and_usage_is_recorded(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, tools=())
    answer_text = "Hello there, friend. " * 10
    server.reply(reply(*chat_chunks(answer_text, size=4)))
    thread = await new_thread(rt)
    events = await collect(thread, "hi")

    deltas = [e.delta for e in events if isinstance(e, tl.TextDeltaEvent)]
    # Live text is held back only as much as redacting a split secret (the key) needs.
    assert len(deltas) > 30
    assert "".join(deltas) == answer_text
    answer = thread.messages[-1]
    assert answer.content == answer_text
    assert answer.usage == {"input_tokens": 12, "output_tokens": 7, "cached_tokens": 3}
    server.reply(reply(*chat_chunks("Again", usage=(20, 1, 0))))
    run = await thread.send("once more")
    assert run.usage == {"input_tokens": 20, "output_tokens": 1, "cached_tokens": 0}

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


async def test_several_calls_in_one_response_run_in_order_and_go_back_paired(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server)
    server.reply(reply(*chat_chunks(calls=[WRITE, ADD], size=5)), reply(*chat_chunks("done")))
    thread = await new_thread(rt)
    events = await collect(thread, "build it")

    started = [e for e in events if isinstance(e, tl.ToolCallStartedEvent)]
    assert [(e.tool_call_id, e.name, e.progress) for e in started] == [
        ("call_w1", "write_file", "/index.html"),
        ("call_a1", "add", None),
    ]
    # The card can say "writing index.html" while the content is still streaming.
    write_deltas = [
        i for i, e in enumerate(events) if isinstance(e, tl.ToolCallDeltaEvent) and e.delta
    ]
    assert events.index(started[0]) < write_deltas[-1]
    results = [m for m in thread.messages if m.role == "tool"]
    assert [(m.tool_call_id, m.content) for m in results] == [
        ("call_w1", "wrote 11 characters to /index.html"),
        ("call_a1", "5"),
    ]
    assert thread.files.read_sync("/index.html") == b"<h1>hi</h1>"

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


async def test_argument_chunks_split_inside_strings_escapes_and_multibyte_characters(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server)
    content = 'line one\nline "two" \\ é 😀 \u2028 end'
    raw = json.dumps({"path": "/notes/ü.txt", "content": content})  # escapes: \n \" \\ \ud83d
    call = ("call_x", "write_file", raw)
    server.reply(reply(*chat_chunks(calls=[call], size=1)), reply(*chat_chunks("ok")))
    thread = await new_thread(rt)
    events = await collect(thread, "write")

    started = [e for e in events if isinstance(e, tl.ToolCallStartedEvent)]
    assert len(started) == 1
    assert started[0].progress == "/notes/ü.txt"
    assert first_calls(thread)[0].arguments == {"path": "/notes/ü.txt", "content": content}
    assert thread.files.read_sync("/notes/ü.txt").decode() == content


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
