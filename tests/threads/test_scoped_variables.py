"""Scoped variables block inheritance from the parent, and flow down from the thread
that holds them."""

from __future__ import annotations

import json
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import ScriptedModel, call, text

from ..helpers import tool_messages


def region_reader(registry: tl.Registry, *, scoped: bool, required: bool = False) -> None:
    async def read(state: tl.ThreadState, args: Any) -> Any:
        return {"REGION": await state.env("REGION")}

    tl.define_tool(
        "read_region",
        description="x",
        execute=read,
        registry=registry,
        variables=[tl.Variable("REGION", scoped=scoped, required=required)],
    )


def child_agent(registry: tl.Registry, name: str, tools: list[str], steps: list[Any]) -> None:
    tl.define_prompt(
        f"{name}_a", prompt="x", tools=tools, model=ScriptedModel(steps), registry=registry
    )
    tl.define_prompt(f"{name}_b", prompt="x", registry=registry)
    tl.define_tool("done", description="x", execute=lambda s, a: "done", registry=registry)
    tl.define_agent(
        name,
        type="dual_ai",
        side_a=tl.Side(f"{name}_a", session_stop="done"),
        side_b=f"{name}_b",
        registry=registry,
    )


def parent(registry: tl.Registry, relationship: tl.Subagent) -> None:
    tl.define_prompt(
        "lead",
        prompt="x",
        registry=registry,
        model=ScriptedModel(
            [
                call("subagent_create", {"agent": relationship.name, "name": "c", "message": "go"}),
                text("ok"),
            ]
        ),
    )
    tl.define_agent("root", side_a=tl.Side("lead", subagents=[relationship]), registry=registry)


async def test_a_scoped_variable_is_not_inherited_from_the_parent(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    region_reader(registry, scoped=True)
    child_agent(registry, "child", ["read_region"], [call("read_region"), call("done")])
    parent(registry, tl.Subagent("child"))
    thread = await rt.create_thread("root", env={"REGION": "eu-west"})
    await thread.send("go")
    (child,) = thread.children
    assert json.loads(tool_messages(child)[0].content or "") == {"REGION": None}


async def test_an_unscoped_variable_is_inherited(rt: tl.Runtime, registry: tl.Registry) -> None:
    region_reader(registry, scoped=False)
    child_agent(registry, "child", ["read_region"], [call("read_region"), call("done")])
    parent(registry, tl.Subagent("child"))
    thread = await rt.create_thread("root", env={"REGION": "eu-west"})
    await thread.send("go")
    assert json.loads(tool_messages(thread.children[0])[0].content or "") == {"REGION": "eu-west"}


async def test_a_scoped_value_given_to_the_child_flows_down_to_its_descendants(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    region_reader(registry, scoped=False)  # the grandchild inherits whatever its parent has
    child_agent(registry, "grandchild", ["read_region"], [call("read_region"), call("done")])

    async def own(state: tl.ThreadState, args: Any) -> Any:
        return await state.env("REGION")

    tl.define_tool(
        "own_region",
        description="x",
        execute=own,
        registry=registry,
        variables=[tl.Variable("REGION", scoped=True)],
    )
    tl.define_prompt(
        "middle_a",
        prompt="x",
        tools=["own_region"],
        registry=registry,
        model=ScriptedModel(
            [
                call("own_region"),
                call("subagent_create", {"agent": "grandchild", "name": "g", "message": "go"}),
                call("done"),
            ]
        ),
    )
    tl.define_prompt("middle_b", prompt="x", registry=registry)
    tl.define_agent(
        "middle",
        type="dual_ai",
        registry=registry,
        side_b="middle_b",
        side_a=tl.Side("middle_a", session_stop="done", subagents=[tl.Subagent("grandchild")]),
    )
    parent(registry, tl.Subagent("middle", env={"REGION": "us-east"}))
    thread = await rt.create_thread("root", env={"REGION": "eu-west"})
    await thread.send("go")
    (middle,) = thread.children
    assert tool_messages(middle)[0].content == "us-east"
    (grandchild,) = middle.children
    assert json.loads(tool_messages(grandchild)[0].content or "") == {"REGION": "us-east"}


async def test_create_thread_names_the_relationship_of_a_scoped_variable_that_cannot_resolve(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("REGION", "from-process")  # not a source for a child's scoped variable
    region_reader(registry, scoped=True, required=True)
    child_agent(registry, "child", ["read_region"], [])
    parent(registry, tl.Subagent("child"))
    with pytest.raises(tl.MissingVariableError) as info:
        await rt.create_thread("root", env={"REGION": "eu-west"})
    assert info.value.missing == [("REGION", "tool 'read_region' in subagent 'child'")]
    parent(registry, tl.Subagent("child", env={"REGION": "ap-south"}))
    thread = await rt.create_thread("root")
    assert thread.status == "idle"


async def test_a_required_unscoped_child_variable_may_come_from_the_parent(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    region_reader(registry, scoped=False, required=True)
    child_agent(registry, "child", ["read_region"], [])
    parent(registry, tl.Subagent("child"))
    with pytest.raises(tl.MissingVariableError, match="in subagent 'child'"):
        await rt.create_thread("root")
    assert (await rt.create_thread("root", env={"REGION": "x"})).status == "idle"


async def test_secrets_given_to_the_parent_are_redacted_in_the_child_too(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    async def leak(state: tl.ThreadState, args: Any) -> Any:
        return f"token={await state.env('TOKEN')}"

    tl.define_tool(
        "leak",
        description="x",
        execute=leak,
        registry=registry,
        variables=[tl.Variable("TOKEN", type="secret")],
    )
    child_agent(registry, "child", ["leak"], [call("leak"), call("done")])
    parent(registry, tl.Subagent("child"))
    thread = await rt.create_thread("root", secrets={"TOKEN": "tok-123456789"})
    events = [e async for e in thread.stream("go")]
    (child,) = thread.children
    assert tool_messages(child)[0].content == "token=[secret:TOKEN]"
    assert all("tok-123456789" not in e.model_dump_json() for e in events)
