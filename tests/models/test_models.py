from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import jsonschema
import pytest
from pydantic import BaseModel

import threadlab as tl
from threadlab.models import (
    FinishChunk,
    ModelRequest,
    OfflineModel,
    ScriptedModel,
    TextChunk,
    ToolCallChunk,
    ToolSpec,
    call,
    step,
    text,
)


async def chunks_of(model: Any, request: ModelRequest) -> list[Any]:
    return [chunk async for chunk in model.stream(request)]


def request(user: str = "hi", tools: Sequence[ToolSpec] = (), **kw: Any) -> ModelRequest:
    return ModelRequest(messages=[tl.Message(role="user", content=user)], tools=tools, **kw)


async def test_scripted_calls_stream_the_exact_json_in_chunk_size_slices() -> None:
    args = {"b": 1, "a": "x" * 20}
    model = ScriptedModel([call("t", args, id="c1")], chunk_size=8)
    chunks = await chunks_of(model, request())
    assert chunks[0] == ToolCallChunk(index=0, id="c1", name="t")
    pieces = [c.arguments for c in chunks[1:-1]]
    assert "".join(pieces) == json.dumps(args)
    assert all(len(p) == 8 for p in pieces[:-1])
    assert isinstance(chunks[-1], FinishChunk)


async def test_scripted_text_and_several_calls_in_one_step() -> None:
    model = ScriptedModel([step(call("a"), call("b", {"x": 1}), text="thinking")], chunk_size=4)
    chunks = await chunks_of(model, request())
    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == "thinking"
    names = [c.name for c in chunks if isinstance(c, ToolCallChunk) and c.name]
    assert names == ["a", "b"]
    assert [c.index for c in chunks if isinstance(c, ToolCallChunk) and c.name] == [0, 1]


async def test_raw_arguments_are_sent_verbatim() -> None:
    model = ScriptedModel([call("t", raw_arguments="{oops")], chunk_size=100)
    chunks = await chunks_of(model, request())
    assert chunks[1].arguments == "{oops"


def test_assert_complete_reports_unplayed_steps() -> None:
    model = ScriptedModel([text("a"), text("b")])
    with pytest.raises(AssertionError, match="2 of 2 steps were not played"):
        model.assert_complete()


async def test_function_model_accepts_sync_and_async_functions_and_strings() -> None:
    async def decide(messages: list[tl.Message], tools: list[ToolSpec]) -> Any:
        return f"{len(messages)} messages, {len(tools)} tools"

    chunks = await chunks_of(tl.models.FunctionModel(decide), request())
    assert "".join(c.text for c in chunks if isinstance(c, TextChunk)) == "1 messages, 0 tools"
    sync = tl.models.FunctionModel(lambda m, t: call("x"))
    assert (await chunks_of(sync, request()))[0].name == "x"


class Booking(BaseModel):
    description: str
    path: str
    content: str
    nights: int
    guests: list[str]
    when: str | None = None


async def test_offline_model_calls_each_tool_once_with_valid_arguments_then_answers() -> None:
    schema = Booking.model_json_schema()
    spec = ToolSpec("write_file", "Write.", schema, progress_argument="description")
    other = ToolSpec(
        "lookup",
        "Look up.",
        {
            "type": "object",
            "properties": {"query": {"type": "string", "minLength": 3}},
            "required": ["query"],
        },
    )
    model = OfflineModel()
    first = model.decide(request("build a landing page", [spec, other]))
    assert [c.name for c in first.calls] == ["write_file"]
    args = first.calls[0].args
    assert args is not None
    jsonschema.validate(args, schema)
    assert args["description"] == "writing index.html"
    assert args["path"] == "/index.html"
    assert "<html>" in args["content"]
    assert list(args)[:1] == ["description"] or "description" in args

    parallel = model.decide(request("x", [spec, other], parallel_tool_calls=True))
    assert [c.name for c in parallel.calls] == ["write_file", "lookup"]
    assert parallel.calls[1].args == {"query": "x" + "xx"}


def test_offline_model_takes_numbers_from_the_message_in_order() -> None:
    numbers = {"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}}
    add = ToolSpec("add", "Add two numbers.", numbers)
    assert OfflineModel().decide(request("What is 2 + 3?", [add])).calls[0].args == {"a": 2, "b": 3}
    mixed = {
        "type": "object",
        "properties": {
            "nights": {"type": "integer", "minimum": 1},  # skips 0 and 2.5, takes 4
            "price": {"type": "number"},  # the first number left: 7
            "guests": {"type": "integer", "maximum": 10},  # none left: the fallback
        },
    }
    book = ToolSpec("book", "Book.", mixed)
    args = OfflineModel().decide(request("0 rooms at 2.5, 4 nights, 7 euros", [book])).calls[0].args
    assert args == {"nights": 4, "price": 7.0, "guests": 1}
    assert OfflineModel().decide(request("no numbers", [add])).calls[0].args == {"a": 1, "b": 1}
    # A number too long for a float is not an argument: the arguments stay valid JSON.
    huge = OfflineModel().decide(request("9" * 400 + " plus 3", [add])).calls[0].args
    assert huge == {"a": 3, "b": 1}
    price = ToolSpec("price", "Price.", {"type": "object", "properties": {"x": {"type": "number"}}})
    assert OfflineModel().decide(request("9" * 400, [price])).calls[0].args == {"x": 1.0}
    # Only a message's first numbers are read: a long one is not scanned to its end.
    five = ToolSpec("five", "Five.", {"type": "object", "properties": {
        "n": {"type": "integer", "minimum": 5}}})  # fmt: skip
    assert OfflineModel().decide(request("1 " * 64 + "7", [five])).calls[0].args == {"n": 5}
    assert OfflineModel().decide(request("1 " * 63 + "7", [five])).calls[0].args == {"n": 7}


async def test_offline_model_is_deterministic_and_answers_with_what_tools_returned(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool(
        "shout",
        description="Shout.",
        registry=registry,
        args={"type": "object", "properties": {"text": {"type": "string"}}},
        execute=lambda s, a: a["text"].upper(),
    )
    tl.define_prompt("p", prompt="x", tools=["shout"], registry=registry)
    answers = []
    for _ in range(2):
        thread = await rt.create_thread("p")
        run = await thread.send("hello there")
        answers.append(run.text)
        assert [m.role for m in thread.messages] == ["user", "assistant", "tool", "assistant"]
    assert answers[0] == answers[1]
    assert (
        answers[0]
        == "(offline model) I called the tools I was given:\n- shout returned: HELLO THERE"
    )


async def test_offline_model_streams_in_small_chunks() -> None:
    spec = ToolSpec("w", "W.", Booking.model_json_schema(), progress_argument="description")
    chunks = await chunks_of(OfflineModel(chunk_size=16), request("page", [spec]))
    argument_chunks = [c for c in chunks if isinstance(c, ToolCallChunk) and not c.name]
    assert len(argument_chunks) > 10
    assert all(len(c.arguments) <= 16 for c in argument_chunks)


async def test_a_model_object_overrides_the_prompt_model(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_prompt("p", prompt="x", registry=registry)
    thread = await rt.create_thread("p", model=ScriptedModel([text("scripted answer")]))
    assert (await thread.send("hi")).text == "scripted answer"


async def test_named_offline_models_and_unavailable_providers(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_model(
        "slow_offline",
        provider="offline",
        model="offline",
        options={"chunk_size": 4},
        registry=registry,
    )
    tl.define_prompt("p", prompt="x", model="slow_offline", registry=registry)
    assert (await (await rt.create_thread("p")).send("hi")).status == "completed"
    tl.define_model("gpt", provider="openai", model="gpt-4o", registry=registry)
    tl.define_prompt("q", prompt="x", model="gpt", registry=registry)
    with pytest.raises(tl.MissingVariableError, match="OPENAI_API_KEY"):
        await rt.create_thread("q")
