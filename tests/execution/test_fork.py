"""`thread.fork(at, ...)`: a branch that holds the history up to a point, with the env, files
and children as they were there, goes its own way; the original never changes; what does not
fit is refused with nothing written."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FunctionModel, ScriptedModel, call, step, text

from ..helpers import HangingTool, desks, gated_delete, tool_messages
from .test_subagents import create_then, helper


def define_files(registry: tl.Registry, ran: list[str]) -> None:
    async def save(state: tl.ThreadState, args: dict[str, Any]) -> str:
        ran.append(args["text"])
        await state.write_file(args["path"], args["text"])
        return f"saved {args['text']} to {args['path']}"

    tl.define_tool(
        "save",
        description="Save a text.",
        execute=save,
        args={
            "type": "object",
            "properties": {"path": {"type": "string"}, "text": {"type": "string"}},
            "required": ["path", "text"],
        },
        registry=registry,
    )


def answer_results(messages: list[tl.Message], tools: Any) -> Any:
    """A model that answers with the last result it was given."""
    return text(f"answer: {messages[-1].content}")


def snapshot(thread: tl.Thread) -> list[str]:
    return [m.model_dump_json() for m in thread.all_messages()]


async def saved_twice(rt: tl.Runtime, registry: tl.Registry) -> tuple[tl.Thread, list[str]]:
    """A thread that saved /a.txt twice (v1 in one step, then v2 and /b.txt in the next)."""
    ran: list[str] = []
    define_files(registry, ran)
    steps = [
        call("save", {"path": "/a.txt", "text": "v1"}, id="call_v1"),
        step(
            call("save", {"path": "/a.txt", "text": "v2"}, id="call_v2"),
            call("save", {"path": "/b.txt", "text": "b"}, id="call_b"),
        ),
        text("saved"),
    ]
    tl.define_prompt("p", prompt="x", model=ScriptedModel(steps), tools=["save"],
                     registry=registry)  # fmt: skip
    thread = await rt.create_thread("p", env={"MOOD": "calm"})
    assert (await thread.send("save things")).status == "completed"
    ran.clear()
    return thread, ran


async def test_a_fork_at_a_call_with_a_result_goes_on_from_there(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread, ran = await saved_twice(rt, registry)
    before = snapshot(thread)
    branch = await thread.fork("call_v2", result="saved nothing (edited)")
    # The branch: up to call_v2's message, the given result, call_b still open.
    roles = [(m.role, m.tool_call_id) for m in branch.messages]
    assert roles == [
        ("user", None), ("assistant", None), ("tool", "call_v1"), ("assistant", None),
        ("tool", "call_v2"),
    ]  # fmt: skip
    assert branch.messages[-1].content == "saved nothing (edited)"
    # The copies are the same messages: they keep their ids (a comparison pairs them).
    assert [m.id for m in branch.messages[:4]] == [m.id for m in thread.messages[:4]]
    # Files and env as they were at that point: /a.txt was still v1, /b.txt did not exist.
    assert (await branch.files.read("/a.txt")) == b"v1"
    assert [f.path for f in await branch.files.list()] == ["/a.txt"]
    assert branch._context.env.resolve("MOOD") == "calm"
    tl.define_prompt("p", prompt="x", model=FunctionModel(answer_results), tools=["save"],
                     registry=registry)  # fmt: skip
    run = await branch.resume()
    assert ran == ["b"]  # only the open call ran; the edited one was not run
    assert run.text == "answer: saved b to /b.txt"
    assert (await branch.files.read("/b.txt")) == b"b"
    # The original never changed.
    assert snapshot(thread) == before
    assert (await thread.files.read("/a.txt")) == b"v2"
    assert branch.forked_from == tl.ForkPoint(thread.id, "call_v2")
    assert [b.id for b in thread.branches] == [branch.id]
    assert branch.id in [t.id for t in rt.threads()]


async def test_a_fork_at_a_call_with_arguments_runs_it_with_them(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread, ran = await saved_twice(rt, registry)
    branch = await thread.fork("call_v2", arguments={"path": "/a.txt", "text": "v3"})
    calls = branch.messages[-1].tool_calls
    assert (calls[0].id, calls[0].arguments) == ("call_v2", {"path": "/a.txt", "text": "v3"})
    tl.define_prompt("p", prompt="x", model=FunctionModel(answer_results), tools=["save"],
                     registry=registry)  # fmt: skip
    await branch.resume()
    assert ran == ["v3", "b"]
    assert (await branch.files.read("/a.txt")) == b"v3"
    assert (await thread.files.read("/a.txt")) == b"v2"


async def test_a_fork_at_a_user_message_with_new_text_gets_its_turn(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread, _ = await saved_twice(rt, registry)
    first = thread.messages[0]
    branch = await thread.fork(first.id, message="say hi instead")
    assert [(m.role, m.content) for m in branch.messages] == [("user", "say hi instead")]
    assert await branch.files.list() == []  # nothing was written yet at that point
    tl.define_prompt("p", prompt="x", model=FunctionModel(answer_results), registry=registry)
    run = await branch.resume()
    assert run.text == "answer: say hi instead"


async def test_a_branch_cut_before_the_original_came_to_wait_waits_for_nothing(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    gated_delete(registry, ran)
    script = [text("hello"), call("delete", {"path": "/a"}, id="call_del"), text("done")]
    tl.define_prompt("p", prompt="x", tools=["delete"], model=ScriptedModel(script),
                     registry=registry)  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("hi")
    assert (await thread.send("delete /a")).status == "waiting"
    before = await thread.fork(thread.messages[1].id)  # the first answer: nothing waited yet
    assert (before.status, before.pending) == ("idle", [])
    # A branch cut at the message that made the call: the call is open, and asked about
    # again when the branch runs.
    after = await thread.fork(thread.messages[-1].id)
    assert (after.status, after.pending) == ("idle", [])
    assert (await after.resume()).status == "waiting"
    assert [r.tool_call_id for r in after.pending] == ["call_del"]
    assert ran == []
    assert thread.status == "waiting"  # the original, as it was


async def test_a_branch_cut_in_a_run_that_went_on_from_a_wait_waits_for_nothing(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # The run that went on after the decision stored no end by the cut: the wait before it
    # is over in the branch too.
    ran: list[str] = []
    gated_delete(registry, ran)
    script = [call("delete", {"path": "/a"}, id="call_del"), text("done")]
    tl.define_prompt("p", prompt="x", tools=["delete"], model=ScriptedModel(script),
                     registry=registry)  # fmt: skip
    thread = await rt.create_thread("p")
    assert (await thread.send("delete /a")).status == "waiting"
    await thread.approve("call_del")
    assert (await thread.resume()).status == "completed"
    result = next(m for m in thread.messages if m.role == "tool")
    branch = await thread.fork(result.id)
    assert (branch.status, branch.pending) == ("idle", [])
    assert ran == ["/a"]


async def test_a_damaged_row_does_not_stop_a_fork(
    rt: tl.Runtime, registry: tl.Registry, store_dir: Path
) -> None:
    tl.define_prompt("p", prompt="x", model=ScriptedModel([text("one"), text("two")]),
                     registry=registry)  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("hi")
    for garbage in ("garbage{", "[1]", "{}"):  # rows of the store written over
        db = sqlite3.connect(store_dir / "threads.sqlite3")
        db.execute(
            "UPDATE events SET data = ? WHERE thread_id = ? AND type IN"
            " ('run_finished', 'thread_status')",
            (garbage, thread.id),
        )
        db.commit()
        db.close()
        branch = await thread.fork(thread.messages[-1].id)
        assert [m.role for m in branch.messages] == ["user", "assistant"]
    branch = await thread.fork(thread.messages[0].id)
    assert [m.role for m in branch.messages] == ["user"]
    assert (await branch.resume()).text == "two"


async def test_a_branch_cut_before_a_handoff_answers_as_the_agent_did_then(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    front = ScriptedModel([text("front here"), call("billing", {"message": "invoice"}),
                           text("front again")])  # fmt: skip
    back = ScriptedModel([text("billing here"), text("billing again")])
    desks(registry, front, back)
    thread = await rt.create_thread("support")
    await thread.send("hello")
    assert (await thread.send("my invoice")).text == "billing here"
    before = await thread.fork(thread.messages[1].id)  # "front here": before the handoff
    assert before.answering_agent == "support"
    assert (await before.send("next")).text == "front again"
    after = await thread.fork(thread.messages[-1].id)  # "billing here"
    assert after.answering_agent == "billing"
    assert (await after.send("next")).text == "billing again"
    assert thread.answering_agent == "billing"  # the original, as it was


async def test_a_branch_of_a_branch_of_a_branch(rt: tl.Runtime, registry: tl.Registry) -> None:
    thread, _ = await saved_twice(rt, registry)
    one = await thread.fork("call_v2", result="one")
    two = await one.fork(one.messages[-1].id)
    three = await two.fork("call_v1", result="three")
    assert [m.content for m in three.messages if m.role == "tool"] == ["three"]
    assert three.forked_from == tl.ForkPoint(two.id, "call_v1")
    assert [b.id for b in one.branches] == [two.id]


async def test_children_are_forked_at_the_same_point(rt: tl.Runtime, registry: tl.Registry) -> None:
    """A resumable child that kept working after the fork point is seen as it was."""
    await children_forked_at_the_same_point(rt, registry)


async def test_children_are_forked_at_the_same_point_on_postgresql(
    registry: tl.Registry, postgres_url: str
) -> None:
    rt = tl.Runtime(registry, postgres_url, secret_key="k")
    try:
        await children_forked_at_the_same_point(rt, registry)
    finally:
        rt.close()


async def children_forked_at_the_same_point(rt: tl.Runtime, registry: tl.Registry) -> None:
    helper(registry)
    tl.define_prompt(
        "lead",
        prompt="Lead.",
        model=create_then(
            lambda ref: call("subagent_message", {"reference": ref, "message": "more"})
        ),
        registry=registry,
    )
    resumable = tl.Subagent("helper", resumable=True)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[resumable]), registry=registry)
    thread = await rt.create_thread("boss")
    await thread.send("go")
    (child,) = thread.children
    assert [m.content for m in child.messages if m.role == "user"] == ["task", "more"]
    create_result, _ = tool_messages(thread)
    branch = await thread.fork(create_result.id)  # after the child's first session only
    (copy,) = branch.children
    assert copy.id != child.id
    assert copy.name == child.name
    assert [m.content for m in copy.messages if m.role == "user"] == ["task"]
    assert (await copy.files.read("/attachments/out.txt")) == b"work on: task"
    # The branch's references name its own copy, in the messages and the events.
    assert json.loads(branch.messages[-1].content or "")["reference"] == copy.id
    created = [e for e in branch.events if isinstance(e, tl.SubagentCreatedEvent)]
    assert [e.child_thread_id for e in created] == [copy.id]
    assert child.id not in json.dumps([m.model_dump() for m in branch.all_messages()])
    assert [m.content for m in child.messages if m.role == "user"] == ["task", "more"]


async def test_what_does_not_fit_is_refused_with_nothing_written(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread, _ = await saved_twice(rt, registry)
    first = thread.messages[0]
    answer = thread.messages[-1]
    count = len(rt.threads())
    cases: list[tuple[dict[str, Any], str]] = [
        ({"at": "msg_nothing"}, "neither a message nor a tool call"),
        ({"at": first.id, "result": "x"}, "give the call's id"),
        ({"at": first.id, "arguments": {"text": "x"}}, "give the call's id"),
        ({"at": answer.id, "message": "x"}, "rewrites a user message"),
        ({"at": "call_v2", "message": "x"}, "rewrites a user message"),
        ({"at": "call_v2", "arguments": {"path": 3}}, "invalid arguments for tool 'save'"),
        ({"at": "call_v2", "result": "x", "arguments": {"path": "/a", "text": "t"}}, "not both"),
        ({"at": "call_v2", "result": {1, 2}}, "result= must be text or a JSON value"),
    ]
    for options, error in cases:
        with pytest.raises(tl.ThreadlabError, match=error):
            await thread.fork(**options)
    assert len(rt.threads()) == count


async def test_a_nested_message_is_refused(rt: tl.Runtime, registry: tl.Registry) -> None:
    inner = ScriptedModel([text("inner answer")])
    tl.define_prompt("inner", prompt="Inner.", model=inner, expose_as_tool=True, registry=registry)
    outer = ScriptedModel([call("inner", {"message": "hi"}), text("ok")])
    tl.define_prompt("p", prompt="x", model=outer, tools=["inner"], registry=registry)
    thread = await rt.create_thread("p")
    await thread.send("go")
    nested = next(m for m in thread.all_messages() if m.depth > 0)
    with pytest.raises(tl.ThreadlabError, match="inside a prompt tool's turn"):
        await thread.fork(nested.id)


async def test_a_running_thread_cannot_be_forked(rt: tl.Runtime, registry: tl.Registry) -> None:
    import asyncio

    wait = HangingTool("late")

    tl.define_tool("wait", description="Wait.", execute=wait, registry=registry)
    waiting = ScriptedModel([call("wait", {}, id="call_w"), text("x")])
    tl.define_prompt("p", prompt="x", model=waiting, tools=["wait"], registry=registry)
    thread = await rt.create_thread("p")
    running = asyncio.ensure_future(thread.send("go"))
    await asyncio.wait_for(wait.entered.wait(), 10)
    with pytest.raises(tl.ThreadBusyError, match="running"):
        await thread.fork("call_w", result="x")
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running


async def test_fork_on_postgresql_too(registry: tl.Registry, postgres_url: str) -> None:
    rt = tl.Runtime(registry, postgres_url, secret_key="k")
    thread, ran = await saved_twice(rt, registry)
    branch = await thread.fork("call_v2", result="kept v1")
    assert (await branch.files.read("/a.txt")) == b"v1"
    assert [m.content for m in branch.messages if m.role == "tool"] == [
        "saved v1 to /a.txt",
        "kept v1",
    ]
    tl.define_prompt("p", prompt="x", model=FunctionModel(answer_results), tools=["save"],
                     registry=registry)  # fmt: skip
    await branch.resume()
    assert ran == ["b"]
    assert [b.id for b in thread.branches] == [branch.id]
    rt.close()


OLD_STORE = """
import asyncio, sys
import threadlab as tl
from threadlab.models import ScriptedModel, call, text

async def save(state, args):
    await state.write_file("/a.txt", "made by an earlier threadlab")
    return "saved"

tl.define_tool("save", description="Save.", execute=save)
steps = [call("save", {}, id="call_old"), text("ok")]
tl.define_prompt("p", prompt="x", model=ScriptedModel(steps), tools=["save"])
rt = tl.Runtime(store=sys.argv[1], secret_key="k")
thread = asyncio.run(rt.create_thread("p"))
asyncio.run(thread.send("go"))
print(thread.id)
"""


@pytest.mark.processes  # it starts a git worktree and an earlier threadlab
def test_a_thread_stored_by_an_earlier_threadlab_forks(
    tmp_path: Any, registry: tl.Registry
) -> None:
    """A store written by the release before forks (no content digest in its file events):
    the fork keeps each file as it is now."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    earlier = tmp_path / "earlier"
    made = subprocess.run(
        ["git", "-C", str(root), "worktree", "add", "--detach", str(earlier), "7108e87"],
        capture_output=True,
        text=True,
    )
    if made.returncode != 0:
        pytest.skip(f"the earlier release is not in this clone's history: {made.stderr.strip()}")
    try:
        script = tmp_path / "old.py"
        script.write_text(OLD_STORE)
        store = tmp_path / "store"
        out = subprocess.run(
            [sys.executable, str(script), str(store)],
            env={"PYTHONPATH": str(earlier / "src"), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            check=True,
        )
        thread_id = out.stdout.strip().splitlines()[-1]
        tl.define_tool("save", description="Save.", execute=lambda s, a: "saved", registry=registry)
        tl.define_prompt("p", prompt="x", tools=["save"], registry=registry)
        rt = tl.Runtime(registry, store, secret_key="k")
        thread = rt.thread(thread_id)
        early = asyncio_run(thread.fork("call_old", result="edited"))
        assert [m.content for m in early.messages if m.role == "tool"] == ["edited"]
        assert asyncio_run(early.files.list()) == []  # written by that very call: not yet
        late = asyncio_run(thread.fork(thread.messages[-1].id))
        assert asyncio_run(late.files.read("/a.txt")) == b"made by an earlier threadlab"
        rt.close()
    finally:
        subprocess.run(["git", "-C", str(root), "worktree", "remove", "--force", str(earlier)],
                       capture_output=True)  # fmt: skip


def asyncio_run(awaitable: Any) -> Any:
    import asyncio

    return asyncio.run(awaitable)
