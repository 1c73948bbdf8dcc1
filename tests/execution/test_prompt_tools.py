"""Prompts exposed as tools run a nested turn; SubpromptConfig shapes the result."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

import threadlab as tl
from threadlab.models import ScriptedModel, call, step, text

from ..helpers import tool_messages


def researcher(registry: tl.Registry, steps: list[Any], **kw: Any) -> ScriptedModel:
    tl.define_tool(
        "search", description="Search.", execute=lambda s, a: "found it", registry=registry
    )
    tl.define_tool("fail", description="Fails.", execute=lambda s, a: 1 / 0, registry=registry)
    model = ScriptedModel(steps)
    tl.define_prompt(
        "researcher",
        prompt="Research.",
        model=model,
        tools=["search", "fail"],
        expose_as_tool=True,
        tool_description="Researches a question.",
        registry=registry,
        **kw,
    )
    return model


def caller(registry: tl.Registry, steps: list[Any], tools: list[Any], **kw: Any) -> ScriptedModel:
    model = ScriptedModel(steps)
    tl.define_prompt("main", prompt="Main.", model=model, tools=tools, registry=registry, **kw)
    return model


NESTED_STEPS = [step(call("search"), call("fail")), text("the answer is 42")]


async def test_a_prompt_tool_runs_a_nested_turn_and_returns_shaped_json(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    inner = researcher(registry, NESTED_STEPS)
    outer = caller(
        registry, [call("researcher", {"message": "what is it?"}), text("done")], ["researcher"]
    )
    thread = await rt.create_thread("main")
    run = await thread.send("go")
    assert run.text == "done"
    inner.assert_complete()
    outer.assert_complete()
    (result,) = tool_messages(thread)
    assert result.tool_status == "success"
    assert json.loads(result.content or "") == {
        "text": "the answer is 42",
        "tool_calls": [{"name": "search", "arguments": {}, "result": "found it"}],
        "errors": [{"name": "fail", "error": "ZeroDivisionError: division by zero"}],
    }
    # The nested user message is the `message` argument; the nested prompt saw nothing else.
    assert [m.role for m in inner.requests[0].messages] == ["system", "user"]
    assert inner.requests[0].messages[1].content == "what is it?"


async def test_nested_messages_are_linked_and_kept_out_of_the_top_level(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    researcher(registry, NESTED_STEPS)
    caller(registry, [call("researcher", {"message": "q"}), text("done")], ["researcher"])
    thread = await rt.create_thread("main")
    events = [e async for e in thread.stream("go")]
    top = thread.messages
    assert [m.role for m in top] == ["user", "assistant", "tool", "assistant"]
    nested = [m for m in thread.all_messages() if m.depth == 1]
    assert [m.role for m in nested] == ["user", "assistant", "tool", "tool", "assistant"]
    caller_message, caller_call = top[1], top[1].tool_calls[0]
    assert all(m.parent_id == caller_message.id for m in nested)
    assert all(m.parent_tool_call_id == caller_call.id for m in nested)
    # Events show the nesting.
    nested_started = [e for e in events if isinstance(e, tl.ToolCallStartedEvent) and e.depth == 1]
    assert [e.name for e in nested_started] == ["search", "fail"]
    assert {e.parent_tool_call_id for e in nested_started} == {caller_call.id}
    # all_messages keeps creation order: the nested turn sits between call and result.
    order = [(m.depth, m.role) for m in thread.all_messages()]
    assert order.index((1, "user")) < order.index((0, "tool"))


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        ({"include_tool_calls": False, "include_errors": False}, "the answer is 42"),
        (
            {"include_text_response": False, "include_errors": False},
            {"tool_calls": [{"name": "search", "arguments": {}, "result": "found it"}]},
        ),
        (
            {"include_text_response": False, "include_tool_calls": False},
            {"errors": [{"name": "fail", "error": "ZeroDivisionError: division by zero"}]},
        ),
        (
            {"include_tool_calls": False},
            {
                "text": "the answer is 42",
                "errors": [{"name": "fail", "error": "ZeroDivisionError: division by zero"}],
            },
        ),
    ],
)
async def test_subprompt_config_shapes_exactly_what_returns(
    rt: tl.Runtime, registry: tl.Registry, flags: dict[str, bool], expected: Any
) -> None:
    researcher(registry, NESTED_STEPS)
    caller(
        registry,
        [call("researcher", {"message": "q"}), text("done")],
        [tl.SubpromptConfig("researcher", **flags)],
    )
    thread = await rt.create_thread("main")
    await thread.send("go")
    content = tool_messages(thread)[0].content or ""
    assert (content if isinstance(expected, str) else json.loads(content)) == expected


class Question(BaseModel):
    topic: str
    files: list[str]
    depth: int = 1


async def test_required_schema_init_properties_and_same_thread_attachments(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    inner = researcher(registry, [text("read it")], required_schema=Question)
    caller(
        registry,
        [
            call("researcher", {"topic": "cats", "files": ["/attachments/cats.txt"]}),
            call("researcher", {"topic": "dogs", "files": ["/attachments/none.txt"]}),
            call("researcher", {"topic": 3}),
            text("done"),
        ],
        [
            tl.SubpromptConfig(
                "researcher", init_user_message_property="topic", init_attachments_property="files"
            )
        ],
    )
    thread = await rt.create_thread("main")
    await thread.files.write("/attachments/cats.txt", "meow")
    await thread.send("go")
    first, missing, invalid = tool_messages(thread)
    assert first.tool_status == "success"
    nested_user = next(m for m in thread.all_messages() if m.depth == 1 and m.role == "user")
    assert nested_user.content == "cats"
    assert nested_user.attachments == ("/attachments/cats.txt",)
    assert inner.requests[0].messages[1].attachments == ("/attachments/cats.txt",)
    assert missing.tool_status == "error"
    assert "/attachments/none.txt not found in thread" in (missing.content or "")
    assert invalid.tool_status == "error"
    assert "- topic: Input should be a valid string" in (invalid.content or "")
    assert "- files: Field required" in (invalid.content or "")


async def test_without_init_property_the_nested_message_is_the_json_of_the_arguments(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    inner = researcher(registry, [text("ok")], required_schema=Question)
    caller(
        registry, [call("researcher", {"topic": "t", "files": []}), text("done")], ["researcher"]
    )
    thread = await rt.create_thread("main")
    await thread.send("go")
    assert json.loads(inner.requests[0].messages[1].content or "") == {
        "topic": "t",
        "files": [],
        "depth": 1,
    }


async def test_the_nested_prompt_sees_the_callers_history_only_with_its_flags(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    inner = researcher(registry, [text("a"), text("b")])
    caller(
        registry,
        [
            call("researcher", {"message": "q1"}),
            text("first done"),
            call("researcher", {"message": "q2"}),
            text("second done"),
        ],
        ["researcher"],
    )
    thread = await rt.create_thread("main")
    await thread.send("turn one")
    tl.define_prompt(
        "researcher",
        prompt="Research.",
        model=inner,
        tools=["search"],
        expose_as_tool=True,
        include_chat=True,
        registry=registry,
    )
    await thread.send("turn two")
    blind, seeing = (r.messages for r in inner.requests)
    assert [m.content for m in blind if m.role == "user"] == ["q1"]
    seen_users = [m.content for m in seeing if m.role == "user"]
    assert seen_users[-1] == "q2"
    assert "turn two" in seen_users  # the caller's history, by include_chat
    assert not any(m.role == "tool" for m in seeing)  # no include_past_tools


async def test_a_prompt_that_is_not_exposed_cannot_be_listed_as_a_tool(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_prompt("private", prompt="x", registry=registry)
    tl.define_prompt("main", prompt="x", tools=["private"], registry=registry)
    with pytest.raises(tl.DefinitionError, match="not exposed as a tool"):
        await rt.create_thread("main")


async def test_a_failing_nested_model_is_an_error_result_for_the_caller(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    researcher(registry, [])  # no steps: the nested model fails
    caller(registry, [call("researcher", {"message": "q"}), text("recovered")], ["researcher"])
    thread = await rt.create_thread("main")
    run = await thread.send("go")
    assert run.status == "completed"
    assert run.text == "recovered"
    (result,) = tool_messages(thread)
    assert result.tool_status == "error"
    assert "ScriptedModel has no steps left" in (result.content or "")


async def test_nested_turns_share_the_step_budget(registry: tl.Registry, store_dir: Any) -> None:
    tl.define_tool("ok", description="x", execute=lambda s, a: "ok", registry=registry)
    loop = tl.models.FunctionModel(lambda m, t: call("ok"))
    tl.define_prompt(
        "researcher", prompt="x", model=loop, tools=["ok"], expose_as_tool=True, registry=registry
    )
    caller(registry, [call("researcher", {"message": "q"}), text("x")], ["researcher"])
    rt = tl.Runtime(registry, store_dir, secret_key="k", max_steps=5)
    thread = await rt.create_thread("main")
    run = await thread.send("go")
    assert run.status == "stopped"
    assert "max_steps (5)" in (run.error or "")
    model_calls = [m for m in thread.all_messages() if m.role == "assistant"]
    assert len(model_calls) == 5
    rt.close()


async def test_a_thread_model_override_leaves_a_prompt_tools_own_model(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    inner = researcher(registry, NESTED_STEPS)
    declared = caller(registry, [text("never asked")], ["researcher"])
    override = ScriptedModel([call("researcher", {"message": "what is it?"}), text("done")])
    thread = await rt.create_thread("main", model=override)
    run = await thread.send("go")
    assert run.text == "done"
    override.assert_complete()  # the thread's own prompt used the override...
    inner.assert_complete()  # ...and the prompt tool kept the model it declares
    assert declared.remaining == 1
