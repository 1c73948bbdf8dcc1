"""What a server asks and tells in the middle of a call, heard by threadlab as its client:
an elicitation is answered by the runtime's elicitor (defaults filled in) or declined, and is
recorded on the call; log messages become events of the call; an image a server also puts in
its structured content reaches the model as a file, not as base64 text; a tool that runs only
as an MCP task is not offered. The servers: the tests' own over stdio, and the npm
"everything" server."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import (
    FinishChunk,
    FunctionModel,
    ModelRequest,
    ScriptedModel,
    Step,
    TextChunk,
    call,
    step,
    text,
)

from .conftest import stdio_server
from .stdio_server import PIXEL

pytestmark = pytest.mark.processes  # it starts MCP servers in their own processes


async def run_with(
    registry: tl.Registry, store: Path, calls: list[tuple[str, dict[str, Any]]], **runtime: Any
) -> tuple[tl.Thread, tl.Runtime]:
    command, *args = stdio_server()
    tl.define_mcp_server("local", command=command, args=args, registry=registry)
    model = ScriptedModel([*(call(name, arguments) for name, arguments in calls), text("done")])
    tl.define_prompt("p", prompt="Use the tools.", model=model, tools=["mcp:local"],
                     registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store, **runtime)
    thread = await rt.create_thread("p")
    await thread.send("go")
    return thread, rt


def tool_results(thread: tl.Thread) -> list[str]:
    """What each tool returned (the SDK's server sends a str result as structured content
    {"result": ...}, which is what the model reads)."""
    return [json.loads(m.content or "")["result"] for m in thread.messages if m.role == "tool"]


def custom(thread: tl.Thread, kind: str) -> list[tl.CustomEvent]:
    return [e for e in thread.events if isinstance(e, tl.CustomEvent) and e.event_type == kind]


async def test_an_elicitation_is_answered_by_the_elicitor_with_the_forms_defaults(
    registry: tl.Registry, store_dir: Path
) -> None:
    asked: list[tl.Elicitation] = []

    async def person(question: tl.Elicitation) -> dict[str, Any]:
        asked.append(question)
        return {"confirm": True, "size": 5}  # colour left out: its default goes

    thread, rt = await run_with(registry, store_dir, [("ask", {})], elicitor=person)
    try:
        assert tool_results(thread) == ["colour=green size=5 confirm=True"]
        (question,) = asked
        call_id = next(m for m in thread.messages if m.tool_calls).tool_calls[0].id
        assert (question.server, question.message) == ("local", "Your preferences?")
        assert (question.thread_id, question.tool_call_id) == (thread.id, call_id)
        assert question.schema["properties"]["colour"]["default"] == "green"
        (recorded,) = custom(thread, "elicitation")
        assert recorded.tool_call_id == call_id
        assert recorded.data == {
            "server": "local", "message": "Your preferences?", "action": "accept",
            "answer": {"confirm": True, "size": 5, "colour": "green"},
        }  # fmt: skip
    finally:
        await rt.aclose()


def declines(question: tl.Elicitation) -> None:
    return None


def fails(question: tl.Elicitation) -> dict[str, Any]:
    raise RuntimeError("the person's window closed")


@pytest.mark.parametrize("elicitor", [None, declines, fails])
async def test_without_an_answer_the_elicitation_is_declined_not_a_result_with_an_error(
    registry: tl.Registry, store_dir: Path, elicitor: Any
) -> None:
    thread, rt = await run_with(registry, store_dir, [("ask", {})], elicitor=elicitor)
    try:
        (answer,) = [m for m in thread.messages if m.role == "tool"]
        assert answer.tool_status == "success"  # the server's own answer to a refusal
        (said,) = tool_results(thread)
        (recorded,) = custom(thread, "elicitation")
        assert said == f"the user chose to {recorded.data['action']}"
        assert recorded.data["action"] == ("cancel" if elicitor is not None and
                                           elicitor.__name__ == "fails" else "decline")  # fmt: skip
        assert "answer" not in recorded.data
    finally:
        await rt.aclose()


async def test_a_servers_log_messages_are_events_of_the_call(
    registry: tl.Registry, store_dir: Path
) -> None:
    thread, rt = await run_with(registry, store_dir, [("chatty", {})])
    try:
        assert tool_results(thread) == ["chatted"]
        logs = custom(thread, "log")
        assert [(e.data["level"], e.data["message"]) for e in logs] == [
            ("info", "looking around"), ("warning", "found a loose end")]  # fmt: skip
        assert {e.tool_call_id for e in logs} == {thread.messages[1].tool_calls[0].id}
    finally:
        await rt.aclose()


async def test_an_image_in_structured_content_is_a_file_for_the_model_not_base64(
    registry: tl.Registry, store_dir: Path
) -> None:
    thread, rt = await run_with(registry, store_dir, [("snapshot", {})])
    try:
        (result,) = [m for m in thread.messages if m.role == "tool"]
        (path,) = result.attachments
        assert PIXEL not in (result.content or "")
        assert f'"data": "[attached: {path}]"' in (result.content or "")
        assert '"name": "pixel.png"' in (result.content or "")
        assert thread.files.read_sync(path).startswith(b"\x89PNG")
    finally:
        await rt.aclose()


async def test_the_everything_servers_form_and_sampling_are_answered_its_task_tool_left_out(
    everything: list[str], registry: tl.Registry, store_dir: Path
) -> None:
    """server-everything (the 2025 protocol, as the servers in use speak it) lists its
    elicitation tool to a client that answers forms, and a tool that runs only as a task."""
    command, *args = everything
    tl.define_mcp_server("everything", command=command, args=args, sampling_model="offline",
                         registry=registry)  # fmt: skip
    sampling = call("trigger-sampling-request", {"prompt": "Say hi", "maxTokens": 20})
    asks = step(call("trigger-elicitation-request", {}), sampling)
    model = ScriptedModel([asks, text("done")])
    tl.define_prompt("p", prompt="Use the tools.", model=model, tools=["mcp:everything"],
                     registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store_dir, elicitor=lambda asked: {"name": "Ada"})
    try:
        thread = await rt.create_thread("p")
        assert (await thread.send("go")).status == "completed"
        offered = [t.name for t in registry.tools() if t.mcp_server == "everything"]
        assert "trigger-elicitation-request" in offered
        assert "simulate-research-query" not in offered  # execution.taskSupport "required"
        result, sampled = [m.content or "" for m in thread.messages if m.role == "tool"]
        assert "- Name: Ada" in result
        assert "- Favorite Integer: 42" in result  # the form's default, filled in
        assert '"model": "offline"' in sampled  # answered by sampling_model
        assert (
            "(offline model) You said: Resource trigger-sampling-request context: Say hi" in sampled
        )
        tl.define_mcp_server("named", command=command, args=args,
                             tools=["simulate-research-query"], registry=registry)  # fmt: skip
        tl.define_prompt("q", prompt="x", tools=["mcp:named"], registry=registry)
        with pytest.raises(tl.DefinitionError, match="runs only as an MCP task"):
            await (await rt.create_thread("q")).send("go")
    finally:
        await rt.aclose()


async def test_a_sampling_request_is_answered_by_the_threads_own_model(
    registry: tl.Registry, store_dir: Path
) -> None:
    command, *args = stdio_server()
    tl.define_mcp_server("local", command=command, args=args, registry=registry)

    def author(messages: list[tl.Message], tools: list[Any]) -> Step:
        if not tools:  # the server's request: no tools offered
            return text(f"in short: {messages[-1].content}")
        if messages[-1].role == "tool":
            return text("done")
        return call("summarise", {"text": "threadlab runs agent tools in notebooks"})

    tl.define_prompt("p", prompt="x", model=FunctionModel(author), tools=["mcp:local"],
                     registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store_dir)
    try:
        thread = await rt.create_thread("p")
        assert (await thread.send("go")).status == "completed"
        (said,) = tool_results(thread)
        assert said == "summary by author: in short: threadlab runs agent tools in notebooks"
        (sampled,) = custom(thread, "sampling")
        assert (sampled.data["server"], sampled.data["model"]) == ("local", "author")
        assert sampled.tool_call_id == thread.messages[1].tool_calls[0].id
    finally:
        await rt.aclose()


class Counting:
    """A model that answers briefly and counts 7 tokens a step."""

    name = "counting"

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        self.requests.append(request)
        yield TextChunk("brief")
        yield FinishChunk(usage={"input_tokens": 5, "output_tokens": 2})


async def test_sampling_uses_the_servers_model_and_the_runs_budget(
    registry: tl.Registry, store_dir: Path
) -> None:
    """A request's output limit is what the budget has left once its messages are allowed
    for (a byte of their text a token, and a few a message); one they would not fit is
    refused, so sampling never spends past the budget."""
    command, *args = stdio_server()
    counting = Counting()
    tl.define_mcp_server("local", command=command, args=args, sampling_model=counting,
                         registry=registry)  # fmt: skip
    longer = "b" * 40
    both = step(call("summarise", {"text": "a"}), call("summarise", {"text": longer}))
    model = ScriptedModel([both, text("done")])
    tl.define_prompt("p", prompt="x", model=model, tools=["mcp:local"], registry=registry)
    rt = tl.Runtime(registry, store_dir, budget=tl.Budget(max_tokens=80))
    try:
        thread = await rt.create_thread("p")
        run = await thread.send("go")
        first, second = [m.content or "" for m in thread.messages if m.role == "tool"]
        assert json.loads(first)["result"] == "summary by counting: brief"
        # 80, less the allowance for "Summarise in a line." and "a": (20 + 16) + (1 + 16) + 16
        assert counting.requests[0].max_output_tokens == 80 - 69
        assert (
            "sampling refused: the run's budget of 80 tokens has 73 left (7 spent), and this"
            " request's messages may take 108 of them" in second
        )
        assert len(counting.requests) == 1
        sampled, refused = custom(thread, "sampling")
        assert sampled.data["usage"] == {"input_tokens": 5, "output_tokens": 2}
        assert "has 73 left" in refused.data["refused"]
        assert run.usage == {"input_tokens": 5, "output_tokens": 2}  # the sampling's
    finally:
        await rt.aclose()


async def test_a_gated_servers_sampling_is_put_to_the_person_with_what_the_model_is_sent(
    registry: tl.Registry, store_dir: Path
) -> None:
    command, *args = stdio_server()
    tl.define_mcp_server("local", command=command, args=args, sampling_model=Counting(),
                         approval="always", registry=registry)  # fmt: skip
    both = step(call("summarise", {"text": "alpha"}), call("summarise", {"text": "beta"}))
    tl.define_prompt("p", prompt="x", model=ScriptedModel([both, text("done")]),
                     tools=["mcp:local"], registry=registry)  # fmt: skip
    asked: list[tl.Elicitation] = []

    def person(question: tl.Elicitation) -> dict[str, Any] | None:
        asked.append(question)
        return {} if len(asked) == 1 else None  # lets the first answer, declines the second

    rt = tl.Runtime(registry, store_dir, approver=lambda request: True, elicitor=person)
    try:
        thread = await rt.create_thread("p")
        await thread.send("go")
        first, second = [m.content or "" for m in thread.messages if m.role == "tool"]
        assert json.loads(first)["result"] == "summary by counting: brief"
        assert "sampling refused: the person declined it" in second
        assert [q.tool_call_id for q in asked] == [c.id for c in thread.messages[1].tool_calls]
        assert asked[0].message.startswith("may the model counting answer this (up to 50 tokens)?")
        assert "alpha" in asked[0].message
        assert "beta" in asked[1].message
        answered, refused = custom(thread, "sampling")
        assert answered.data["model"] == "counting"
        assert refused.data == {"server": "local", "refused": "the person declined it"}
    finally:
        await rt.aclose()

    # with nobody to ask, the server hears no
    tl.define_prompt("q", prompt="x", model=ScriptedModel([call("summarise", {"text": "a"}),
                     text("done")]), tools=["mcp:local"], registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store_dir, approver=lambda request: True)
    try:
        thread = await rt.create_thread("q")
        await thread.send("go")
        (said,) = [m.content or "" for m in thread.messages if m.role == "tool"]
        assert "it needs a person's approval and there is nobody to ask" in said
    finally:
        await rt.aclose()


async def test_a_form_too_big_to_read_is_declined_unshown(
    registry: tl.Registry, store_dir: Path
) -> None:
    asked: list[tl.Elicitation] = []

    def person(question: tl.Elicitation) -> dict[str, Any]:
        asked.append(question)
        return {}

    thread, rt = await run_with(registry, store_dir, [("crowd", {})], elicitor=person)
    try:
        assert tool_results(thread) == ["the user chose to decline"]
        assert asked == []  # nobody was shown 500 fields
        (record,) = custom(thread, "elicitation")
        assert record.data["refused"] == "it has 500 fields (at most 50 are shown)"
    finally:
        await rt.aclose()
