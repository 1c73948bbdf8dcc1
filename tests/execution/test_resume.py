"""`thread.resume()` and `thread.stream()` with no message: a run that starts from what the
stored history leaves open rather than from a new user message."""

from __future__ import annotations

from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FunctionModel, call, step, text

from ..helpers import scripted_prompt


def define_note(registry: tl.Registry, ran: list[str]) -> None:
    async def note(state: tl.ThreadState, args: dict[str, Any]) -> str:
        ran.append(args["text"])
        return f"noted {args['text']}"

    tl.define_tool(
        "note",
        description="Take a note.",
        execute=note,
        args={"type": "object", "properties": {"text": {"type": "string"}}},
        registry=registry,
    )


def leave_open(thread: tl.Thread, *calls: tl.ToolCall, answered: int = 0) -> None:
    """A stored history that ends with an assistant message whose calls after the first
    `answered` have no results: what a fork at a call leaves (written through the thread's
    own persistence, as a run would)."""
    context = thread._context
    user = tl.Message(role="user", content="take notes")
    assistant = tl.Message(role="assistant", tool_calls=calls)
    results = [
        tl.Message(role="tool", content="noted earlier", tool_call_id=c.id, name=c.name,
                   tool_status="success")
        for c in calls[:answered]
    ]  # fmt: skip
    context.persist([user, assistant, *results])


async def test_nothing_open_is_a_completed_run_without_a_model_call(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    model = scripted_prompt(registry, [text("hello")])
    thread = await rt.create_thread("p")
    await thread.send("hi")
    model.assert_complete()
    before = len(thread.messages)
    run = await thread.resume()  # the scripted model has no step left: a call would fail
    assert run.status == "completed"
    assert len(thread.messages) == before
    # Streamed, it still ends with its run's end (a stream's reader waits for one).
    events = [e async for e in thread.stream()]
    assert [(e.type, e.status) for e in events if isinstance(e, tl.RunFinishedEvent)] == [
        ("run_finished", "completed")
    ]
    assert [e.type for e in events] == ["run_finished"]
    fresh = await rt.create_thread("p")  # nothing at all yet
    assert [e.type async for e in fresh.stream()] == ["run_finished"]


async def test_open_calls_run_in_order_then_the_turn_goes_on(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    define_note(registry, ran)
    requests: list[list[str]] = []

    def model(messages: list[tl.Message], tools: Any) -> Any:
        requests.append([m.role for m in messages])
        return text("all noted")

    tl.define_prompt("p", prompt="x", model=FunctionModel(model), tools=["note"],
                     registry=registry)  # fmt: skip
    thread = await rt.create_thread("p")
    calls = [tl.ToolCall(f"call_{i}", "note", {"text": f"n{i}"}) for i in range(3)]
    leave_open(thread, *calls, answered=1)
    run = await thread.resume()
    assert run.status == "completed"
    assert run.text == "all noted"
    assert ran == ["n1", "n2"]  # the answered call is not run again; the others in order
    roles = [(m.role, m.tool_call_id) for m in thread.messages]
    assert roles == [
        ("user", None), ("assistant", None), ("tool", "call_0"), ("tool", "call_1"),
        ("tool", "call_2"), ("assistant", None),
    ]  # fmt: skip
    assert requests == [["system", "user", "assistant", "tool", "tool", "tool"]]
    statuses = [e.status for e in thread.events if isinstance(e, tl.ThreadStatusEvent)]
    assert statuses == ["running", "idle"]


async def test_a_history_ending_with_a_user_message_gets_its_turn(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    failing = [True]

    def model(messages: list[tl.Message], tools: Any) -> Any:
        if failing[0]:
            failing[0] = False
            raise RuntimeError("the provider is down")
        return text(f"answering {messages[-1].content}")

    tl.define_prompt("p", prompt="x", model=FunctionModel(model), registry=registry)
    thread = await rt.create_thread("p")
    assert (await thread.send("question")).status == "failed"
    assert thread.messages[-1].role == "user"
    run = await thread.resume()
    assert (run.status, run.text) == ("completed", "answering question")


async def test_stream_without_a_message_resumes_as_events(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    define_note(registry, ran)
    scripted_prompt(registry, [step(call("note", {"text": "more"})), text("done")],
                    tools=["note"])  # fmt: skip
    thread = await rt.create_thread("p")
    leave_open(thread, tl.ToolCall("call_open", "note", {"text": "open"}))
    events = [e async for e in thread.stream()]
    assert [e.name for e in events if isinstance(e, tl.ToolCallStartedEvent)] == ["note", "note"]
    assert ran == ["open", "more"]
    finished = events[-1]
    assert isinstance(finished, tl.RunFinishedEvent)
    assert (finished.status, finished.text) == ("completed", "done")


async def test_resume_names_a_definition_that_no_longer_exists(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    scripted_prompt(registry, [text("hi")])
    thread = await rt.create_thread("p")
    await thread.send("hi")
    reopened = tl.Runtime(tl.Registry(), rt.store).thread(thread.id)
    with pytest.raises(tl.DefinitionError, match="'p'"):
        await reopened.resume()


async def test_a_dual_ai_session_goes_on_from_the_side_whose_call_was_open(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    from .test_subagents import helper

    helper(registry)  # side A's `finish` ends the session (session_stop)
    thread = await rt.create_thread("helper")
    thread._context.persist(
        [
            tl.Message(role="user", content="the task", side="a"),
            tl.Message(role="assistant", tool_calls=(tl.ToolCall("call_f", "finish", {}),),
                       side="a"),
        ]
    )  # fmt: skip
    run = await thread.resume()
    assert run.status == "completed"
    assert (await thread.files.read("/attachments/out.txt")) == b"work on: the task"
    result = thread.messages[-1]
    assert (result.role, result.tool_call_id, result.side) == ("tool", "call_f", "a")


async def test_a_thread_whose_definitions_are_gone_still_forks(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    define_note(registry, ran)
    scripted_prompt(registry, [call("note", {"text": "a"}, id="call_a"), text("done")],
                    tools=["note"])  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    elsewhere = tl.Runtime(tl.Registry(), rt.store)  # a kernel that defines nothing
    branch = await elsewhere.thread(thread.id).fork("call_a", result="edited")
    assert [m.content for m in branch.messages if m.role == "tool"] == ["edited"]
    with pytest.raises(tl.DefinitionError, match="'p'"):
        await branch.resume()  # resume says which definition is missing
