"""The approval gate cannot be slipped past: a decision belongs to one call of one message
(with its arguments), not to a call id a model may repeat; of several processes deciding one
call at the same moment exactly one wins; a call whose approver was being asked when its
process was killed is still waiting, never "interrupted", and runs once when approved."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FunctionModel, call, text
from threadlab.models._history import paired

from .gate import ROOT, define


def deleting_twice(registry: tl.Registry, ran: list[str], second: dict[str, Any]) -> None:
    """Two turns whose model numbers its calls from call_0 in every reply (as a local
    OpenAI-compatible server does): the first deletes /first, the second calls with
    `second`."""
    define(registry, ran)
    seen: list[list[tl.Message]] = []

    def reply(messages: list[tl.Message], tools: Any) -> Any:
        seen.append(list(messages))
        last = messages[-1]
        if last.role == "user":
            arguments = {"path": "/first"} if last.content == "one" else second
            return call("delete", arguments, id="call_0")
        return text("ok")

    tl.define_prompt("p", prompt="x", model=FunctionModel(reply), tools=["delete"],
                     registry=registry)  # fmt: skip


async def test_a_repeated_call_id_asks_again(registry: tl.Registry, store_spec: str) -> None:
    ran: list[str] = []
    deleting_twice(registry, ran, {"path": "/everything"})
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await rt.create_thread("p")
    assert (await thread.send("one")).status == "waiting"
    await thread.approve("call_0")
    assert (await thread.resume()).status == "completed"
    assert ran == ["delete /first"]

    run = await thread.send("two")  # the same id, other arguments: not approved
    assert run.status == "waiting"
    # The thread's call_0 is taken: this call is stored as call_0_2, and asked about.
    assert [(r.tool_call_id, r.arguments) for r in run.pending] == [
        ("call_0_2", {"path": "/everything"})
    ]
    assert ran == ["delete /first"]
    with pytest.raises(tl.ThreadlabError):  # the call approved before is not this one
        await thread.approve("call_0")
    await thread.reject("call_0_2", "no")
    assert (await thread.resume()).status == "completed"
    assert ran == ["delete /first"]
    rt.close()


async def test_a_repeated_call_with_the_same_arguments_asks_again(
    registry: tl.Registry, store_dir: Path
) -> None:
    ran: list[str] = []
    deleting_twice(registry, ran, {"path": "/first"})
    asked: list[tl.ApprovalRequest] = []

    def approver(request: tl.ApprovalRequest) -> bool:
        asked.append(request)
        return len(asked) == 1  # the first is approved, the second refused

    rt = tl.Runtime(registry, store_dir, secret_key="k", approver=approver)
    thread = await rt.create_thread("p")
    await thread.send("one")
    await thread.send("two")
    assert [r.tool_call_id for r in asked] == ["call_0", "call_0_2"]
    assert asked[0].message_id != asked[1].message_id
    assert ran == ["delete /first"]  # the second call was asked about, and refused


async def test_results_pair_with_their_own_call_when_ids_repeat(
    registry: tl.Registry, store_dir: Path
) -> None:
    ran: list[str] = []
    deleting_twice(registry, ran, {"path": "/second"})
    rt = tl.Runtime(registry, store_dir, secret_key="k", approver=lambda r: True)
    thread = await rt.create_thread("p")
    await thread.send("one")
    await thread.send("two")
    assert ran == ["delete /first", "delete /second"]
    roles = [(m.role, m.tool_call_id, m.content) for m in thread.messages]
    assert roles == [
        ("user", None, "one"),
        ("assistant", None, None),
        ("tool", "call_0", "deleted /first"),
        ("assistant", None, "ok"),
        ("user", None, "two"),
        ("assistant", None, None),
        ("tool", "call_0_2", "deleted /second"),
        ("assistant", None, "ok"),
    ]
    # The conversation as a provider is sent it: each call answered by its own result.
    sent = [(m.role, m.tool_call_id, m.content) for m in paired(thread.messages)]
    assert sent == roles
    assert await thread.resume() is not None  # nothing open: no call runs again
    assert ran == ["delete /first", "delete /second"]


async def test_a_decision_on_a_branch_with_other_arguments_does_not_carry(
    registry: tl.Registry, rt: tl.Runtime
) -> None:
    ran: list[str] = []
    define(registry, ran)
    thread = await rt.create_thread("cleaner")
    await thread.send("clean up")
    await thread.approve("call_2")
    await thread.resume()
    # A branch at the approved call with other arguments asks again before it runs.
    branch = await thread.fork("call_2", arguments={"path": "/etc"})
    run = await branch.resume()
    assert run.status == "waiting"
    assert [(r.tool_call_id, r.arguments) for r in branch.pending] == [("call_2", {"path": "/etc"})]
    assert "delete /etc" not in ran


async def test_the_request_carries_the_progress_value(
    registry: tl.Registry, rt: tl.Runtime
) -> None:
    define(registry, [])
    thread = await rt.create_thread("cleaner")
    run = await thread.send("clean up")
    assert [r.progress for r in run.pending] == ["deleting old.log"]
    assert [r.progress for r in rt.thread(thread.id).pending] == ["deleting old.log"]


async def test_an_edit_that_adds_an_undeclared_field_is_refused(
    registry: tl.Registry, rt: tl.Runtime
) -> None:
    ran: list[str] = []
    define(registry, ran)
    thread = await rt.create_thread("cleaner")
    await thread.send("clean up")
    with pytest.raises(tl.ThreadlabError, match="recursive: the tool 'delete' declares no such"):
        await thread.approve("call_2", arguments={"path": "/b", "recursive": True})
    with pytest.raises(tl.ThreadlabError, match="declares no such argument"):
        await thread.fork("call_2", arguments={"path": "/b", "recursive": True})
    assert [r.tool_call_id for r in thread.pending] == ["call_2"]  # nothing recorded
    await thread.approve("call_2", arguments={"path": "/b"})
    await thread.resume()
    assert ran == ["note /a", "delete /b", "note /c"]


def gate(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.security.gate", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.processes
async def test_one_decision_wins_across_processes(
    registry: tl.Registry, store_spec: str, tmp_path: Path
) -> None:
    ran: list[str] = []
    define(registry, ran)
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await rt.create_thread("cleaner")
    await thread.send("clean up")
    go = tmp_path / "go"
    deciders = [gate("decide", store_spec, thread.id, f"/p{n}", str(go)) for n in range(4)]
    for _ in range(1200):  # until each process has opened the thread and spins
        if len(list(tmp_path.glob("go.*"))) == len(deciders):
            break
        await asyncio.sleep(0.1)
    go.touch()
    said = [p.communicate(timeout=120) for p in deciders]
    outcomes = [out.strip() for out, _ in said]
    assert sorted(o.split(":")[0] for o in outcomes) == ["refused"] * 3 + ["won"], said
    winner = outcomes.index("won")
    decided = [e for e in rt.thread(thread.id).events if isinstance(e, tl.ApprovalDecidedEvent)]
    assert [e.arguments for e in decided] == [{"path": f"/p{winner}"}]
    await thread.resume()
    assert ran == ["note /a", f"delete /p{winner}", "note /c"]
    rt.close()


@pytest.mark.processes
async def test_a_call_whose_process_died_while_asking_is_still_waiting(
    registry: tl.Registry, store_spec: str, tmp_path: Path
) -> None:
    asked, thread_id = tmp_path / "asked", tmp_path / "thread"
    proc = gate("die", store_spec, str(thread_id), str(asked))
    try:
        for _ in range(600):
            if asked.exists():
                break
            await asyncio.sleep(0.1)
        assert asked.read_text() == "deleting old.log"  # the approver read the progress first
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(30) == -signal.SIGKILL
    finally:
        proc.kill()
        proc.communicate()
    ran: list[str] = []
    define(registry, ran)
    tl.define_prompt("cleaner", prompt="x", model=FunctionModel(lambda m, t: text("resumed")),
                     tools=["note", "delete"], registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread = rt.thread(thread_id.read_text())
    assert thread.status == "waiting"
    assert [r.tool_call_id for r in thread.pending] == ["call_2"]
    results = [m.tool_call_id for m in thread.messages if m.role == "tool"]
    assert results == ["call_1"]  # neither the waiting call nor the one after it is closed
    await thread.approve("call_2")
    run = await thread.resume()
    assert (run.status, run.text) == ("completed", "resumed")
    assert ran == ["delete /old.log", "note /c"]
    answered = [(m.tool_call_id, m.content) for m in thread.messages if m.role == "tool"]
    assert answered == [
        ("call_1", "noted /a"),
        ("call_2", "deleted /old.log"),
        ("call_3", "noted /c"),
    ]
    with pytest.raises(tl.ThreadlabError):
        await thread.approve("call_2")  # decided and answered: nothing more to decide
    rt.close()
