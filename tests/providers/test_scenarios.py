"""What a run does with a streamed answer, the same through each of the three APIs: text
streams as deltas and each step's usage is recorded, calls run in order with their progress
shown while their arguments still stream, argument text split anywhere is put back together,
and an argument of the wrong type is an error result the model sees. (What each API sends and
expects on the wire is in its own file.)"""

from __future__ import annotations

import json

import pytest

import threadlab as tl

from ._protocols import PROVIDERS, provider_frames
from ._server import Reply, ScriptedServer
from ._setup import arguments, collect, first_calls, new_thread, remote_prompt

pytestmark = pytest.mark.parametrize("provider", PROVIDERS)

WRITE = ("call_w1", "write_file", arguments({"path": "/site/index.html", "content": "<p>" * 30}))
ADD = ("call_a1", "add", arguments({"a": 2, "b": 3}))


def reply(provider: str, text: str | None = None, calls: tuple[tuple[str, str, str], ...] = (),
          *, size: int = 8, usage: tuple[int, int, int] = (12, 7, 3)) -> Reply:  # fmt: skip
    return Reply(frames=provider_frames(provider, text, calls, size=size, usage=usage))


def recorded_usage(provider: str, input_tokens: int, output: int, cached: int) -> dict[str, int]:
    """The usage threadlab records for a step the API reported as (input, output, cached):
    input is all the input, as OpenAI counts it; Anthropic reports its uncached input apart
    from the cached, and how many tokens it wrote to its cache."""
    if provider == "anthropic":
        return {"input_tokens": input_tokens + cached, "output_tokens": output,
                "cached_tokens": cached, "cache_write_tokens": 0}  # fmt: skip
    return {"input_tokens": input_tokens, "output_tokens": output, "cached_tokens": cached}


async def test_text_streams_as_deltas_and_each_steps_usage_is_recorded(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider, tools=())
    answer = "Hello there, friend. " * 10
    server.reply(reply(provider, answer, size=4, usage=(12, 7, 3)))
    thread = await new_thread(rt, provider)
    events = await collect(thread, "hi")

    deltas = [e.delta for e in events if isinstance(e, tl.TextDeltaEvent)]
    # Live text is held back only as much as redacting a split secret (the key) needs.
    assert len(deltas) > 30
    assert "".join(deltas) == answer
    assert thread.messages[-1].content == answer
    assert thread.messages[-1].usage == recorded_usage(provider, 12, 7, 3)
    server.reply(reply(provider, "Again", usage=(20, 1, 0)))
    run = await thread.send("once more")
    assert run.status == "completed"
    assert run.usage == recorded_usage(provider, 20, 1, 0)


async def test_calls_run_in_order_and_progress_shows_while_the_arguments_stream(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider)
    server.reply(
        reply(provider, "Writing now.", (WRITE, ADD), size=5),
        reply(provider, "Done.", usage=(50, 9, 40)),
    )
    thread = await new_thread(rt, provider)
    events = await collect(thread, "build")

    started = [e for e in events if isinstance(e, tl.ToolCallStartedEvent)]
    assert [(e.tool_call_id, e.name, e.progress) for e in started] == [
        ("call_w1", "write_file", "/site/index.html"),
        ("call_a1", "add", None),
    ]
    # The card can say "writing index.html" while the content is still streaming.
    pieces = [i for i, e in enumerate(events) if isinstance(e, tl.ToolCallDeltaEvent) and e.delta]
    assert events.index(started[0]) < pieces[-1]
    assert [(m.role, m.tool_call_id) for m in thread.messages] == [
        ("user", None),
        ("assistant", None),
        ("tool", "call_w1"),
        ("tool", "call_a1"),
        ("assistant", None),
    ]
    assert thread.messages[1].content == "Writing now."
    assert [m.content for m in thread.messages[2:4]] == [
        "wrote 90 characters to /site/index.html",
        "5",
    ]
    assert thread.files.read_sync("/site/index.html") == b"<p>" * 30
    assert thread.messages[-1].content == "Done."
    assert thread.messages[-1].usage == recorded_usage(provider, 50, 9, 40)
    # Each call's results went back to the model in the next request.
    assert len(server.requests) == 2
    assert "wrote 90 characters to /site/index.html" in strings_in(server.requests[1].body)


async def test_argument_text_split_inside_strings_escapes_and_characters_is_whole_again(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider)
    content = 'line one\nline "two" \\ é 😀 \u2028 end'
    raw = json.dumps({"path": "/notes/ü.txt", "content": content})  # escapes: \n \" \\ \ud83d
    server.reply(reply(provider, calls=(("call_x", "write_file", raw),), size=1),
                 reply(provider, "ok"))  # fmt: skip
    thread = await new_thread(rt, provider)
    events = await collect(thread, "write")

    started = [e for e in events if isinstance(e, tl.ToolCallStartedEvent)]
    assert [e.progress for e in started] == ["/notes/ü.txt"]
    assert first_calls(thread)[0].arguments == {"path": "/notes/ü.txt", "content": content}
    assert thread.files.read_sync("/notes/ü.txt").decode() == content


async def test_an_argument_of_the_wrong_type_is_an_error_result_and_the_run_goes_on(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider)
    wrong = ("call_bad", "add", arguments({"a": "two"}))
    server.reply(reply(provider, calls=(wrong, ADD)), reply(provider, "Fixed it."))
    thread = await new_thread(rt, provider)
    run = await thread.send("add")

    assert run.status == "completed"
    results = [m for m in thread.messages if m.role == "tool"]
    assert [(m.tool_call_id, m.tool_status) for m in results] == [
        ("call_bad", "error"),
        ("call_a1", "success"),
    ]
    assert results[0].content == (
        "invalid arguments for tool 'add':\n- a: 'two' is not of type 'integer'"
    )
    assert results[1].content == "5"  # the next call still ran, in order
    # The model is told what was wrong, in the next request.
    assert results[0].content in strings_in(server.requests[1].body)


def strings_in(value: object) -> set[str]:
    """Every string in a JSON value, at any depth."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return {s for v in value.values() for s in strings_in(v)}
    if isinstance(value, list):
        return {s for v in value for s in strings_in(v)}
    return set()
