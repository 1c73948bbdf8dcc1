"""Tool calls that need a decision (`approval=`): a run pauses before such a call with
everything before it persisted ("waiting"); `thread.approve` / `reject` and `resume()` go
on, in order; an approver decides instead when the runtime has one, and one that fails
rejects the call. A waiting thread is decided from another Runtime (another process) too."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FunctionModel, call, step, text

from ..helpers import killed_script, scripted_prompt


@pytest.fixture
def rt(registry: tl.Registry, store_spec: str) -> Iterator[tl.Runtime]:
    """Every rule here holds on both stores."""
    runtime = tl.Runtime(registry, store_spec, secret_key="test-key")
    yield runtime
    runtime.close()


def define(registry: tl.Registry, ran: list[str]) -> None:
    async def note(state: tl.ThreadState, args: dict[str, Any]) -> str:
        ran.append(f"note {args['path']}")
        return f"noted {args['path']}"

    async def delete(state: tl.ThreadState, args: dict[str, Any]) -> str:
        ran.append(f"delete {args['path']}")
        return f"deleted {args['path']}"

    path = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    tl.define_tool("note", description="Note.", execute=note, args=path, registry=registry)
    tl.define_tool(
        "delete", description="Delete.", execute=delete, args=path, approval="always",
        registry=registry,
    )  # fmt: skip


def cleaner(registry: tl.Registry) -> list[str]:
    """Both tools and a prompt whose one step calls note, delete, note; what ran, in order."""
    ran: list[str] = []
    define(registry, ran)
    three_calls(registry)
    return ran


def three_calls(registry: tl.Registry) -> None:
    scripted_prompt(
        registry,
        [
            step(
                call("note", {"path": "/a"}, id="call_1"),
                call("delete", {"path": "/b"}, id="call_2"),
                call("note", {"path": "/c"}, id="call_3"),
            ),
            text("done"),
        ],
        tools=["note", "delete"],
    )


async def test_a_run_waits_before_the_call_then_goes_on_in_order(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran = cleaner(registry)
    thread = await rt.create_thread("p")
    run = await thread.send("clean up")
    assert run.status == "waiting"
    assert [r.tool_call_id for r in run.pending] == ["call_2"]
    assert ran == ["note /a"]  # the first ran; the second waits; the third is not started
    assert thread.status == "waiting"
    assert [(r.tool_call_id, r.name, r.arguments) for r in thread.pending] == [
        ("call_2", "delete", {"path": "/b"})
    ]
    await thread.approve("call_2")
    run = await thread.resume()
    assert (run.status, run.text) == ("completed", "done")
    assert ran == ["note /a", "delete /b", "note /c"]
    assert rt.thread(thread.id).status == "idle"  # (a second read: the status changed)
    decided = [e for e in thread.events if isinstance(e, tl.ApprovalDecidedEvent)]
    assert [(e.tool_call_id, e.approved, e.edited, e.by) for e in decided] == [
        ("call_2", True, False, "api")
    ]


async def test_a_rejected_call_gets_an_error_result_and_the_run_goes_on(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran = cleaner(registry)
    thread = await rt.create_thread("p")
    await thread.send("clean up")
    await thread.reject("call_2", "not that file")
    await thread.resume()
    results = {
        m.tool_call_id: (m.tool_status, m.content) for m in thread.messages if m.role == "tool"
    }
    assert results["call_2"] == ("error", "rejected: not that file")
    assert ran == ["note /a", "note /c"]


async def test_edited_arguments_are_checked_then_run(rt: tl.Runtime, registry: tl.Registry) -> None:
    ran = cleaner(registry)
    thread = await rt.create_thread("p")
    await thread.send("clean up")
    with pytest.raises(tl.ThreadlabError, match="invalid arguments for tool 'delete'"):
        await thread.approve("call_2", arguments={"path": 3})
    assert [r.tool_call_id for r in thread.pending] == ["call_2"]  # nothing recorded
    await thread.approve("call_2", arguments={"path": "/tmp/b"})
    await thread.resume()
    assert ran == ["note /a", "delete /tmp/b", "note /c"]


async def test_deciding_an_unknown_or_decided_call_is_refused(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran = cleaner(registry)
    thread = await rt.create_thread("p")
    await thread.send("clean up")
    for wrong in ("call_nothing", "call_1"):
        with pytest.raises(tl.ThreadlabError, match="does not wait for a decision"):
            await thread.approve(wrong)
    await thread.approve("call_2")
    with pytest.raises(tl.ThreadlabError, match="does not wait for a decision"):
        await thread.reject("call_2")
    await thread.resume()
    assert ran.count("delete /b") == 1  # run once


@pytest.mark.parametrize(
    ("approver", "approved", "reason"),
    [
        (lambda request: True, True, None),
        (lambda request: tl.Approval(False, reason="policy"), False, "policy"),
        (lambda request: "yes", False, "answered str, not a bool, tl.Approval or None"),
        (lambda request: 1 / 0, False, "the approver failed: ZeroDivisionError"),
    ],
    ids=["true", "rejects", "wrong-type", "raises"],
)
async def test_an_approver_decides_and_one_that_fails_rejects(
    registry: tl.Registry, store_dir: Any, approver: Any, approved: bool, reason: str | None
) -> None:
    ran = cleaner(registry)
    rt = tl.Runtime(registry, store_dir, secret_key="k", approver=approver)
    thread = await rt.create_thread("p")
    run = await thread.send("clean up")
    assert run.status == "completed"
    assert ("delete /b" in ran) == approved
    (decided,) = [e for e in thread.events if isinstance(e, tl.ApprovalDecidedEvent)]
    assert (decided.approved, decided.by) == (approved, "approver")
    if reason:
        assert reason in (decided.reason or "")
    rt.close()


async def test_an_approver_that_hangs_is_a_rejection_after_the_hook_timeout(
    registry: tl.Registry, store_dir: Any
) -> None:
    ran = cleaner(registry)

    async def hangs(request: tl.ApprovalRequest) -> bool:
        await asyncio.sleep(30)
        return True

    rt = tl.Runtime(registry, store_dir, secret_key="k", approver=hangs, hook_timeout=0.2)
    thread = await rt.create_thread("p")
    await thread.send("clean up")
    assert "delete /b" not in ran
    result = next(m for m in thread.messages if m.tool_call_id == "call_2")
    assert result.content == "rejected: the approver did not decide within 0.2 s"
    rt.close()


async def test_a_waiting_thread_is_decided_and_resumed_from_another_runtime(
    registry: tl.Registry, store_spec: str
) -> None:
    ran = cleaner(registry)
    first = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await first.create_thread("p")
    assert (await thread.send("clean up")).status == "waiting"
    first.close()
    tl.define_prompt("p", prompt="x", model=FunctionModel(lambda m, t: text("resumed")),
                     tools=["note", "delete"], registry=registry)  # fmt: skip
    second = tl.Runtime(registry, store_spec, secret_key="k")  # a kernel restart, say
    again = second.thread(thread.id)
    assert again.status == "waiting"
    assert [r.tool_call_id for r in again.pending] == ["call_2"]
    await again.approve("call_2")
    run = await again.resume()
    assert (run.status, run.text) == ("completed", "resumed")
    assert ran == ["note /a", "delete /b", "note /c"]
    second.close()


async def test_an_approver_answering_none_leaves_the_decision_to_later(
    registry: tl.Registry, store_dir: Any
) -> None:
    ran = cleaner(registry)
    asked: list[str] = []

    def not_here(request: tl.ApprovalRequest) -> None:
        asked.append(request.tool_call_id)

    rt = tl.Runtime(registry, store_dir, secret_key="k", approver=not_here)
    thread = await rt.create_thread("p")
    run = await thread.send("clean up")
    assert (run.status, [r.tool_call_id for r in run.pending]) == ("waiting", ["call_2"])
    assert asked == ["call_2"]
    assert ran == ["note /a"]
    requested = [e for e in thread.events if isinstance(e, tl.ApprovalRequestedEvent)]
    assert len(requested) == 1  # asked on record once, not once per look
    await thread.approve("call_2")
    assert (await thread.resume()).status == "completed"
    assert ran == ["note /a", "delete /b", "note /c"]
    rt.close()


async def test_interrupted_while_a_person_decides_the_call_stays_pending(
    registry: tl.Registry, store_dir: Any
) -> None:
    ran = cleaner(registry)
    asked = asyncio.Event()

    class Person:
        timeout_s = None  # a person takes as long as it takes, not the hook timeout

        async def __call__(self, request: tl.ApprovalRequest) -> bool:
            asked.set()
            await asyncio.Event().wait()  # never clicks
            return True

    rt = tl.Runtime(registry, store_dir, secret_key="k", approver=Person(), hook_timeout=0.1)
    thread = await rt.create_thread("p")
    task = asyncio.create_task(thread.send("clean up"))
    await asyncio.wait_for(asked.wait(), 10)
    await asyncio.sleep(0.3)  # past the hook timeout: a person's approver is not held to it
    assert not task.done()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    again = rt.thread(thread.id)
    assert again.status == "waiting"
    assert [r.tool_call_id for r in again.pending] == ["call_2"]
    assert [m.tool_call_id for m in again.messages if m.role == "tool"] == ["call_1"]
    finished = [e for e in again.events if isinstance(e, tl.RunFinishedEvent)]
    assert finished[-1].status == "waiting"
    await again.approve("call_2")
    assert (await again.resume()).status == "completed"
    assert ran == ["note /a", "delete /b", "note /c"]
    rt.close()


async def test_step_mode_asks_before_every_call(rt: tl.Runtime, registry: tl.Registry) -> None:
    ran = cleaner(registry)
    thread = await rt.create_thread("p")
    run = await thread.send("clean up", step=True)
    assert [r.tool_call_id for r in run.pending] == ["call_1"]  # even a tool that never asks
    assert ran == []
    await thread.approve("call_1")
    run = await thread.resume(step=True)
    assert [r.tool_call_id for r in run.pending] == ["call_2"]
    await thread.reject("call_2", "skip")
    run = await thread.resume()  # not stepping any more: the rest runs
    assert run.status == "completed"
    assert ran == ["note /a", "note /c"]


def family(registry: tl.Registry, ran: list[str], *, blocking: bool, later: Any = ()) -> None:
    """A `boss` whose step creates a `cleaner` child (whose one call needs a decision) and
    then notes something, then says "all done" (then `later`); the child answers "cleaned"
    once its call has run."""
    define(registry, ran)
    tl.define_prompt(
        "clean", prompt="Clean.", tools=["delete"], registry=registry,
        model=tl.models.ScriptedModel(
            [call("delete", {"path": "/old"}, id="child_call"), text("cleaned")]
        ),
    )  # fmt: skip
    tl.define_agent("cleaner", side_a="clean", registry=registry)
    create = call("subagent_create", {"agent": "cleaner", "name": "c", "message": "go"}, id="make")
    tl.define_prompt(
        "lead", prompt="Lead.", tools=["note"], registry=registry,
        model=tl.models.ScriptedModel(
            [step(create, call("note", {"path": "/after"}, id="then")), text("all done"), *later]
        ),
    )  # fmt: skip
    relationship = tl.Subagent("cleaner", blocking=blocking)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[relationship]), registry=registry)


async def test_a_blocking_parent_waits_with_its_child_and_goes_on_after_the_decision(
    registry: tl.Registry, store_spec: str
) -> None:
    ran: list[str] = []
    family(registry, ran, blocking=True)
    first = tl.Runtime(registry, store_spec, secret_key="k")
    boss = await first.create_thread("boss")
    run = await boss.send("tidy")
    (child,) = boss.children
    assert run.status == "waiting"
    assert [(r.thread_id, r.tool_call_id) for r in run.pending] == [(child.id, "child_call")]
    assert [(r.thread_id, r.tool_call_id) for r in boss.pending] == [(child.id, "child_call")]
    assert (boss.status, child.status) == ("waiting", "waiting")
    assert ran == []  # nor the parent's next call: it waits in order behind the child
    assert [m.tool_call_id for m in boss.messages if m.role == "tool"] == []
    first.close()
    rt = tl.Runtime(registry, store_spec, secret_key="k")  # another process, say
    boss = rt.thread(boss.id)
    await boss.approve("child_call")  # decided from the root, recorded in the child
    run = await boss.resume()
    assert (run.status, run.text) == ("completed", "all done")
    assert ran == ["delete /old", "note /after"]
    results = {m.tool_call_id: m.content for m in boss.messages if m.role == "tool"}
    assert json.loads(results["make"] or "")["result"] == "cleaned"
    assert rt.thread(child.id).status != "waiting"
    assert boss.pending == []
    rt.close()


async def test_a_non_blocking_child_waits_alone_and_reports_once_decided(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    family(registry, ran, blocking=False, later=[text("heard the report")])
    boss = await rt.create_thread("boss")
    run = await boss.send("tidy")
    (child,) = boss.children
    assert (run.status, run.text) == ("completed", "all done")  # the parent went on
    assert ran == ["note /after"]
    assert child.status == "waiting"
    assert [(r.thread_id, r.tool_call_id) for r in boss.pending] == [(child.id, "child_call")]
    await boss.reject("child_call", "keep /old")
    run = await boss.resume()  # the child goes on, then the parent answers its report
    assert (run.status, run.text) == ("completed", "heard the report")
    assert ran == ["note /after"]
    report = next(m for m in boss.messages if m.subagent_id == child.id)
    assert "cleaned" in (report.content or "")
    assert rt.thread(child.id).status != "waiting"
    assert boss.pending == []


async def test_prompt_agent_and_subagent_tools_ask_too(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_prompt("helper", prompt="Help.", model=FunctionModel(lambda m, t: text("helped")),
                     expose_as_tool=True, approval="always", registry=registry)  # fmt: skip
    tl.define_prompt("work", prompt="Work.", model=FunctionModel(lambda m, t: text("worked")),
                     registry=registry)  # fmt: skip
    tl.define_agent("deputy", side_a="work", registry=registry)
    tl.define_agent("quiet", side_a="work", registry=registry)

    def only_deputies(call: tl.ToolCall, state: tl.ThreadState) -> bool:
        return call.arguments.get("name") != "harmless"  # type: ignore[union-attr]

    create = "subagent_create"
    script = [
        step(
            call("helper", {"message": "hi"}, id="ask_helper"),
            call(create, {"agent": "deputy", "name": "w", "message": "go"}, id="make_deputy"),
            call(create, {"agent": "quiet", "name": "q", "message": "go"}, id="make_quiet"),
            call(create, {"agent": "deputy", "name": "harmless", "message": "go"}, id="free"),
        ),
        text("done"),
    ]
    tl.define_prompt("lead", prompt="Lead.", model=tl.models.ScriptedModel(script),
                     tools=["helper"], registry=registry)  # fmt: skip
    subagents = [tl.Subagent("deputy", approval=only_deputies), tl.Subagent("quiet")]
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=subagents), registry=registry)
    boss = await rt.create_thread("boss")
    assert [r.tool_call_id for r in (await boss.send("go")).pending] == ["ask_helper"]
    await boss.approve("ask_helper")
    assert [r.tool_call_id for r in (await boss.resume()).pending] == ["make_deputy"]
    await boss.reject("make_deputy", "no")
    run = await boss.resume()  # the quiet one and the harmless deputy do not ask
    assert (run.status, run.text) == ("completed", "done")
    assert sorted(c.name for c in boss.children) == ["harmless", "q"]


@pytest.mark.parametrize("where", ["prompt", "agent", "subagent"])
def test_an_approval_that_is_no_rule_is_refused(registry: tl.Registry, where: str) -> None:
    with pytest.raises(tl.DefinitionError, match=r'approval must be None, "always" or a'):
        if where == "prompt":
            tl.define_prompt("p", prompt="x", approval="sometimes", registry=registry)
        elif where == "agent":
            tl.define_agent("a", side_a="p", approval=3, registry=registry)
        else:
            side = tl.Side("p", subagents=[tl.Subagent("w", approval="yes")])
            tl.define_agent("a", side_a=side, registry=registry)


async def test_a_replay_reproduces_the_decisions_and_a_fork_keeps_those_before_it(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    define(registry, ran)
    script = [
        step(
            call("delete", {"path": "/a"}, id="d1"),
            call("delete", {"path": "/b"}, id="d2"),
        ),
        text("done"),
    ]
    scripted_prompt(registry, script, tools=["delete"])
    original = await rt.create_thread("p")
    await original.send("clean up")
    await original.approve("d1", arguments={"path": "/tmp/a"})
    await original.resume()
    await original.reject("d2", "keep /b")
    assert (await original.resume()).status == "completed"
    assert ran == ["delete /tmp/a"]
    # A replay: the same answers, the same decisions, asked of nobody.
    replayed = await rt.create_thread("p", model=tl.models.ReplayModel(original))
    run = await replayed.send("clean up")
    assert (run.status, run.text) == ("completed", "done")
    assert ran == ["delete /tmp/a", "delete /tmp/a"]
    decided = [e for e in replayed.events if isinstance(e, tl.ApprovalDecidedEvent)]
    assert [(e.tool_call_id, e.approved, e.edited, e.reason) for e in decided] == [
        ("d1", True, True, None),
        ("d2", False, False, "keep /b"),
    ]
    # A fork at the second call keeps the first decision and asks the second again.
    branch = await original.fork("d2")
    kept = [e.tool_call_id for e in branch.events if isinstance(e, tl.ApprovalDecidedEvent)]
    assert kept == ["d1"]
    run = await branch.resume()
    assert [r.tool_call_id for r in run.pending] == ["d2"]


async def test_a_replays_fallback_is_asked_again_for_a_call_it_makes_with_a_recorded_id(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    define(registry, ran)
    scripted_prompt(registry, [call("delete", {"path": "/a"}, id="call_0"), text("done")],
                    tools=["delete"])  # fmt: skip
    original = await rt.create_thread("p")
    await original.send("clean up")
    await original.approve("call_0")
    assert (await original.resume()).status == "completed"
    # The replay leaves the recording at its first step; the fallback's own call repeats the
    # recorded one, id and arguments: it was never decided, so a person is asked.
    fallback = tl.models.ScriptedModel([call("delete", {"path": "/a"}, id="call_0"),
                                        text("done")])  # fmt: skip
    replayed = await rt.create_thread("p", model=tl.models.ReplayModel(original, fallback=fallback))
    run = await replayed.send("clean up, again")
    assert run.status == "waiting"
    assert [r.tool_call_id for r in run.pending] == ["call_0"]
    assert ran == ["delete /a"]
    assert not [e for e in replayed.events if isinstance(e, tl.ApprovalDecidedEvent)]


async def test_a_rejection_without_a_reason_says_so_and_one_with_a_reason_says_it(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran = cleaner(registry)
    thread = await rt.create_thread("p")
    await thread.send("clean up")
    await thread.reject("call_2")
    await thread.resume()
    results = {m.tool_call_id: m.content for m in thread.messages if m.role == "tool"}
    assert results["call_2"] == "rejected (no reason was given)"  # not "rejected: rejected"
    assert ran == ["note /a", "note /c"]
    (decided,) = [e for e in thread.events if isinstance(e, tl.ApprovalDecidedEvent)]
    assert decided.reason is None


async def test_an_id_the_model_gives_two_calls_of_a_step_is_made_the_seconds_own(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # A decision names its call by its message and id: with the id given twice, the call
    # that waited could not be told from the one already answered, and was never asked
    # about (nothing pending, approve refused: the thread waited for good).
    ran: list[str] = []
    define(registry, ran)
    scripted_prompt(
        registry,
        [step(call("note", {"path": "/a"}, id="same"), call("delete", {"path": "/b"}, id="same")),
         text("done")],
        tools=["note", "delete"],
    )  # fmt: skip
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "waiting"
    (waiting,) = thread.pending
    assert (waiting.name, waiting.tool_call_id) == ("delete", "same_2")
    await thread.approve("same_2")
    assert (await thread.resume()).text == "done"
    assert ran == ["note /a", "delete /b"]
    (assistant,) = [m for m in thread.messages if m.tool_calls]
    assert [c.id for c in assistant.tool_calls] == ["same", "same_2"]


async def test_a_call_id_two_descendants_wait_on_is_decided_on_the_thread_that_made_it(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # Each thread numbers its calls its own way: two children may both wait on a call_0.
    # From their parent, which one is meant cannot be told; each child decides its own.
    ran: list[str] = []
    define(registry, ran)

    def clean(messages: list[tl.Message], tools: Any) -> Any:
        done = messages[-1].role == "tool"
        return text("cleaned") if done else call("delete", {"path": "/c"}, id="call_0")

    tl.define_prompt("clean", prompt="Clean.", tools=["delete"], model=FunctionModel(clean),
                     registry=registry)  # fmt: skip
    tl.define_agent("cleaner", side_a="clean", registry=registry)
    both = step(*(call("subagent_create", {"agent": "cleaner", "name": n, "message": "go"})
                  for n in ("a", "b")))  # fmt: skip
    scripted_prompt(registry, [both, text("asked"), text("heard"), text("heard")], name="lead")
    aside = tl.Subagent("cleaner", blocking=False)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[aside]), registry=registry)
    boss = await rt.create_thread("boss")
    await boss.send("tidy")
    for _ in range(500):
        if all(rt.thread(c.id).status == "waiting" for c in boss.children):
            break
        await asyncio.sleep(0.01)
    assert [r.tool_call_id for r in boss.pending] == ["call_0", "call_0"]
    with pytest.raises(tl.ThreadlabError, match="waits in 2 threads below"):
        await boss.approve("call_0")
    first, second = boss.children
    await rt.thread(first.id).approve("call_0")
    assert [r.thread_id for r in boss.pending] == [second.id]
    await boss.reject("call_0", "not that one")  # one descendant left: it is that one
    assert boss.pending == []


async def test_a_recording_stored_with_a_repeated_id_replays_with_its_decisions(
    registry: tl.Registry, store_dir: Path
) -> None:
    # A history stored before each call had an id of its own: its second call_0 is replayed
    # as call_0_2 now, and the recording is read so too, its decisions included (the next
    # request no longer matched the recording, and the replay diverged).
    ran: list[str] = []
    define(registry, ran)
    scripted_prompt(registry, [call("delete", {"path": "/a"}, id="call_0"),
                               call("delete", {"path": "/b"}, id="call_0"), text("done")],
                    tools=["delete"])  # fmt: skip
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    recorded = await rt.create_thread("p")
    await recorded.send("clean up")
    await recorded.approve("call_0")
    await recorded.resume()
    await recorded.reject("call_0_2", "keep /b")
    assert (await recorded.resume()).text == "done"
    rt.close()
    with sqlite3.connect(store_dir / "threads.sqlite3") as db:  # as an older version stored it
        for table in ("messages", "events"):
            db.execute(f"UPDATE {table} SET data = replace(data, '\"call_0_2\"', '\"call_0\"')")
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    recorded = rt.thread(recorded.id)
    assert [c.id for m in recorded.messages for c in m.tool_calls] == ["call_0", "call_0"]
    replay = tl.models.ReplayModel(recorded)
    again = await rt.create_thread("p", model=replay)
    run = await again.send("clean up")
    assert (run.status, run.text) == ("completed", "done")
    assert (replay.calls_replayed, replay.calls_forwarded) == (3, 0)
    assert ran == ["delete /a", "delete /a"]  # the recorded rejection of /b replayed too
    rt.close()


def nested_delete(registry: tl.Registry) -> list[str]:
    """Prompt "p" whose prompt tool "cleaner" calls delete (which asks for a decision) in
    its nested turn; what ran."""
    ran: list[str] = []
    define(registry, ran)
    tl.define_prompt("cleaner", prompt="Clean.", expose_as_tool=True, tools=["delete"],
                     model=tl.models.ScriptedModel([call("delete", {"path": "/"}, id="inner"),
                                                    text("cleaned")]),
                     registry=registry)  # fmt: skip
    scripted_prompt(registry, [call("cleaner", {"message": "clean"}, id="outer"), text("done")],
                    tools=["cleaner"])  # fmt: skip
    return ran


def nested_results(thread: tl.Thread) -> list[tuple[str | None, str | None]]:
    return [
        (m.tool_status, m.content)
        for m in thread.all_messages()
        if m.role == "tool" and m.depth == 1
    ]


@pytest.mark.parametrize("approver", ["none", "abstains", "rejects"])
async def test_a_nested_call_that_needs_a_decision_never_runs_undecided(
    registry: tl.Registry, store_spec: str, approver: str
) -> None:
    """A nested turn cannot pause (it runs inside its caller's call): a call there that
    needs a decision gets it from the approver at once, or is refused — never run."""
    ran = nested_delete(registry)
    asked: list[str] = []

    def abstains(request: tl.ApprovalRequest) -> None:
        asked.append(request.tool_call_id)

    def rejects(request: tl.ApprovalRequest) -> bool:
        asked.append(request.tool_call_id)
        return False

    given = {"none": None, "abstains": abstains, "rejects": rejects}[approver]
    rt = tl.Runtime(registry, store_spec, secret_key="k", approver=given)
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert (run.status, run.text) == ("completed", "done")
    assert ran == []
    ((status, content),) = nested_results(thread)
    assert status == "error"
    assert content is not None
    assert content.startswith("rejected: ")
    if approver != "rejects":
        assert "cannot wait for one" in (content or "")
    assert thread.pending == []  # nothing is left asked and undecided
    assert asked == ([] if approver == "none" else ["inner"])
    requested = [e for e in thread.events if isinstance(e, tl.ApprovalRequestedEvent)]
    decided = [e for e in thread.events if isinstance(e, tl.ApprovalDecidedEvent)]
    assert len(requested) == len(decided) == (0 if approver == "none" else 1)
    rt.close()


async def test_a_nested_call_runs_once_the_approver_approves_it(
    registry: tl.Registry, store_spec: str
) -> None:
    ran = nested_delete(registry)
    rt = tl.Runtime(registry, store_spec, secret_key="k",
                    approver=lambda r: tl.Approval(True, arguments={"path": "/tmp"}))  # fmt: skip
    thread = await rt.create_thread("p")
    assert (await thread.send("go")).status == "completed"
    assert ran == ["delete /tmp"]  # as edited
    assert nested_results(thread) == [("success", "deleted /tmp")]
    (decided,) = [e for e in thread.events if isinstance(e, tl.ApprovalDecidedEvent)]
    assert (decided.approved, decided.edited, decided.depth) == (True, True, 1)
    rt.close()


async def test_interrupted_while_a_nested_call_is_decided_on_leaves_nothing_pending(
    registry: tl.Registry, store_spec: str
) -> None:
    """Unlike a top-level call, a nested one cannot stay pending for a later run: its
    request is closed, and the call gets its "interrupted" result with the rest."""
    ran = nested_delete(registry)
    asked = asyncio.Event()

    async def slow(request: tl.ApprovalRequest) -> None:
        asked.set()
        await asyncio.sleep(3600)

    rt = tl.Runtime(registry, store_spec, secret_key="k", approver=slow)
    thread = await rt.create_thread("p")
    task = asyncio.create_task(thread.send("go"))
    await asked.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (thread.status, thread.pending) == ("idle", [])
    assert nested_results(thread) == [
        ("error", "interrupted: the run was stopped before this call finished")
    ]
    (decided,) = [e for e in thread.events if isinstance(e, tl.ApprovalDecidedEvent)]
    assert (decided.approved, decided.reason) == (False, "the run was interrupted")
    assert ran == []
    rt.close()


KILLED_WHILE_A_NESTED_CALL_IS_ASKED = """
import asyncio, os, signal, sys
import threadlab as tl
from threadlab.models import ScriptedModel, call, text

registry = tl.Registry()
tl.define_tool("delete", description="Delete.", execute=lambda s, a: "deleted",
               approval="always", registry=registry)
tl.define_prompt("cleaner", prompt="Clean.", expose_as_tool=True, tools=["delete"],
                 model=ScriptedModel([call("delete", {}, id="inner"), text("cleaned")]),
                 registry=registry)
tl.define_prompt("p", prompt="x", tools=["cleaner"], registry=registry,
                 model=ScriptedModel([call("cleaner", {"message": "go"}, id="outer")]))

def dies(request):
    os.kill(os.getpid(), signal.SIGKILL)  # the owner dies while the decision is asked

async def main():
    rt = tl.Runtime(registry, sys.argv[1], secret_key="k", approver=dies)
    thread = await rt.create_thread("p")
    print(thread.id, flush=True)
    await thread.send("go")

asyncio.run(main())
"""


@pytest.mark.processes
async def test_an_owner_killed_while_a_nested_call_is_asked_leaves_nothing_pending(
    store_spec: str, registry: tl.Registry, tmp_path: Path
) -> None:
    """The repair gives every open call its result, the nested one too: a top-level call
    that waits for a decision stays open for a later run, a nested one cannot."""
    thread_id = killed_script(tmp_path, KILLED_WHILE_A_NESTED_CALL_IS_ASKED, store_spec).split()[0]
    ran = nested_delete(registry)  # the same names, for the runtime that reopens it
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread = rt.thread(thread_id)
    assert (thread.status, thread.pending) == ("idle", [])
    assert nested_results(thread) == [
        ("error", "interrupted: the process running this call ended before it finished")
    ]
    assert ran == []
    rt.close()
