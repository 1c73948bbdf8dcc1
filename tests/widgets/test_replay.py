"""A thread's view state rebuilt from the store, with the threads related to it: the thread a
branch was forked from, and the branches of a thread."""

from __future__ import annotations

import json
import time
from typing import Any

import threadlab as tl
from threadlab.models import FunctionModel, ScriptedModel, call, step, text
from threadlab.widgets import static_text
from threadlab.widgets._history import history_of
from threadlab.widgets._replay import relate, replay, trace_for


async def test_a_branch_names_the_thread_it_was_forked_from(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    model = ScriptedModel([text("first"), text("again")])
    tl.define_prompt("tutor", prompt="Teach.", model=model, registry=registry)
    thread = await rt.create_thread("tutor")
    await thread.send("hello")
    branch = await thread.fork(thread.messages[0].id)
    nodes = {t["id"]: t for t in relate(replay(branch), branch).snapshot()["threads"]}
    origin = nodes[thread.id]
    assert (origin["relation"], origin["name"]) == ("origin", "forked from tutor")
    assert nodes[branch.id]["parent"] == thread.id
    # The origin's view names its branch by where it was cut, not by an id.
    branches = [
        t
        for t in relate(replay(thread), thread).snapshot()["threads"]
        if t.get("relation") == "branch"
    ]
    assert [b["name"] for b in branches] == ['branch at "hello"']
    # Cut inside the original's run, the branch has not run: its view does not say running.
    assert replay(branch).run["status"] == "idle"
    assert replay(thread).run["status"] == "completed"


async def test_branches_are_named_by_where_they_were_cut(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("note", description="Note.", execute=lambda s, a: "noted", registry=registry)
    model = ScriptedModel([call("note", {}, id="c1"), text("done")])
    tl.define_prompt("p", prompt="x", tools=["note"], model=model, registry=registry)
    thread = await rt.create_thread("p")
    await thread.send("  write\n a long note about the tea garden  ")
    user, step, _, answer = thread.messages
    for at in (user.id, "c1", answer.id):
        await thread.fork(at)
    named = [t["name"] for t in relate(replay(thread), thread).snapshot()["threads"]
             if t.get("relation") == "branch"]  # fmt: skip
    assert named == ['branch at "write a long note about…"', "branch at note",
                     "branch at message 4"]  # fmt: skip
    assert step.tool_calls[0].id == "c1"


async def test_a_branch_cut_inside_a_run_times_its_own_first_step_from_its_own_run(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # Cut at a call, the branch's copy of the original's run had no end: its own first model
    # step read as starting when the original's run did, minutes before.
    tl.define_tool("note", description="Note.", execute=lambda s, a: "noted", registry=registry)
    model = ScriptedModel([call("note", {}, id="c1"), text("done"), text("branch done")])
    tl.define_prompt("p", prompt="x", tools=["note"], model=model, registry=registry)
    thread = await rt.create_thread("p")
    await thread.send("go")
    branch = await thread.fork("c1", result="other")
    forked = time.time()
    await branch.resume()
    statuses = [e.status for e in branch.events if isinstance(e, tl.ThreadStatusEvent)]
    assert statuses == ["running", "idle", "running", "idle"]  # the copy's run ends at the cut
    answer = replay(branch).snapshot()["messages"][branch.id][-1]
    assert answer["role"] == "assistant"
    assert answer["since"] >= forked  # its run, not the original's
    assert [e.status for e in thread.events if isinstance(e, tl.ThreadStatusEvent)] == [
        "running", "idle",
    ]  # fmt: skip


async def test_a_model_that_numbers_its_calls_anew_in_each_reply_has_a_card_per_call(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # A local OpenAI-compatible server numbers its calls from call_0 in every reply: the
    # second reply's call_0 was drawn in the first call's card, with its arguments and result.
    @tl.tool(registry=registry)
    def add(state: tl.ThreadState, a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    model = ScriptedModel(
        [call("add", {"a": 1, "b": 2}, id="call_0"), call("add", {"a": 5, "b": 5}, id="call_0"),
         text("done")]
    )  # fmt: skip
    tl.define_prompt("adder", prompt="Add.", model=model, tools=["add"], registry=registry)
    thread = await rt.create_thread("adder")
    live = trace_for(thread, rt.thread)
    async for event in thread.stream("add twice"):
        live.apply(event)  # as the live view folds them in
    for state in (live, replay(rt.thread(thread.id))):
        calls = [c for m in state.messages[thread.id] for c in m["calls"]]
        assert calls == ["call_0", "call_0_2"]
        shown = [(state.cards[c]["label"], state.cards[c]["result"]) for c in calls]
        assert [result for _, result in shown] == ["3", "10"]
        assert '"a": 5' in state.cards["call_0_2"]["args"]
    results = {m.tool_call_id: m.content for m in thread.messages if m.role == "tool"}
    assert results == {"call_0": "3", "call_0_2": "10"}
    steps = [s.tool_call_id for s in thread.steps() if s.kind == "tool_call"]
    assert steps == ["call_0", "call_0_2"]


def adding_worker(registry: tl.Registry) -> None:
    """`add`, and a `worker` agent whose model calls it once as call_0, then answers 14."""

    @tl.tool(registry=registry)
    def add(state: tl.ThreadState, a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    worker = ScriptedModel([call("add", {"a": 7, "b": 7}, id="call_0"), text("14")])
    tl.define_prompt("w", prompt="Add.", model=worker, tools=["add"], registry=registry)
    tl.define_agent("worker", side_a=tl.Side("w"), registry=registry)


async def test_a_childs_call_with_its_parents_call_id_has_a_card_of_its_own(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # Each thread numbers its calls its own way: the worker's call_0 was drawn as the lead's
    # subagent_create card, under the worker, and the worker's own call was lost.
    adding_worker(registry)
    create = call("subagent_create", {"agent": "worker", "name": "w1", "message": "go"},
                  id="call_0")  # fmt: skip
    tl.define_prompt("lead", prompt="Lead.", model=ScriptedModel([create, text("done")]),
                     registry=registry)  # fmt: skip
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("worker")]),
                    registry=registry)  # fmt: skip
    thread = await rt.create_thread("boss")
    live = trace_for(thread, rt.thread)
    async for event in thread.stream("go"):
        live.apply(event)
    (child,) = thread.children
    for state in (live, replay(rt.thread(thread.id))):
        (lead_call,) = [c for m in state.messages[thread.id] for c in m["calls"]]
        (child_call,) = [c for m in state.messages[child.id] for c in m["calls"]]
        assert state.cards[lead_call]["name"] == "subagent_create"
        assert state.cards[lead_call]["thread"] == thread.id
        assert (state.cards[child_call]["name"], state.cards[child_call]["result"]) == ("add", "14")
        assert state.cards[child_call]["thread"] == child.id
    points = history_of(thread, rt.store, told=False)
    called = [p["id"] for p in points if p["kind"] == "tool_call_finished"]
    assert called == [child_call, lead_call]  # the player's points name the cards


async def test_a_call_id_shaped_as_a_childs_card_key_is_not_that_childs_card(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # A lead's model reads its child's reference in the result of subagent_create, then gives
    # a call of its own the id the child's card has in the view ("THREAD/call_0").
    adding_worker(registry)

    def lead(messages: list[tl.Message], tools: Any) -> Any:
        results = [m for m in messages if m.role == "tool"]
        if not results:
            return call("subagent_create", {"agent": "worker", "name": "w1", "message": "go"})
        if len(results) == 1:
            reference = json.loads(results[0].content or "")["reference"]
            return call("add", {"a": 1, "b": 1}, id=f"{reference}/call_0")
        return text("done")

    tl.define_prompt("lead", prompt="Lead.", model=FunctionModel(lead), tools=["add"],
                     registry=registry)  # fmt: skip
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("worker")]),
                    registry=registry)  # fmt: skip
    thread = await rt.create_thread("boss")
    await thread.send("go")
    (child,) = thread.children
    state = replay(rt.thread(thread.id))
    lead_calls = [c for m in state.messages[thread.id] for c in m["calls"]]
    (child_call,) = [c for m in state.messages[child.id] for c in m["calls"]]
    assert child_call == f"{child.id}/call_0"
    assert child_call not in lead_calls  # the lead's is keyed under the lead
    assert f"{thread.id}/{child.id}/call_0" in lead_calls
    shown = state.cards[child_call]
    assert (shown["thread"], shown["result"]) == (child.id, "14")
    assert state.cards[f"{thread.id}/{child.id}/call_0"]["result"] == "2"


async def test_a_branch_cut_at_a_call_shows_it_queued_and_its_run_idle(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("note", description="Note.", execute=lambda s, a: "noted", registry=registry)
    script = [step(call("note", id="c1"), call("note", id="c2")), text("ok")]
    tl.define_prompt("p", prompt="x", tools=["note"], model=ScriptedModel(script),
                     registry=registry)  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    branch = await thread.fork("c2")  # c1 ran; c2 never did in the branch
    state = replay(branch)
    assert {key: card["status"] for key, card in state.cards.items()} == {
        "c1": "success",
        "c2": "queued",
    }
    assert state.run["status"] == "idle"
    assert static_text(branch).splitlines()[0].endswith("— run idle")
