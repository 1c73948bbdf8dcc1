"""`progress_argument` and `tool_call_started`, as hook and as event."""

from __future__ import annotations

import json
from typing import Any

import threadlab as tl
from threadlab.models import call, step, text

from ..helpers import scripted_prompt

WRITE_SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "content": {"type": "string"},
        "description": {"type": "string", "description": 'e.g. "writing index.html"'},
    },
    "required": ["path", "content", "description"],
}


def define_write(registry: tl.Registry, progress: str | None = "description", **kw: Any) -> None:
    tl.define_tool(
        "write_file",
        description="Write a file.",
        args=WRITE_SCHEMA,
        execute=lambda s, a: "written",
        progress_argument=progress,
        registry=registry,
        **kw,
    )


def events_of(events: list[tl.ThreadEvent], *types: str) -> list[tl.ThreadEvent]:
    return [e for e in events if e.type in types]


def started(events: list[tl.ThreadEvent]) -> list[tl.ToolCallStartedEvent]:
    return [e for e in events if isinstance(e, tl.ToolCallStartedEvent)]


async def collect(thread: tl.Thread, message: str) -> list[tl.ThreadEvent]:
    return [event async for event in thread.stream(message)]


async def test_started_fires_once_in_the_chunk_that_completes_the_progress_argument(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define_write(registry)
    args = {"description": "writing index.html", "path": "/index.html", "content": "x" * 500}
    scripted_prompt(registry, [call("write_file", args), text("ok")], tools=["write_file"])
    thread = await rt.create_thread("p")
    events = events_of(await collect(thread, "go"), "tool_call_delta", "tool_call_started")
    started = [i for i, e in enumerate(events) if e.type == "tool_call_started"]
    assert len(started) == 1
    event = events[started[0]]
    assert isinstance(event, tl.ToolCallStartedEvent)
    assert event.progress == "writing index.html"
    # The delta right before it is the one holding the closing quote of the value.
    deltas = [e.delta for e in events[: started[0]] if isinstance(e, tl.ToolCallDeltaEvent)]
    assert len(deltas) == started[0]
    streamed = "".join(deltas)
    before_last = "".join(deltas[:-1])
    complete_value = json.dumps(args["description"])
    assert complete_value in streamed
    assert complete_value not in before_last
    assert '"content"' not in streamed
    # Most of the large argument is still to come when the card can show progress.
    remaining = "".join(
        e.delta for e in events[started[0] + 1 :] if isinstance(e, tl.ToolCallDeltaEvent)
    )
    assert len(remaining) > 500


async def test_the_progress_argument_is_moved_first_in_the_schema_sent_to_the_model(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define_write(registry)
    model = scripted_prompt(registry, [text("ok")], tools=["write_file"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    (spec,) = model.requests[0].tools
    assert list(spec.parameters["properties"]) == ["description", "path", "content"]
    assert spec.parameters["required"][0] == "description"


async def test_without_progress_argument_started_fires_as_soon_as_the_call_appears(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define_write(registry, progress=None)
    args = {"path": "/a", "content": "y" * 100, "description": "d"}
    scripted_prompt(registry, [call("write_file", args), text("ok")], tools=["write_file"])
    thread = await rt.create_thread("p")
    events = events_of(await collect(thread, "go"), "tool_call_delta", "tool_call_started")
    assert events[0].type == "tool_call_delta"
    assert events[0].delta == ""
    assert events[1].type == "tool_call_started"
    assert events[1].progress is None
    assert sum(e.type == "tool_call_started" for e in events) == 1


async def test_progress_argument_never_emitted_fires_when_the_arguments_complete(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    schema = dict(WRITE_SCHEMA, required=["path"])
    tl.define_tool(
        "write_file",
        description="W.",
        args=schema,
        execute=lambda s, a: "w",
        progress_argument="description",
        registry=registry,
    )
    scripted_prompt(
        registry,
        [call("write_file", {"path": "/a", "content": "z" * 50}), text("ok")],
        tools=["write_file"],
    )
    thread = await rt.create_thread("p")
    events = await collect(thread, "go")
    calls = events_of(events, "tool_call_delta", "tool_call_started")
    assert calls[-1].type == "tool_call_started"
    assert calls[-1].progress is None
    assert sum(e.type == "tool_call_started" for e in calls) == 1
    # ...and before the call is executed.
    kinds = [e.type for e in events]
    assert kinds.index("tool_call_started") < kinds.index("tool_call_finished")


async def test_a_call_delivered_whole_still_fires_started_once_with_progress(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define_write(registry)
    args = {"path": "/a", "content": "c", "description": "writing a"}
    scripted_prompt(
        registry, [call("write_file", args), text("ok")], tools=["write_file"], chunk_size=10_000
    )
    thread = await rt.create_thread("p")
    events = events_of(await collect(thread, "go"), "tool_call_delta", "tool_call_started")
    # One announce chunk, one chunk with the whole arguments, then started.
    assert [e.type for e in events] == ["tool_call_delta", "tool_call_delta", "tool_call_started"]
    assert isinstance(events[2], tl.ToolCallStartedEvent)
    assert events[2].progress == "writing a"


async def test_escaped_progress_text_split_across_chunks_is_decoded(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define_write(registry)
    phrase = 'fixing "quoted" \\ name é\n'
    args = {"description": phrase, "path": "/a", "content": "c"}
    scripted_prompt(
        registry, [call("write_file", args), text("ok")], tools=["write_file"], chunk_size=1
    )
    thread = await rt.create_thread("p")
    events = started(await collect(thread, "go"))
    assert events[0].progress == phrase


async def test_each_of_several_calls_fires_exactly_once(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define_write(registry)
    tl.define_tool("ping", description="Ping.", execute=lambda s, a: "pong", registry=registry)
    calls = [
        call("write_file", {"description": f"writing {i}", "path": f"/{i}", "content": "c"})
        for i in range(3)
    ]
    scripted_prompt(
        registry, [step(*calls, call("ping")), text("ok")], tools=["write_file", "ping"]
    )
    thread = await rt.create_thread("p")
    events = started(await collect(thread, "go"))
    assert [e.progress for e in events] == [
        "writing 0",
        "writing 1",
        "writing 2",
        None,
    ]
    assert len({e.tool_call_id for e in events}) == 4


async def test_the_tool_call_started_hook_receives_the_event(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    seen: list[tuple[str, str | None]] = []

    async def on_started(state: tl.ThreadState, event: tl.ToolCallStartedEvent) -> None:
        seen.append((state.thread_id, event.progress))

    tl.define_hook(hook="tool_call_started", id="watch", execute=on_started, registry=registry)
    define_write(registry)
    args = {"description": "writing x", "path": "/x", "content": "c"}
    scripted_prompt(
        registry, [call("write_file", args), text("ok")], tools=["write_file"], hooks=["watch"]
    )
    thread = await rt.create_thread("p")
    await thread.send("go")
    assert seen == [(thread.id, "writing x")]


async def test_started_events_are_persisted_with_the_thread(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define_write(registry)
    args = {"description": "writing y", "path": "/y", "content": "c"}
    scripted_prompt(registry, [call("write_file", args), text("ok")], tools=["write_file"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    persisted = [e for e in thread.events if isinstance(e, tl.ToolCallStartedEvent)]
    assert [e.progress for e in persisted] == ["writing y"]
    assert persisted[0].thread_path == (thread.id,)
