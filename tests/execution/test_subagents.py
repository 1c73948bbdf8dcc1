"""Subagents with the lifecycle tools, every mode, and attachments across
threads."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import ScriptedModel, call, step, text

from ..helpers import HangingTool, tool_messages


def helper(registry: tl.Registry, reply: Any = None, **agent: Any) -> None:
    """A dual_ai `helper` whose side A writes /attachments/out.txt and finishes at once."""

    async def finish(state: tl.ThreadState, args: dict[str, Any]) -> tl.ToolResult:
        first = state.get_messages()[0]
        await state.write_file("/attachments/out.txt", f"work on: {first.content}")
        if args.get("fail"):
            return tl.ToolResult("success", result="could not", attachments=())
        return tl.ToolResult(result=f"done: {first.content}", attachments=("/attachments/out.txt",))

    tl.define_tool(
        "finish",
        description="Finish.",
        execute=finish,
        registry=registry,
        args={"type": "object", "properties": {"fail": {"type": "boolean"}}},
    )
    model = reply or tl.models.FunctionModel(lambda m, t: call("finish"))
    tl.define_prompt("work", prompt="Work.", model=model, registry=registry)
    tl.define_prompt("check", prompt="Check.", registry=registry)
    tl.define_agent(
        "helper",
        type="dual_ai",
        side_a=tl.Side("work", session_stop="finish"),
        side_b="check",
        tool_description="Does work.",
        registry=registry,
        **agent,
    )


def lead(registry: tl.Registry, steps: list[Any], *relationships: tl.Subagent) -> ScriptedModel:
    model = ScriptedModel(steps)
    tl.define_prompt("lead", prompt="Lead.", model=model, registry=registry)
    tl.define_agent(
        "boss", side_a=tl.Side("lead", subagents=list(relationships)), registry=registry
    )
    return model


def create(name: str = "w1", message: str = "task", **kw: Any) -> Any:
    return call("subagent_create", {"agent": "helper", "name": name, "message": message, **kw})


def create_then(then: Callable[[str], Any]) -> tl.models.FunctionModel:
    """A lead's model: create a child, then `then(its reference)`, then answer."""

    def decide(messages: Any, tools: Any) -> Any:
        results = [m for m in messages if m.role == "tool"]
        if not results:
            return create()
        if len(results) == 1:
            return then(json.loads(results[0].content or "")["reference"])
        return text("done")

    return tl.models.FunctionModel(decide)


async def test_lifecycle_tools_are_offered_with_precise_schemas(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    model = lead(registry, [text("hi")], tl.Subagent("helper"), tl.Subagent("helper2", hidden=True))
    tl.define_agent("helper2", type="dual_ai", side_a="work", side_b="check", registry=registry)
    await (await rt.create_thread("boss")).send("hi")
    specs = {t.name: t for t in model.requests[0].tools}
    assert set(specs) == {"subagents", "subagent_create", "subagent_message"}
    create_schema = specs["subagent_create"].parameters
    assert create_schema["properties"]["agent"]["enum"] == ["helper"]  # hidden not offered
    assert create_schema["required"] == ["agent", "name", "message"]
    assert specs["subagent_message"].parameters["required"] == ["reference", "message"]
    assert "helper: Does work." in specs["subagent_create"].description


async def test_blocking_child_returns_its_session_result_with_attachments_copied_back(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(registry, [create(), text("ok")], tl.Subagent("helper"))
    thread = await rt.create_thread("boss")
    events = [e async for e in thread.stream("go")]
    (child,) = thread.children
    result = json.loads(tool_messages(thread)[0].content or "")
    assert result == {
        "reference": child.id,
        "status": "completed",
        "result": "done: task",
        "attachments": ["/attachments/out.txt"],
    }
    assert await thread.files.read("/attachments/out.txt") == b"work on: task"
    assert child.status == "completed"
    assert (child.name, child.agent, child.blocking, child.resumable) == (
        "w1",
        "helper",
        True,
        False,
    )
    created = [e for e in events if isinstance(e, tl.SubagentCreatedEvent)]
    assert [(e.child_thread_id, e.name) for e in created] == [(child.id, "w1")]
    # The parent's stream carries the child's events too, told apart by thread_path.
    child_events = [e for e in events if e.thread_id == child.id]
    assert child_events
    assert all(e.thread_path == (thread.id, child.id) for e in child_events)


async def test_non_blocking_child_result_arrives_as_a_queued_message_in_the_same_run(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    model = lead(
        registry, [create(), text("waiting"), text("got it")], tl.Subagent("helper", blocking=False)
    )
    thread = await rt.create_thread("boss")
    run = await thread.send("go")
    (child,) = thread.children
    assert json.loads(tool_messages(thread)[0].content or "") == {
        "reference": child.id,
        "status": "running",
    }
    assert run.text == "got it"
    report = next(m for m in thread.messages if m.subagent_id == child.id)
    assert report.role == "user"
    assert (report.content or "").startswith(f"Subagent 'w1' ({child.id}) completed:\ndone: task")
    assert report.attachments == ("/attachments/out.txt",)
    model.assert_complete()


async def test_send_can_return_before_non_blocking_children_finish(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    gate = asyncio.Event()

    async def slow(messages: Any, tools: Any) -> Any:
        await gate.wait()
        return call("finish")

    helper(registry, reply=tl.models.FunctionModel(slow))
    lead(
        registry, [create(), text("started"), text("later")], tl.Subagent("helper", blocking=False)
    )
    thread = await rt.create_thread("boss")
    run = await thread.send("go", wait_children=False)
    assert run.text == "started"
    (child,) = thread.children
    assert child.status == "running"
    gate.set()
    for _ in range(200):
        if rt.store.has_queued(thread.id):
            break
        await asyncio.sleep(0.01)
    second = await thread.send("anything new?")
    assert second.text == "later"
    assert any(m.subagent_id == child.id for m in thread.messages)


async def test_explicit_communication_queues_nothing_but_notify_parent_does(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    async def tell(state: tl.ThreadState, args: Any) -> str:
        await state.write_file("/attachments/note.md", "# note")
        await state.notify_parent("halfway there", attachments=["/attachments/note.md"])
        return "told"

    tl.define_tool("tell", description="Tell.", execute=tell, registry=registry)
    helper(registry, reply=ScriptedModel([call("tell"), call("finish")]))
    tl.define_prompt(
        "work",
        prompt="Work.",
        tools=["tell"],
        registry=registry,
        model=ScriptedModel([call("tell"), call("finish")]),
    )
    lead(
        registry,
        [create(), text("waiting"), text("heard")],
        tl.Subagent("helper", blocking=False, parent_communication="explicit"),
    )
    thread = await rt.create_thread("boss")
    await thread.send("go")
    reports = [m for m in thread.messages if m.subagent_id]
    assert [m.content for m in reports] == ["halfway there"]
    assert reports[0].attachments == ("/attachments/note.md",)
    assert await thread.files.read("/attachments/note.md") == b"# note"


async def test_resumable_children_take_messages_and_persist(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(
        registry,
        [create(), call("subagent_message", {"reference": "REF", "message": "more"}), text("x")],
        tl.Subagent("helper", resumable=True),
    )
    thread = await rt.create_thread("boss")
    # The second step must use the reference the first returned: script it with a function.
    tl.define_prompt(
        "lead",
        prompt="Lead.",
        model=create_then(
            lambda ref: call("subagent_message", {"reference": ref, "message": "more"})
        ),
        registry=registry,
    )
    await thread.send("go")
    (child,) = thread.children
    first, second = (json.loads(m.content or "") for m in tool_messages(thread))
    assert first["status"] == second["status"] == "completed"
    assert second["result"] == "done: task"  # the child's history starts with its first task
    assert [m.content for m in child.messages if m.role == "user"] == ["task", "more"]
    assert child.status == "idle"
    assert child.resumable


async def test_messaging_a_non_resumable_child_or_an_unknown_reference_is_an_error(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)

    def two_messages(ref: str) -> Any:
        return step(
            call("subagent_message", {"reference": ref, "message": "m"}),
            call("subagent_message", {"reference": "thr_nope", "message": "m"}),
        )

    tl.define_prompt("lead", prompt="Lead.", model=create_then(two_messages), registry=registry)
    tl.define_agent(
        "boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]), registry=registry
    )
    thread = await rt.create_thread("boss")
    await thread.send("go")
    _, not_resumable, unknown = tool_messages(thread)
    assert not_resumable.tool_status == "error"
    assert "is not resumable" in (not_resumable.content or "")
    assert unknown.tool_status == "error"
    assert (unknown.content or "").startswith("unknown reference 'thr_nope'")


async def test_max_instances_and_bad_lifecycle_arguments_are_error_results(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(
        registry,
        [
            step(
                create("a"),
                create("b"),
                call("subagent_create", {"agent": "helper", "name": "  ", "message": "m"}),
                call("subagent_create", {"agent": "stranger", "name": "s", "message": "m"}),
                call("subagent_create", {"agent": "helper", "name": "c"}),
            ),
            text("done"),
        ],
        tl.Subagent("helper", max_instances=1),
    )
    thread = await rt.create_thread("boss")
    await thread.send("go")
    ok, capped, blank, stranger, no_message = tool_messages(thread)
    assert ok.tool_status == "success"
    assert "max_instances (1) of subagent 'helper' reached" in (capped.content or "")
    assert blank.tool_status == "error"
    assert "name" in (blank.content or "")
    assert "'stranger' is not one of ['helper']" in (stranger.content or "")
    assert "- (arguments): 'message' is a required property" in (no_message.content or "")
    assert len(thread.children) == 1


async def test_the_subagents_tool_lists_relationships_and_live_children(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(
        registry,
        [create(), call("subagents"), text("done")],
        tl.Subagent("helper", resumable=True, max_instances=3),
    )
    thread = await rt.create_thread("boss")
    await thread.send("go")
    listing = json.loads(tool_messages(thread)[1].content or "")
    (child,) = thread.children
    assert listing == {
        "relationships": [
            {
                "name": "helper",
                "description": "Does work. (blocking, resumable)",
                "blocking": True,
                "resumable": True,
                "instances": 1,
                "max_instances": 3,
            }
        ],
        "children": [{"reference": child.id, "agent": "helper", "name": "w1", "status": "idle"}],
    }


async def test_registry_hook_and_handles(rt: tl.Runtime, registry: tl.Registry) -> None:
    seen: list[tl.ChildInfo] = []
    tl.define_hook(
        hook="after_subagent_created",
        id="track",
        execute=lambda s, c: seen.append(c),
        registry=registry,
    )
    found: list[Any] = []

    def inspect_children(state: tl.ThreadState, args: Any) -> str:
        (info,) = state.children
        child = state.get_child_thread(info.reference)
        assert child is not None
        found.append((info, child.parent_id, state.get_child_thread("thr_unknown")))
        return "ok"

    tl.define_tool("inspect_children", description="x", execute=inspect_children, registry=registry)
    helper(registry)
    tl.define_prompt(
        "lead",
        prompt="Lead.",
        tools=["inspect_children"],
        registry=registry,
        model=ScriptedModel([create(), call("inspect_children"), text("done")]),
    )
    tl.define_agent(
        "boss",
        side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]),
        hooks=["track"],
        registry=registry,
    )
    thread = await rt.create_thread("boss")
    await thread.send("go")
    (child,) = thread.children
    assert [c.reference for c in seen] == [child.id]
    (info, parent_id, unknown) = found[0]
    assert (info.reference, info.agent, info.name, info.status) == (
        child.id,
        "helper",
        "w1",
        "completed",
    )
    assert parent_id == thread.id
    assert unknown is None
    assert child.parent_id is not None
    assert rt.thread(child.parent_id) is thread


async def test_optional_relationships_follow_their_env_flag(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    model = lead(registry, [text("a"), text("b")], tl.Subagent("helper", optional="USE_WORKER"))
    off = await rt.create_thread("boss", env={"USE_WORKER": "no"})
    await off.send("x")
    on = await rt.create_thread("boss", env={"USE_WORKER": "Yes"})
    await on.send("x")
    assert [len(r.tools) for r in model.requests] == [0, 3]


async def test_immediate_children_start_before_the_first_model_call(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    model = lead(
        registry,
        [text("started"), text("reported")],
        tl.Subagent("helper", immediate=True, hidden=True),
    )
    thread = await rt.create_thread("boss")
    run = await thread.send("kick off")
    (child,) = thread.children
    assert child.messages[0].content == "kick off"
    assert run.text == "reported"
    assert not model.requests[0].tools  # hidden: no lifecycle tools
    model.assert_complete()


async def test_cancelling_the_parent_cancels_and_repairs_its_children(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    hang = HangingTool("never")

    tl.define_tool("hang", description="x", execute=hang, registry=registry)
    helper(registry, reply=ScriptedModel([call("hang")]))
    tl.define_prompt(
        "work",
        prompt="Work.",
        tools=["hang"],
        model=ScriptedModel([call("hang")]),
        registry=registry,
    )
    lead(registry, [create(), text("x")], tl.Subagent("helper", blocking=False))
    thread = await rt.create_thread("boss")
    task = asyncio.create_task(thread.send("go"))
    await hang.entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    (child,) = thread.children
    assert child.status == "terminated"
    results = [m for m in child.messages if m.role == "tool"]
    assert [m.content for m in results] == [
        "interrupted: the run was stopped before this call finished",
    ]


async def test_messages_to_a_busy_child_are_queued_in_order_never_interleaved(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    order: list[str] = []

    async def record(messages: Any, tools: Any) -> Any:
        last_user = [m.content for m in messages if m.role == "user"][-1]
        if messages[-1].role == "user":
            order.append(f"start {last_user}")
            await asyncio.sleep(0.02)
            return call("finish")
        order.append(f"end {last_user}")
        return text("done")

    helper(registry, reply=tl.models.FunctionModel(record))
    tl.define_prompt(
        "work", prompt="Work.", model=tl.models.FunctionModel(record), registry=registry
    )

    def three_messages(ref: str) -> Any:
        return step(
            *[call("subagent_message", {"reference": ref, "message": f"m{i}"}) for i in range(3)]
        )

    tl.define_prompt("lead", prompt="Lead.", model=create_then(three_messages), registry=registry)
    tl.define_agent(
        "boss",
        side_a=tl.Side("lead", subagents=[tl.Subagent("helper", blocking=False, resumable=True)]),
        registry=registry,
    )
    thread = await rt.create_thread("boss")
    await thread.send("go")
    starts = [o for o in order if o.startswith("start")]
    assert starts == ["start task", "start m0", "start m1", "start m2"]
    (child,) = thread.children
    user_messages = [m.content for m in child.messages if m.role == "user"]
    assert user_messages == ["task", "m0", "m1", "m2"]


async def test_attachments_are_validated_then_copied_with_rewritten_paths(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(
        registry,
        [
            step(
                create("a", attachments=["/data/in.csv", "/attachments/in.csv"]),
                create("b", attachments=["/data/in.csv", "/missing.txt"]),
                create("c", attachments=["../../etc/passwd"]),
            ),
            text("done"),
        ],
        tl.Subagent("helper"),
    )
    thread = await rt.create_thread("boss")
    await thread.files.write("/data/in.csv", "a,b")
    await thread.files.write("/attachments/in.csv", "other content")
    await thread.send("go")
    ok, missing, hostile = tool_messages(thread)
    assert ok.tool_status == "success"
    assert missing.tool_status == "error"
    assert f"/missing.txt not found in thread {thread.id}" in (missing.content or "")
    assert hostile.tool_status == "error"
    assert "is relative" in (hostile.content or "")
    (child,) = thread.children  # nothing was created for the failed calls
    first = child.messages[0]
    assert first.attachments == ("/attachments/in.csv", "/attachments/in-2.csv")
    assert await child.files.read("/attachments/in.csv") == b"a,b"
    assert await child.files.read("/attachments/in-2.csv") == b"other content"


async def test_attachments_given_to_many_children_share_stored_content(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(
        registry,
        [step(*[create(f"w{i}", attachments=["/big.bin"]) for i in range(20)]), text("done")],
        tl.Subagent("helper"),
    )
    thread = await rt.create_thread("boss")
    await thread.files.write("/big.bin", b"\x01" * (50 * 1024 * 1024))
    rt.store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[attr-defined]
    db_file = rt.store.path  # type: ignore[attr-defined]
    before = db_file.stat().st_size
    await thread.send("go")
    rt.store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[attr-defined]
    added = db_file.stat().st_size - before
    assert len(thread.children) == 20
    assert all(c.messages[0].attachments == ("/attachments/big.bin",) for c in thread.children)
    assert added < 1024 * 1024, added


async def test_a_dual_ai_childs_first_message_is_addressed_to_side_a(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(registry, [create(message="build it"), text("done")], tl.Subagent("helper"))
    thread = await rt.create_thread("boss")
    await thread.send("go")
    (child,) = thread.children
    first = child.messages[0]
    assert (first.role, first.content, first.side) == ("user", "build it", "a")


async def test_after_subagent_created_hooks_see_the_running_execution(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    seen: list[tl.ExecutionInfo | None] = []
    tl.define_hook(
        hook="after_subagent_created",
        id="track",
        execute=lambda state, info: seen.append(state.execution),
        registry=registry,
    )
    helper(registry)
    model = ScriptedModel([create(), text("done")])
    tl.define_prompt("lead", prompt="Lead.", model=model, hooks=["track"], registry=registry)
    tl.define_agent(
        "boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]), registry=registry
    )
    thread = await rt.create_thread("boss")
    run = await thread.send("go")
    (execution,) = seen
    assert execution is not None
    assert (execution.run_id, execution.prompt, execution.step) == (run.id, "lead", 1)


async def test_an_attachment_copy_that_cannot_happen_creates_no_child(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    name = "p" * 250 + ".html"  # 255 bytes: valid, but "-2" makes a twin's name too long
    helper(registry)
    lead(
        registry,
        [create(attachments=[f"/a/{name}", f"/b/{name}"]), create(name="w2"), text("done")],
        tl.Subagent("helper", max_instances=1),
    )
    thread = await rt.create_thread("boss")
    await thread.files.write(f"/a/{name}", "one")
    await thread.files.write(f"/b/{name}", "two")
    await thread.send("go")
    failed, created = tool_messages(thread)
    assert failed.tool_status == "error"
    assert "longer than 255 bytes" in (failed.content or "")
    # No orphan took the one instance allowed, and no file was announced that does not exist.
    assert created.tool_status == "success"
    assert [c.name for c in thread.children] == ["w2"]
    written = [e for c in thread.children for e in c.events if e.type == "file_written"]
    assert all(e.path == "/attachments/out.txt" for e in written)


async def test_instance_names_are_unique_per_parent(rt: tl.Runtime, registry: tl.Registry) -> None:
    helper(registry)
    lead(
        registry,
        [step(create(name="w"), create(name="w"), create(name="w")), text("done")],
        tl.Subagent("helper"),
    )
    thread = await rt.create_thread("boss")
    await thread.send("go")
    assert [c.name for c in thread.children] == ["w", "w-2", "w-3"]


async def test_two_children_handing_back_the_same_path_keep_both_files(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(
        registry,
        [create(name="w1", message="one"), create(name="w2", message="two"), text("done")],
        tl.Subagent("helper"),
    )
    thread = await rt.create_thread("boss")
    await thread.send("go")
    first, second = (json.loads(m.content or "") for m in tool_messages(thread))
    assert first["attachments"] == ["/attachments/out.txt"]
    assert second["attachments"] == ["/attachments/out-2.txt"]  # never the first one's path
    assert await thread.files.read("/attachments/out.txt") == b"work on: one"
    assert await thread.files.read("/attachments/out-2.txt") == b"work on: two"
