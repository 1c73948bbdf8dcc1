"""thread.history_points() and thread.snapshot(at): a thread as of any point of its history,
the same cut a fork at that point copies, read without writing anything."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, step, text

from ..helpers import HangingTool
from .test_subagents import helper

SECRET = "a-secret-of-the-lead"


def lead_with_a_child(registry: tl.Registry) -> None:
    """A lead that saves a file, changes a variable, creates a child that hands back a file,
    saves again, and answers."""
    helper(registry)

    async def save(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.write_file(args["path"], args["text"])
        return f"saved {args['path']}"

    async def mood(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.set_env("MOOD", args["mood"])
        return f"mood is {args['mood']}"

    for name, execute, fields in (("save", save, ("path", "text")), ("mood", mood, ("mood",))):
        schema = {
            "type": "object",
            "properties": {field: {"type": "string"} for field in fields},
            "required": list(fields),
        }
        tl.define_tool(name, description=name, execute=execute, args=schema, registry=registry)
    steps = [
        step(call("save", {"path": "/a.txt", "text": "v1"}, id="call_a1"),
             call("mood", {"mood": "busy"}, id="call_mood")),
        call("subagent_create", {"agent": "helper", "name": "w1", "message": "task"},
             id="call_child"),
        call("save", {"path": "/a.txt", "text": "v2"}, id="call_a2"),
        text("done"),
    ]  # fmt: skip
    tl.define_prompt(
        "lead",
        prompt="Lead.",
        model=tl.models.ScriptedModel(steps),
        tools=["save", "mood"],
        registry=registry,
        variables=[tl.Variable("KEY", type="secret")],
    )
    tl.define_agent(
        "boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]), registry=registry
    )


async def made(rt: tl.Runtime, registry: tl.Registry) -> tl.Thread:
    lead_with_a_child(registry)
    thread = await rt.create_thread("boss", env={"MOOD": "calm"}, secrets={"KEY": SECRET})
    assert (await thread.send("go")).status == "completed"
    assert all(m.tool_status == "success" for m in thread.messages if m.role == "tool")
    return thread


async def test_a_snapshot_holds_what_a_fork_at_the_same_point_copies(
    store_spec: str, registry: tl.Registry
) -> None:
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await made(rt, registry)
    ids = [m.id for m in thread.messages] + ["call_a1", "call_mood", "call_child", "call_a2"]
    for at in ids:
        snap = thread.snapshot(at)
        branch = await thread.fork(at)
        assert [m.id for m in snap.messages] == [m.id for m in branch.messages], at
        files = {f.path: await branch.files.read(f.path) for f in await branch.files.list()}
        assert snap.files == files, at
        assert [(c.name, c.status) for c in snap.children] == [
            (c.name, c.status) for c in branch.children
        ], at
        _, value = rt.store.get_env(branch.id)["MOOD"]
        assert snap.env["MOOD"] == (value or b"").decode(), at
    # Three points told apart: before anything ran, between the two saves, at the end.
    first = thread.snapshot(thread.messages[0].id)
    assert (first.files, first.env, first.children) == (
        {},
        {"KEY": "[secret:KEY]", "MOOD": "calm"},
        [],
    )
    middle = thread.snapshot("call_a2")
    assert middle.files == {"/a.txt": b"v1", "/attachments/out.txt": b"work on: task"}
    assert middle.env["MOOD"] == "busy"
    assert [(c.name, c.reference, c.status) for c in middle.children] == [
        ("w1", thread.children[0].id, "completed")
    ]
    end = thread.snapshot(-1)
    assert end.files["/a.txt"] == b"v2"
    assert end.messages == thread.messages
    assert SECRET not in repr([first, middle, end])
    rt.close()


async def test_the_history_points_interleave_the_childrens_in_stored_order(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread = await made(rt, registry)
    (child,) = thread.children
    points = thread.history_points()
    assert [p.seq for p in points] == sorted(p.seq for p in points)
    assert {p.thread_id for p in points} == {thread.id, child.id}
    assert "thread_status" not in {p.kind for p in points}
    own = [p for p in points if p.thread_id == thread.id]
    assert [(p.kind, p.id) for p in own if p.kind == "message_created"] == [
        ("message_created", m.id) for m in thread.messages
    ]
    (created,) = [p for p in points if p.kind == "subagent_created"]
    assert created.id == child.id
    # The child's whole first session sits inside the lead's call that created it.
    child_points = [i for i, p in enumerate(points) if p.thread_id == child.id]
    asked, reported = (
        i for i, p in enumerate(points) if p.kind.startswith("tool_call_") and p.id == "call_child"
    )
    assert asked < min(child_points)
    assert max(child_points) < reported
    # The points about a call are those whose id is its call's.
    about = {p.kind for p in points if p.about_call}
    assert about == {"tool_call_started", "tool_call_finished"}
    assert all(p.id.startswith("call_") for p in points if p.about_call)
    # At a point of the child's, the lead is cut there too: its child is still at work.
    during = thread.snapshot(child_points[0])
    assert [(c.name, c.status) for c in during.children] == [("w1", "running")]
    assert [m.id for m in during.messages] == [m.id for m in thread.messages[:5]]
    # An index and the id of the same message cut at the same place.
    user = next(i for i, p in enumerate(points) if p.id == thread.messages[0].id)
    assert thread.snapshot(user) == thread.snapshot(thread.messages[0].id)


async def test_reading_a_snapshot_writes_nothing(rt: tl.Runtime, registry: tl.Registry) -> None:
    thread = await made(rt, registry)
    before = (len(rt.store.list_threads()), len(list(rt.store.iter_events(thread.id))))
    for index in range(len(thread.history_points())):
        thread.snapshot(index)
    assert (len(rt.store.list_threads()), len(list(rt.store.iter_events(thread.id)))) == before


async def test_a_running_thread_can_be_read_where_a_fork_is_refused(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    hanging = HangingTool("released")
    tl.define_tool("wait", description="Wait.", execute=hanging, registry=registry)
    tl.define_prompt(
        "p",
        prompt="x",
        model=tl.models.ScriptedModel([call("wait", id="call_w"), text("ok")]),
        tools=["wait"],
        registry=registry,
    )
    thread = await rt.create_thread("p")
    running = asyncio.ensure_future(thread.send("go"))
    await hanging.entered.wait()
    snap = thread.snapshot("call_w")
    assert [m.role for m in snap.messages] == ["user", "assistant"]
    with pytest.raises(tl.ThreadBusyError):
        await thread.fork("call_w")
    hanging.release.set()
    assert (await running).status == "completed"
    assert [m.role for m in thread.snapshot(-1).messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]


async def test_a_point_that_is_not_there_is_refused_by_name(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread = await made(rt, registry)
    with pytest.raises(tl.ThreadlabError, match="'msg_nope' is neither a message nor a tool call"):
        thread.snapshot("msg_nope")
    count = len(thread.history_points())
    with pytest.raises(
        tl.ThreadlabError, match=f"point {count} is outside .* \\({count} points\\)"
    ):
        thread.snapshot(count)
    assert thread.snapshot(-count).messages == thread.messages[:1]


async def test_a_blocking_childs_creation_is_a_point_before_any_of_its_own(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # Its announcement is stored with the call that made it, after the child's run: the point
    # goes where the child began, and a snapshot there shows the child just begun.
    thread = await made(rt, registry)
    (child,) = thread.children
    points = thread.history_points()
    (created,) = [i for i, p in enumerate(points) if p.kind == "subagent_created"]
    own = [i for i, p in enumerate(points) if p.thread_id == child.id]
    assert created < own[0]
    assert [p.seq for p in points] == sorted(p.seq for p in points)
    then = thread.snapshot(created)
    assert [(c.reference, c.status) for c in then.children] == [(child.id, "running")]
