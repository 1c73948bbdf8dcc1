"""Decisions in cards: with a notebook's `CardApprover`, a call that needs a decision waits in
the card of the live view on screen (the run keeps going after the click); with no view on
screen the run ends "waiting", and a reopened view records the click and resumes there."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import ScriptedModel, call, step, text
from threadlab.widgets import CardApprover, LiveRun, ThreadView, replay, static_html

from ..helpers import gated_delete
from .fake_comm import customs_of, install


def define(registry: tl.Registry, ran: list[str]) -> None:
    gated_delete(registry, ran)
    script = [
        step(call("delete", {"path": "/a"}, id="c1"), call("delete", {"path": "/b"}, id="c2")),
        step(call("delete", {"path": "/c"}, id="c3")),
        text("done"),
    ]
    tl.define_prompt("p", prompt="x", tools=["delete"], model=ScriptedModel(script),
                     registry=registry)  # fmt: skip


@pytest.fixture
def card_rt(registry: tl.Registry, store_dir: Any) -> Any:
    runtime = tl.Runtime(registry, store_dir, secret_key="k", approver=CardApprover())
    yield runtime
    runtime.close()


async def until_asked(view: ThreadView, call_id: str) -> None:
    """Until the card of `call_id` shows its question (the run waits on it)."""
    for _ in range(400):
        card = view.state.cards.get(call_id)
        if card and card["status"] == "waiting" and card["approval"]["state"] == "asked":
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"{call_id} never asked: {view.state.cards.get(call_id)}")


def click(view: ThreadView, thread_id: str, call_id: str, **decision: Any) -> None:
    """What the card's buttons send."""
    view._on_message(view, {"op": "decide", "thread": thread_id, "call": call_id, **decision}, [])


async def test_the_run_waits_in_the_card_and_goes_on_after_each_click(
    card_rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    ran: list[str] = []
    define(registry, ran)
    thread = await card_rt.create_thread("p")
    live = LiveRun(card_rt, thread, rate=50)
    live.view._on_message(live.view, {"op": "ready"}, [])  # the front end drew it
    running = asyncio.create_task(live.run("clean up"))
    await until_asked(live.view, "c1")
    click(live.view, thread.id, "c1", approved=True)
    await until_asked(live.view, "c2")
    # Edited arguments the schema refuses: the card hears why; nothing is decided.
    click(live.view, thread.id, "c2", approved=True, arguments={"path": 7})
    assert live.view._deciding is not None
    await live.view._deciding
    # The run's own patches may go out after the refusal: the card's answer is found by kind.
    refusals = [c for c in customs_of(sent) if c["op"] == "decide_error"]
    assert refusals[-1] == {
        "op": "decide_error",
        "thread": thread.id,
        "call": "c2",
        "error": "invalid arguments: path: 7 is not of type 'string'",
    }
    assert not running.done()
    click(live.view, thread.id, "c2", approved=True, arguments={"path": "/tmp/b"})
    await until_asked(live.view, "c3")
    click(live.view, thread.id, "c3", approved=False, reason="keep it")
    finished = await asyncio.wait_for(running, 20)
    assert finished.status == "completed"
    assert ran == ["/a", "/tmp/b"]
    decided = [e for e in thread.events if isinstance(e, tl.ApprovalDecidedEvent)]
    assert [(e.tool_call_id, e.approved, e.edited, e.by, e.reason) for e in decided] == [
        ("c1", True, False, "view", None),
        ("c2", True, True, "view", None),
        ("c3", False, False, "view", "keep it"),
    ]
    cards = live.view.trace["cards"]
    assert cards["c2"]["approval"] == {
        "state": "approved", "edited": True, "by": "view", "reason": None,
        "arguments": '{"path": "/tmp/b"}',
    }  # fmt: skip
    assert (cards["c3"]["status"], cards["c3"]["result"]) == ("error", "rejected: keep it")
    # The card shows the arguments that ran, the model's proposal beside them, live and
    # reopened, and in the static HTML the notebook keeps.
    for shown in (cards, replay(thread).snapshot()["cards"]):
        ran_with, proposed = json.loads(shown["c2"]["args"]), json.loads(shown["c2"]["proposed"])
        assert (ran_with, shown["c2"]["label"], proposed) == ({"path": "/tmp/b"}, "/tmp/b",
                                                               {"path": "/b"})  # fmt: skip
        assert shown["c1"]["proposed"] is None
        assert shown["c2"]["proposed_label"] == "/b"  # what a point before the edit shows
    # Asked for whole ("show all"), they are those it ran with too.
    asked = {"op": "fetch_arguments", "thread": thread.id, "call": "c2"}
    live.view._on_message(live.view, asked, [])
    answer = [c for c in customs_of(sent) if c["op"] == "arguments"][-1]
    assert json.loads(answer["text"]) == {"path": "/tmp/b"}
    page = static_html(thread)
    assert page.index("/tmp/b") < page.index("edited from the model's proposal")


async def test_with_no_view_on_screen_the_run_waits_and_a_reopened_view_resumes_it(
    card_rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    ran: list[str] = []
    define(registry, ran)
    approver = card_rt.approver
    assert isinstance(approver, CardApprover)
    approver.ready_s = 0.2
    thread = await card_rt.create_thread("p")
    live = LiveRun(card_rt, thread, rate=50)  # displayed, never drawn (a headless run)
    finished = await live.run("clean up")
    assert finished.status == "waiting"
    assert live.view.trace["cards"]["c1"]["status"] == "waiting"
    assert live.view.trace["cards"]["c2"]["status"] == "queued"  # never started
    # The next day: the thread reopened in a view, the card still asks.
    view = ThreadView(card_rt, replay(card_rt.thread(thread.id)))
    assert view.trace["cards"]["c1"]["approval"]["state"] == "asked"
    assert view.trace["run"]["status"] == "waiting"
    click(view, thread.id, "c1", approved=True)
    assert view._deciding is not None
    await view._deciding  # recorded, then resumed live here until the next question
    assert ran == ["/a"]
    assert view.trace["cards"]["c2"]["approval"]["state"] == "asked"
    click(view, thread.id, "c2", approved=False)
    await view._deciding
    click(view, thread.id, "c3", approved=True)
    await view._deciding
    assert ran == ["/a", "/c"]
    assert view.trace["run"]["status"] == "completed"
    assert card_rt.thread(thread.id).status == "idle"


async def test_a_click_on_a_call_that_does_not_wait_is_refused(
    card_rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    define(registry, [])
    approver = card_rt.approver
    assert isinstance(approver, CardApprover)
    approver.ready_s = 0.1
    thread = await card_rt.create_thread("p")
    await thread.send("clean up")
    view = ThreadView(card_rt, replay(thread))
    click(view, thread.id, "c9", approved=True)
    await view._deciding if view._deciding else None
    assert customs_of(sent)[-1]["error"] == "that call is not in this view"
    await thread.approve("c1")
    click(view, thread.id, "c1", approved=True)  # decided already elsewhere
    await view._deciding if view._deciding else None
    assert "does not wait for a decision" in customs_of(sent)[-1]["error"]
    other = await card_rt.create_thread("p")
    click(view, other.id, "c1", approved=True)  # a thread this view does not show
    assert [e for e in other.events if isinstance(e, tl.ApprovalDecidedEvent)] == []


async def test_a_resumed_view_shows_the_decided_step_above_what_it_runs(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`%threadlab approve ID --arguments ...` resumes in a view of its own: it showed the
    call with no arguments, no "edited from", and its card below the final answer."""
    install(monkeypatch)
    path = {"type": "object", "properties": {"path": {"type": "string"}}}
    tl.define_tool("delete", description="Delete.", execute=lambda s, a: f"deleted {a['path']}",
                   args=path, approval="always", registry=registry)  # fmt: skip
    plan = [call("delete", {"path": "/old.txt"}, id="call_del"), text("cleaned")]
    tl.define_prompt("cleaner", prompt="x", tools=["delete"], registry=registry,
                     model=tl.models.ScriptedModel(plan))  # fmt: skip
    thread = await rt.create_thread("cleaner")
    await thread.send("Clean up.")
    await thread.approve("call_del", arguments={"path": "/tmp/old.txt"})
    live = LiveRun(rt, thread, 50)
    await live.run(None)
    trace = live.view.trace
    card = trace["cards"]["call_del"]
    assert json.loads(card["args"]) == {"path": "/tmp/old.txt"}
    assert json.loads(card["proposed"]) == {"path": "/old.txt"}  # "edited from"
    assert (card["approval"]["state"], card["approval"]["edited"]) == ("approved", True)
    shown = [(m["role"], m["calls"], m["text"]) for m in trace["messages"][thread.id]]
    assert shown == [
        ("assistant", ["call_del"], ""),
        ("tool", [], "deleted /tmp/old.txt"),
        ("assistant", [], "cleaned"),
    ]


async def test_a_childs_card_decides_its_own_call_when_its_id_is_its_parents_too(
    card_rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Each thread numbers its calls its own way: the worker's c1 is not the lead's c1. The
    # click, the fetched result and the card all name the worker's call.
    sent = install(monkeypatch)
    ran: list[str] = []
    define(registry, ran)
    tl.define_prompt("w", prompt="x", tools=["delete"], registry=registry,
                     model=ScriptedModel([call("delete", {"path": "/w"}, id="c1"),
                                          text("worker done")]))  # fmt: skip
    tl.define_agent("worker", side_a=tl.Side("w"), registry=registry)
    create = call("subagent_create", {"agent": "worker", "name": "w1", "message": "go"}, id="c1")
    tl.define_prompt("lead", prompt="x", registry=registry,
                     model=ScriptedModel([create, text("lead done")]))  # fmt: skip
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("worker")]),
                    registry=registry)  # fmt: skip
    thread = await card_rt.create_thread("boss")
    live = LiveRun(card_rt, thread, rate=50)
    live.view._on_message(live.view, {"op": "ready"}, [])
    running = asyncio.create_task(live.run("go"))
    for _ in range(400):
        if thread.children:
            break
        await asyncio.sleep(0.01)
    (child,) = thread.children
    key = f"{child.id}/c1"
    await until_asked(live.view, key)
    approver = card_rt.approver
    assert isinstance(approver, CardApprover)
    for _ in range(400):  # the child's run asks once it sees the view shows the child
        if approver.asks(child.id, "c1"):
            break
        await asyncio.sleep(0.01)
    assert not approver.asks(thread.id, "c1")  # the lead's c1 waits for nothing
    assert live.view.state.cards["c1"]["name"] == "subagent_create"
    click(live.view, child.id, key, approved=True)
    finished = await asyncio.wait_for(running, 20)
    assert (finished.status, ran) == ("completed", ["/w"])
    (decided,) = [e for e in child.events if isinstance(e, tl.ApprovalDecidedEvent)]
    assert (decided.tool_call_id, decided.by) == ("c1", "view")
    live.view._on_message(live.view, {"op": "fetch_result", "thread": child.id, "call": key}, [])
    answer = [c for c in customs_of(sent) if c["op"] == "result"][-1]
    assert answer == {"op": "result", "call": key, "text": "deleted /w"}
    assert live.view.trace["cards"][key]["result"] == "deleted /w"
    # Reopened: "fork from here" on the child's card forks the child at its own call.
    reopened = ThreadView(card_rt, replay(card_rt.thread(thread.id)))
    fork = {"op": "fork", "thread": child.id, "at": key, "result": "kept it"}
    reopened._on_message(reopened, fork, [])
    assert reopened._forking is not None
    await reopened._forking
    (branch,) = card_rt.thread(child.id).branches
    assert branch.forked_from is not None
    assert branch.forked_from.at == "c1"
    assert next(m.content for m in branch.messages if m.role == "tool") == "kept it"


async def test_a_reopened_roots_card_decides_the_roots_call_not_a_childs_of_the_same_id(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The lead and its non-blocking child both wait on a call_0 of their own. Approve on the
    # lead's card (it shows /root) decided the child's /child, and the card kept asking.
    install(monkeypatch)
    ran: list[str] = []

    gated_delete(registry, ran)
    tl.define_prompt("clean", prompt="Clean.", tools=["delete"], registry=registry,
                     model=ScriptedModel([call("delete", {"path": "/child"}, id="call_0"),
                                          text("cleaned")]))  # fmt: skip
    tl.define_agent("cleaner", side_a="clean", registry=registry)
    create = call("subagent_create", {"agent": "cleaner", "name": "c", "message": "go"}, id="c0")
    lead = ScriptedModel([create, call("delete", {"path": "/root"}, id="call_0"),
                          text("all done"), text("heard")])  # fmt: skip
    tl.define_prompt("lead", prompt="Lead.", tools=["delete"], model=lead, registry=registry)
    aside = tl.Subagent("cleaner", blocking=False)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[aside]), registry=registry)
    boss = await rt.create_thread("boss")
    await boss.send("tidy")
    (child,) = boss.children
    for _ in range(400):
        if rt.thread(child.id).status == "waiting":
            break
        await asyncio.sleep(0.01)
    assert sorted(r.thread_id for r in boss.pending) == sorted([boss.id, child.id])
    view = ThreadView(rt, replay(rt.thread(boss.id)))
    click(view, boss.id, "call_0", approved=True)  # the lead's card: delete /root
    assert view._deciding is not None
    await view._deciding
    assert ran[0] == "/root"
    decided = [e.tool_call_id for e in rt.thread(boss.id).events
               if isinstance(e, tl.ApprovalDecidedEvent)]  # fmt: skip
    assert decided == ["call_0"]
    assert [r.thread_id for r in rt.thread(child.id).pending] == [child.id]  # still asks


async def asked_in_a_nested_turn(
    rt: tl.Runtime, registry: tl.Registry, ran: list[str]
) -> tuple[tl.Thread, LiveRun, asyncio.Task[tl.RunFinishedEvent]]:
    """A live run of "p", whose prompt tool "cleaner" calls the gated delete ("inner") in
    its nested turn, once that call's card asks."""
    gated_delete(registry, ran)
    tl.define_prompt("cleaner", prompt="Clean.", expose_as_tool=True, tools=["delete"],
                     model=ScriptedModel([call("delete", {"path": "/a"}, id="inner"),
                                          text("cleaned")]), registry=registry)  # fmt: skip
    tl.define_prompt("p", prompt="x", tools=["cleaner"], registry=registry,
                     model=ScriptedModel([call("cleaner", {"message": "go"}, id="outer"),
                                          text("done")]))  # fmt: skip
    thread = await rt.create_thread("p")
    live = LiveRun(rt, thread, rate=50)
    live.view._on_message(live.view, {"op": "ready"}, [])
    running = asyncio.create_task(live.run("clean up"))
    await until_asked(live.view, "inner")
    return thread, live, running


async def test_a_nested_call_is_decided_in_its_card_while_the_run_waits(
    card_rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A prompt tool's nested turn cannot pause the run, but a live card can decide at once."""
    install(monkeypatch)
    ran: list[str] = []
    thread, live, running = await asked_in_a_nested_turn(card_rt, registry, ran)
    assert live.view.state.cards["inner"]["depth"] == 1
    assert not running.done()
    click(live.view, thread.id, "inner", approved=True)
    run = await running
    assert (run.status, ran) == ("completed", ["/a"])


async def test_a_nested_call_interrupted_while_its_card_asks_is_interrupted_not_waiting(
    card_rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A top-level call asked in its card stays waiting when the run is interrupted (a later
    run goes on with it); a nested one cannot: its card says interrupted, and asks no more."""
    install(monkeypatch)
    ran: list[str] = []
    thread, live, running = await asked_in_a_nested_turn(card_rt, registry, ran)
    running.cancel()  # what a kernel interrupt does to the cell's run
    await asyncio.gather(running, return_exceptions=True)
    cards = live.view.state.cards
    assert (cards["inner"]["status"], cards["outer"]["status"]) == ("interrupted", "interrupted")
    assert (thread.status, thread.pending, ran) == ("idle", [], [])
