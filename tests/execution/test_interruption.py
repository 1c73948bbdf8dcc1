"""Cancelling, interrupting or killing a run leaves a history that is valid on resume."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import threadlab as tl
from threadlab.models import call, step, text

from ..helpers import HangingTool, scripted_prompt, tool_messages


def assert_every_call_has_one_result(thread: tl.Thread) -> None:
    messages = thread.all_messages()
    call_ids = [c.id for m in messages for c in m.tool_calls]
    result_ids = [m.tool_call_id or "" for m in messages if m.role == "tool"]
    assert sorted(call_ids) == sorted(result_ids)
    assert len(set(result_ids)) == len(result_ids)


async def test_cancelling_send_mid_tool_persists_interrupted_results_before_propagating(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    wait_forever = HangingTool("never")

    tl.define_tool("done", description="x", execute=lambda s, a: "done", registry=registry)
    tl.define_tool("wait", description="x", execute=wait_forever, registry=registry)
    scripted_prompt(
        registry,
        [step(call("done"), call("wait"), call("done")), text("x")],
        tools=["done", "wait"],
    )
    thread = await rt.create_thread("p")
    task = asyncio.create_task(thread.send("go"))
    await wait_forever.entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    results = tool_messages(thread)
    assert [m.content for m in results] == [
        "done",
        "interrupted: the run was stopped before this call finished",
        "interrupted: the run was stopped before this call finished",
    ]
    assert_every_call_has_one_result(thread)
    assert thread.status == "idle"
    finished = [e for e in thread.events if isinstance(e, tl.RunFinishedEvent)]
    assert finished[-1].status == "interrupted"


async def test_closing_the_stream_early_cancels_the_run_and_repairs_it(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    slow = HangingTool("never")

    tl.define_tool("slow", description="x", execute=slow, registry=registry)
    scripted_prompt(registry, [call("slow"), text("x")], tools=["slow"])
    thread = await rt.create_thread("p")
    stream = thread.stream("go")
    async for event in stream:
        if event.type == "tool_call_started":
            break
    await stream.aclose()  # type: ignore[attr-defined]
    assert_every_call_has_one_result(thread)
    assert tool_messages(thread)[0].tool_status == "error"


async def test_an_interrupted_thread_continues_normally(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    blocker = HangingTool("x")

    tl.define_tool("blocker", description="x", execute=blocker, registry=registry)
    model = scripted_prompt(registry, [call("blocker"), text("again")], tools=["blocker"])
    thread = await rt.create_thread("p")
    task = asyncio.create_task(thread.send("first"))
    await blocker.entered.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    run = await thread.send("second")
    assert run.status == "completed"
    assert run.text == "again"
    model.assert_complete()


CRASHING_SCRIPT = textwrap.dedent(
    """
    import asyncio, os, sys
    import threadlab as tl
    from threadlab.models import call, step, text

    reg = tl.Registry()
    tl.define_tool("ok", description="x", execute=lambda s, a: "fine", registry=reg)
    def die(state, args):
        print(state.thread_id, flush=True)
        os._exit(9)  # the process dies inside the tool: no cleanup of any kind
    tl.define_tool("die", description="x", execute=die, registry=reg)
    model = tl.models.ScriptedModel([step(call("ok"), call("die"), call("ok"))])
    tl.define_prompt("p", prompt="x", model=model, tools=["ok", "die"], registry=reg)

    async def main():
        rt = tl.Runtime(reg, sys.argv[1], secret_key="k")
        thread = await rt.create_thread("p")
        await thread.send("go")

    asyncio.run(main())
    """
)


@pytest.mark.processes  # it starts another Python process
async def test_a_process_killed_inside_a_tool_is_repaired_on_reopen_and_continues(
    tmp_path: Path, registry: tl.Registry, store_spec: str
) -> None:
    script = tmp_path / "crash.py"
    script.write_text(CRASHING_SCRIPT)
    store = store_spec
    proc = subprocess.run(
        [sys.executable, str(script), str(store)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 9, proc.stderr
    thread_id = proc.stdout.strip()

    tl.define_tool("ok", description="x", execute=lambda s, a: "fine", registry=registry)
    tl.define_tool("die", description="x", execute=lambda s, a: "survived", registry=registry)
    model = tl.models.ScriptedModel([text("picked up where we left off")])
    tl.define_prompt("p", prompt="x", model=model, tools=["ok", "die"], registry=registry)
    rt = tl.Runtime(registry, store, secret_key="k")
    thread = rt.thread(thread_id)
    assert thread.status == "idle"
    results = tool_messages(thread)
    assert [m.content for m in results] == [
        "fine",
        "interrupted: the process running this call ended before it finished",
        "interrupted: the process running this call ended before it finished",
    ]
    assert_every_call_has_one_result(thread)
    run = await thread.send("continue")
    assert run.status == "completed"
    assert run.text == "picked up where we left off"
    rt.close()


HOLDING_SCRIPT = textwrap.dedent(
    """
    import asyncio, sys, time
    import threadlab as tl
    from threadlab.models import call, text

    reg = tl.Registry()
    def hold(state, args):
        print(state.thread_id, flush=True)
        while not __import__("os").path.exists(sys.argv[2]):
            time.sleep(0.02)
        return "released"
    tl.define_tool("hold", description="x", execute=hold, registry=reg)
    def answer(messages, tools):
        if messages[-1].role == "tool":
            return "handled " + ",".join(m.content for m in messages if m.role == "user")
        return call("hold")
    tl.define_prompt("p", prompt="x", model=tl.models.FunctionModel(answer), tools=["hold"],
                     registry=reg)

    async def main():
        rt = tl.Runtime(reg, sys.argv[1], secret_key="k")
        thread = await rt.create_thread("p")
        run = await thread.send("first")
        print(run.text, flush=True)

    asyncio.run(main())
    """
)


@pytest.mark.processes  # it starts another Python process
async def test_a_thread_live_in_another_process_is_shown_running_and_messages_queue(
    tmp_path: Path, registry: tl.Registry, store_spec: str
) -> None:
    script = tmp_path / "hold.py"
    script.write_text(HOLDING_SCRIPT)
    release = tmp_path / "release"
    proc = subprocess.Popen(
        [sys.executable, str(script), store_spec, str(release)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    thread_id = await asyncio.to_thread(proc.stdout.readline)
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread = rt.thread(thread_id.strip())
    before = len(thread.all_messages())
    assert thread.status == "running"
    run = await thread.send("second")
    assert run.status == "queued"
    assert len(thread.all_messages()) == before  # opening wrote nothing
    release.touch()
    out, _ = await asyncio.to_thread(proc.communicate, timeout=60)
    assert proc.returncode == 0
    # The queued message was drained into the running turn by its owner.
    assert out.strip().splitlines()[-1] == "handled first,second"
    rt.close()
