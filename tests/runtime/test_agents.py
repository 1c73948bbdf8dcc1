"""Agents: dual_ai sessions with their stop conditions, and agents called as tools."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import ScriptedModel, call, step, text

from ..helpers import HangingTool, desks, killed_script, tool_messages


def sides(
    registry: tl.Registry, a_steps: list[Any], b_steps: list[Any], **agent: Any
) -> tuple[ScriptedModel, ScriptedModel]:
    a, b = ScriptedModel(a_steps), ScriptedModel(b_steps)
    tl.define_tool("note", description="Note.", execute=lambda s, x: "noted", registry=registry)
    tl.define_tool(
        "finish",
        description="Finish.",
        registry=registry,
        args={"type": "object", "properties": {"summary": {"type": "string"}}},
        execute=lambda s, x: f"finished: {x.get('summary')}",
    )
    tl.define_tool(
        "give_up", description="Fail.", execute=lambda s, x: "gave up", registry=registry
    )
    tl.define_prompt("writer", prompt="Write.", model=a, tools=["note"], registry=registry)
    tl.define_prompt("editor", prompt="Edit.", model=b, tools=["note"], registry=registry)
    side_a = agent.pop("side_a", tl.Side("writer", session_stop="finish", session_fail="give_up"))
    side_b = agent.pop("side_b", tl.Side("editor", session_stop="finish"))
    tl.define_agent("duo", type="dual_ai", side_a=side_a, side_b=side_b, registry=registry, **agent)
    return a, b


async def test_dual_ai_sides_alternate_and_each_sees_itself_as_assistant(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    a, b = sides(
        registry,
        [call("note"), text("draft one"), call("finish", {"summary": "shipped"})],
        [text("make it shorter")],
    )
    thread = await rt.create_thread("duo")
    run = await thread.send("write a poem")
    a.assert_complete()
    b.assert_complete()
    assert run.session_status == "completed"
    assert run.result == "finished: shipped"
    assert [(m.side, m.role) for m in thread.messages] == [
        ("a", "user"),
        ("a", "assistant"),
        ("a", "tool"),
        ("a", "assistant"),
        ("b", "assistant"),
        ("a", "assistant"),
        ("a", "tool"),
    ]
    # B saw A's answer as a user message, and not A's tool call or its result.
    b_context = b.requests[0].messages
    assert [(m.role, m.content) for m in b_context if m.role != "system"] == [
        ("user", "draft one"),
    ]
    # A saw B's answer as a user message after its own turn.
    a_last = a.requests[-1].messages
    assert [(m.role, m.content) for m in a_last][-1] == ("user", "make it shorter")


async def test_session_fail_ends_the_session_as_failed(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    sides(registry, [call("give_up")], [])
    run = await (await rt.create_thread("duo")).send("go")
    assert run.status == "completed"
    assert (run.session_status, run.result) == ("failed", "gave up")


async def test_a_session_tool_that_errors_goes_back_to_the_side(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    a, _ = sides(registry, [call("finish", {"summary": 5}), call("finish", {"summary": "ok"})], [])
    thread = await rt.create_thread("duo")
    run = await thread.send("go")
    assert run.result == "finished: ok"
    first = tool_messages(thread)[0]
    assert first.tool_status == "error"
    a.assert_complete()


async def test_max_session_turns_ends_with_side_as_last_text_and_failure(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    sides(registry, [text("a1"), text("a2")], [text("b1"), text("b2")], max_session_turns=3)
    run = await (await rt.create_thread("duo")).send("go")
    assert run.session_status == "failed"
    assert run.result == "a2"
    assert "max_session_turns (3)" in (run.error or "")


async def test_side_stop_tool_and_max_steps(rt: tl.Runtime, registry: tl.Registry) -> None:
    _a, _b = sides(
        registry,
        [call("note"), call("note"), call("finish", {"summary": "x"})],
        [call("note"), call("note"), text("never")],
        side_a=tl.Side("writer", stop_tool="note", session_stop="finish"),
        side_b=tl.Side("editor", max_steps=2, stop_on_response=False),
    )
    thread = await rt.create_thread("duo")
    run = await thread.send("go")
    # A's turn ends at its stop tool; B's turn ends on its step limit (the run stops).
    assert run.status == "stopped"
    assert "max_steps (2)" in (run.error or "")
    assert [m.side for m in thread.messages if m.role == "assistant"] == ["a", "b", "b"]


async def test_an_ai_human_agent_called_as_a_tool_is_a_handoff(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    front = ScriptedModel([call("billing", {"message": "invoice question"})])
    back = ScriptedModel([text("billing here"), text("still billing")])
    desks(registry, front, back)
    thread = await rt.create_thread("support")
    run = await thread.send("my invoice is wrong")
    assert run.text == "billing here"
    assert json.loads(tool_messages(thread)[0].content or "") == {"handoff": "billing"}
    assert thread.answering_agent == "billing"
    with pytest.warns(DeprecationWarning, match="use Thread.answering_agent"):
        assert thread.owner == "billing"  # the former spelling, for one release
    # The new owner saw the history it inherited.
    assert any(m.content == "my invoice is wrong" for m in back.requests[0].messages)
    # Persisted: a reopened thread keeps the new owner.
    reopened = tl.Runtime(registry, rt.store).thread(thread.id)
    assert reopened.answering_agent == "billing"
    assert (await reopened.send("again")).text == "still billing"


async def test_a_dual_ai_agent_as_a_tool_runs_as_a_blocking_child(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    sides(
        registry,
        [call("finish", {"summary": "poem"})],
        [],
        expose_as_tool=True,
        tool_description="Writes poems.",
    )
    tl.define_prompt(
        "main",
        prompt="x",
        tools=["duo"],
        registry=registry,
        model=ScriptedModel([call("duo", {"message": "a poem please"}), text("ok")]),
    )
    thread = await rt.create_thread("main")
    await thread.send("go")
    result = json.loads(tool_messages(thread)[0].content or "")
    (child,) = thread.children
    assert result == {
        "reference": child.id,
        "status": "completed",
        "result": "finished: poem",
        "attachments": [],
    }
    assert child.messages[0].content == "a poem please"
    assert child.parent_id == thread.id
    assert child.status == "completed"


async def test_an_agent_that_is_not_exposed_cannot_be_a_tool(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    sides(registry, [], [])
    tl.define_prompt("main", prompt="x", tools=["duo"], registry=registry)
    with pytest.raises(tl.DefinitionError, match="agent 'duo' as a tool, but that agent is not"):
        await rt.create_thread("main")


def handing_over_and_refunding(registry: tl.Registry, refunded: list[int]) -> None:
    """One message of the front desk's model: hand over to billing, then refund, a tool only
    billing has."""

    async def refund(state: tl.ThreadState, args: dict[str, Any]) -> str:
        refunded.append(args["amount"])
        return "refunded"

    amount = {"type": "object", "properties": {"amount": {"type": "integer"}}}
    tl.define_tool("refund", description="Refund.", execute=refund, args=amount,
                   registry=registry)  # fmt: skip
    front = ScriptedModel([step(call("billing", {"message": "invoice"}, id="c_hand"),
                                call("refund", {"amount": 1000000}, id="c_ref"))])  # fmt: skip
    back = ScriptedModel([text("billing here"), text("billing again")])
    desks(registry, front, back, ["refund"])


async def test_a_handoff_takes_effect_when_its_turn_ends_even_across_a_pause(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # The message's other calls run as the agent whose model made them: a pause between the
    # handoff and the next call must not lend that call the new agent's tools.
    refunded: list[int] = []
    handing_over_and_refunding(registry, refunded)
    thread = await rt.create_thread("support")
    run = await thread.send("my invoice", step="tools")  # each call asks first
    assert [r.tool_call_id for r in run.pending] == ["c_hand"]
    await thread.approve("c_hand")
    run = await thread.resume(step="tools")  # the handoff runs; the refund asks
    assert [r.tool_call_id for r in run.pending] == ["c_ref"]
    assert thread.answering_agent == "support"  # its turn has not ended
    branch = await thread.fork("c_ref")  # cut there, too
    assert branch.answering_agent == "support"
    await thread.approve("c_ref")
    for going in (thread, branch):
        run = await going.resume()
        assert run.text in ("billing here", "billing again")
        results = {m.tool_call_id: m.content for m in going.messages if m.role == "tool"}
        assert "unknown tool 'refund'" in (results["c_ref"] or "")
        assert going.answering_agent == "billing"  # then the handoff took effect
    assert refunded == []


def handing_over_then_waiting(registry: tl.Registry, slow: Any) -> ScriptedModel:
    """The front desk's one message: hand over to billing, then `slow` (a front desk tool);
    returns the front desk's model."""
    tl.define_tool("slow", description="Slow.", execute=slow, registry=registry)
    front = ScriptedModel([step(call("billing", {"message": "invoice"}, id="c_hand"),
                                call("slow", {}, id="c_slow")), text("front again")])  # fmt: skip
    desks(registry, front, ScriptedModel([text("billing here"), text("billing again")]))
    tl.define_prompt("front_desk", prompt="Front.", model=front, tools=["billing", "slow"],
                     registry=registry)  # fmt: skip
    return front


async def test_a_handoff_whose_turn_was_interrupted_still_hands_the_thread_over(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # The handoff's call ran and told the model it handed over; the run was cancelled during
    # the next call of that message. The history says billing has the thread: it answers.
    slow = HangingTool()
    handing_over_then_waiting(registry, slow)
    thread = await rt.create_thread("support")
    running = asyncio.ensure_future(thread.send("my invoice"))
    await slow.entered.wait()
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert thread.answering_agent == "billing"
    run = await thread.send("again")
    assert (run.status, run.text) == ("completed", "billing here")


KILLED_AFTER_A_HANDOFF = """
import asyncio, os, signal, sys
import threadlab as tl
from threadlab.models import ScriptedModel, call, step, text

def slow(state) -> str:
    \"\"\"Slow.\"\"\"
    os.kill(os.getpid(), signal.SIGKILL)
    return "never"

registry = tl.Registry()
tl.tool(registry=registry)(slow)
front = ScriptedModel([step(call("billing", {"message": "invoice"}, id="c_hand"),
                            call("slow", {}, id="c_slow"))])
tl.define_prompt("front_desk", prompt="Front.", model=front, tools=["billing", "slow"],
                 registry=registry)
tl.define_prompt("billing_desk", prompt="Billing.", model=ScriptedModel([]), registry=registry)
tl.define_agent("billing", side_a="billing_desk", expose_as_tool=True, registry=registry)
tl.define_agent("support", side_a="front_desk", registry=registry)

async def main():
    rt = tl.Runtime(registry, sys.argv[1], secret_key="k")
    thread = await rt.create_thread("support")
    print(thread.id, flush=True)
    await thread.send("my invoice")  # the handoff runs, then its next call kills the process

asyncio.run(main())
"""


@pytest.mark.processes
async def test_a_handoff_whose_owner_was_killed_in_its_turn_hands_over_on_the_next_run(
    store_spec: str, registry: tl.Registry, tmp_path: Path
) -> None:
    thread_id = killed_script(tmp_path, KILLED_AFTER_A_HANDOFF, store_spec).split()[0]
    front = handing_over_then_waiting(registry, lambda state, args: "slow")
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread = rt.thread(thread_id)
    run = await thread.send("again")  # the dead owner's run is repaired first
    assert (run.status, run.text) == ("completed", "billing here")
    assert next(m.content for m in tool_messages(thread)) == '{"handoff": "billing"}'
    assert thread.answering_agent == "billing"
    assert front.requests == []  # the front desk was not asked again
    rt.close()


async def test_a_handle_read_before_another_process_handed_over_sends_to_the_agent_handed_to(
    store_spec: str, registry: tl.Registry
) -> None:
    # A handle keeps what it read of the thread: a run of another process hands the thread
    # over meanwhile, and this handle's next message must reach the agent handed to, with
    # its tools, not the agent this handle once read.
    front = ScriptedModel([call("billing", {"message": "invoice"}, id="c_hand"), text("front")])
    back = ScriptedModel([text("billing here"), text("billing again")])
    desks(registry, front, back)
    here = tl.Runtime(registry, store_spec, secret_key="k")
    there = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await here.create_thread("support")
    assert thread.answering_agent == "support"
    await there.thread(thread.id).send("my invoice")  # another process hands it over
    assert thread.answering_agent == "billing"  # read as stored, not as this handle had it
    run = await thread.send("again")
    assert (run.status, run.text) == ("completed", "billing again")
    assert len(front.requests) == 1  # the front desk never answered again
    for rt in (here, there):
        rt.close()


async def test_a_stale_handle_writing_the_threads_metadata_keeps_a_handoff_made_elsewhere(
    store_spec: str, registry: tl.Registry
) -> None:
    # A write of one field of the metadata (a run's end says whether it waits) must not put
    # back the rest as this handle last read it: that undid another process's handoff.
    desks(registry, ScriptedModel([call("billing", {"message": "x"}, id="c_hand")]),
          ScriptedModel([text("billing here")]))  # fmt: skip
    here = tl.Runtime(registry, store_spec, secret_key="k")
    there = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await here.create_thread("support")
    stale = thread._context.identity  # what this process read before the handoff
    await there.thread(thread.id).send("my invoice")
    stale.set_meta(interrupted=False)
    again = tl.Runtime(registry, store_spec, secret_key="k").thread(thread.id)
    assert again.answering_agent == "billing"
    for rt in (here, there):
        rt.close()


def test_two_writers_of_the_metadata_at_once_keep_each_others_fields(
    store_spec: str, registry: tl.Registry
) -> None:
    # One writes the agent a handoff passed the thread to while another writes another
    # field over and over: each reads and writes under the thread's lock, so the second
    # never puts back what it read before the first wrote.
    tl.define_prompt("p", prompt="x", model=ScriptedModel([]), registry=registry)
    made = tl.Runtime(registry, store_spec, secret_key="k")
    thread_id = asyncio.run(made.create_thread("p")).id
    made.close()
    lost = []
    for attempt in range(25):
        ready = threading.Barrier(2)
        agent = f"agent{attempt}"

        def hand_over(agent: str = agent, ready: threading.Barrier = ready) -> None:
            rt = tl.Runtime(registry, store_spec, secret_key="k")
            identity = rt.thread(thread_id)._context.identity
            ready.wait()
            identity.set_meta(answering_agent=agent)
            rt.close()

        def write_other(ready: threading.Barrier = ready) -> None:
            rt = tl.Runtime(registry, store_spec, secret_key="k")
            identity = rt.thread(thread_id)._context.identity
            ready.wait()
            for _ in range(10):
                identity.set_meta(interrupted=False)
            rt.close()

        writers = [threading.Thread(target=hand_over), threading.Thread(target=write_other)]
        for writer in writers:
            writer.start()
        for writer in writers:
            writer.join()
        rt = tl.Runtime(registry, store_spec, secret_key="k")
        if rt.thread(thread_id).answering_agent != agent:
            lost.append(attempt)
        rt.close()
    assert lost == []


async def test_two_processes_resuming_a_paused_handoff_hand_over_once(
    store_spec: str, registry: tl.Registry
) -> None:
    refunded: list[int] = []
    handing_over_and_refunding(registry, refunded)
    first = tl.Runtime(registry, store_spec, secret_key="k")
    second = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await first.create_thread("support")
    await thread.send("my invoice", step="tools")
    await thread.approve("c_hand")
    await thread.resume(step="tools")  # the handoff ran; the refund asks
    await thread.approve("c_ref")
    outcomes = await asyncio.gather(
        first.thread(thread.id).resume(), second.thread(thread.id).resume(),
        return_exceptions=True,
    )  # fmt: skip
    # One ran the turn on; the other found it done, or the thread busy.
    assert {(o.text or "") if isinstance(o, tl.Run) else type(o).__name__ for o in outcomes} <= {
        "billing here", "", "ThreadBusyError",
    }, outcomes  # fmt: skip
    third = tl.Runtime(registry, store_spec, secret_key="k")  # the store as it is now
    again = third.thread(thread.id)
    assert [m.content for m in again.messages if m.role == "assistant" and m.content] == [
        "billing here"
    ]
    assert again.answering_agent == "billing"
    assert len([e for e in again.events if isinstance(e, tl.HandoffEvent)]) == 1
    assert refunded == []
    for rt in (first, second, third):
        rt.close()
