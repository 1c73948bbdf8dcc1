"""The player's history: the points of a thread and its subagents, labelled, each step's
narration at the point it tells of, sent once with the thread's whole trace."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FinishChunk, ModelChunk, ModelRequest, TextChunk, call, text
from threadlab.store import StoredEvent
from threadlab.widgets import LiveRun, PlayerView, ThreadView
from threadlab.widgets._history import TEXT_ANSWER, history_of, tell
from threadlab.widgets._replay import relate, replay

from ..execution.test_snapshot import SECRET, made
from ..helpers import HangingTool
from .fake_comm import install


def shown_id(thread: tl.Thread, point: Any) -> str:
    """A point's id as the player has it: a call's names its card, "THREAD/ID" for a
    descendant's call (its id may be its parent's too)."""
    about_a_call = point.kind.startswith(("tool_call", "approval"))
    return (
        f"{point.thread_id}/{point.id}"
        if about_a_call and point.thread_id != thread.id
        else point.id
    )


async def test_the_points_are_the_history_with_labels_and_narration(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    thread = await made(rt, registry)
    (child,) = thread.children
    view = tl.player(thread)
    assert isinstance(view, PlayerView)
    assert not view.narrating  # outside a notebook's cell: told at once
    points = view.points
    assert [(p["kind"], p["id"]) for p in points] == [
        (p.kind, shown_id(thread, p)) for p in thread.history_points()
    ]
    labels = [p["label"] for p in points if p["thread"] == thread.id]
    assert labels[:4] == ["user: go", "call of save", "call of mood", "assistant calls save, mood"]
    assert "subagent w1 created" in labels
    assert labels[-1] == "run completed"
    assert next(p["label"] for p in points if p["thread"] == child.id) == "user: task"
    # Told from the events read with the points, as from each thread's own events.
    fresh = history_of(thread, rt.store, told=False)
    assert points == tell(thread, rt.store, fresh) == history_of(thread, rt.store)
    told = {p["label"]: p["explain"] for p in points if "explain" in p}
    assert told["assistant calls save, mood"].startswith("**A model step")
    assert "execute local tools sequentially" in told["assistant calls save, mood"]
    assert told["subagent w1 created"].startswith("**A subagent.** While `subagent_create` ran")
    assert {p["thread"]: p["env"] for p in points if "env" in p}[child.id] == {}
    # The whole trace goes with it once (the child's messages too), and no secret.
    state = view.saved_state()
    assert set(state["trace"]["messages"]) == {thread.id, child.id}
    assert state["points"] == points
    # The trace it draws from is the thread's as any view rebuilds it (read once with the
    # points: the status changes those leave out are in it).
    assert view.state.snapshot() == replay(thread).snapshot()
    assert SECRET not in json.dumps(state)
    assert repr(view).startswith(f"player of {thread.id}: {len(points)} points")


async def test_each_point_reads_the_variables_a_snapshot_there_holds_never_a_secret(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    thread = await made(rt, registry)  # MOOD changes from "calm" to "busy" during the run
    points = tl.player(thread).points
    # A thread's variables go on its first point and where they changed: at any point they
    # are those of its latest such point.
    then: dict[str, dict[str, str]] = {}
    for at, point in enumerate(points):
        then.update({point["thread"]: point["env"]} if "env" in point else {})
        if point["thread"] == thread.id:
            assert then[thread.id] == thread.snapshot(at).env, (at, point["label"])
    assert points[0]["env"] == {"KEY": "[secret:KEY]", "MOOD": "calm"}
    changed = [p for p in points if "env" in p and p["thread"] == thread.id]
    assert [p["env"]["MOOD"] for p in changed] == ["calm", "busy"]
    assert SECRET not in json.dumps(points)


async def test_each_model_step_carries_its_choices_and_what_it_chose(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    thread = await made(rt, registry)
    steps = [p for p in history_of(thread, rt.store) if "offered" in p]
    lead = [p for p in steps if p["thread"] == thread.id]
    # The choices are the tools the model was offered (those of the request, the reserved
    # subagent tools included), and a text answer.
    offered = lead[0]["offered"]
    assert offered[-1] == TEXT_ANSWER
    assert {"save", "mood", "subagent_create"} <= set(offered)
    assert [p["answer"] for p in lead] == [
        ["mood", "save"],
        ["subagent_create"],
        ["save"],
        [TEXT_ANSWER],
    ]
    # The child's own model steps can be predicted too.
    assert any(p["thread"] != thread.id for p in steps)
    # Asked before anything shows the answer: a step's calls start (their progress shows)
    # before its message is stored, so the question is on the first of those points.
    points = history_of(thread, rt.store)
    asked = [i for i, p in enumerate(points) if "offered" in p and p["thread"] == thread.id]
    assert [points[i]["kind"] for i in asked] == [
        "tool_call_started",
        "tool_call_started",
        "tool_call_started",
        "message_created",
    ]
    for i in asked[:3]:
        earlier = {(p["kind"], p["id"]) for p in points[:i]}
        assert ("tool_call_started", points[i]["id"]) not in earlier


async def test_a_damaged_row_is_a_point_marked_damaged_and_the_rest_plays(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    thread = await made(rt, registry)
    before = len(thread.history_points())
    rt.store.add_events([StoredEvent(thread.id, "tool_call_started", "{not json")])
    rt.store.add_events([StoredEvent(thread.id, "custom", "[1, 2]")])
    fresh = tl.Runtime(registry, rt.store).thread(thread.id)
    points = tl.player(fresh).points
    assert len(points) == before + 2
    assert [(p["kind"], p["label"]) for p in points[-2:]] == [
        ("tool_call_started", "tool call started: damaged row"),
        ("custom", "custom: damaged row"),
    ]
    assert all(p.get("damaged") for p in points[-2:])
    assert not any(p.get("damaged") for p in points[:-2])
    assert tl.explain(fresh)  # the narration reads what can be read


async def test_step_through_sends_the_points_follows_a_run_and_a_fork_ends_it(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    thread = await made(rt, registry)
    view = ThreadView(rt, relate(replay(thread), thread))
    assert view.points == []
    view._on_message(view, {"op": "play", "thread": thread.id, "playing": True}, [])
    assert [p["id"] for p in view.points] == [shown_id(thread, p) for p in thread.history_points()]
    # Asked for another thread: nothing.
    view._on_message(view, {"op": "play", "thread": "thr_other", "playing": False}, [])
    assert view.points
    # "Fork from here" (the player sends the view's fork): the branch runs in the view, which
    # shows it as it is (no points) and can step through it in turn.
    view._on_message(view, {"op": "fork", "thread": thread.id, "at": "call_child"}, [])
    assert view._forking is not None
    await view._forking
    assert view.points == []
    assert not view.playing
    branch = view.state.root_id
    assert branch != thread.id
    # The branch made a child of its own while it ran here: the view shows it too.
    (child,) = rt.thread(branch).children
    assert child.id in {t["id"] for t in view.trace["threads"]}
    assert view.trace["messages"][child.id]
    view._on_message(view, {"op": "play", "thread": branch, "playing": True}, [])
    assert {p["thread"] for p in view.points} == {branch, child.id}
    assert SECRET not in json.dumps(view.points) + repr(sent)


async def test_a_player_follows_a_history_written_by_another_process(
    store_spec: str, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One runtime runs the thread; a player on another runtime over the same store reads
    the new points as they are stored, and stops following when the run ends."""
    install(monkeypatch)
    writer = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await made(writer, registry)
    hanging = HangingTool("waited")
    tl.define_tool("hang", description="Wait.", execute=hanging, registry=registry)
    tl.define_prompt(
        "waits",
        prompt="Wait.",
        model=tl.models.ScriptedModel([call("hang", {}), text("done waiting")]),
        tools=["hang"],
        registry=registry,
    )
    running = await writer.create_thread("waits")
    task = asyncio.ensure_future(running.send("go"))
    await hanging.entered.wait()
    reader = tl.Runtime(registry, store_spec, secret_key="k")
    view = tl.player(reader.thread(running.id))
    view.follow_every = 0.05
    shown = len(view.points)
    view._on_message(view, {"op": "ready"}, [])
    assert view._following is not None
    hanging.release.set()
    assert (await task).status == "completed"
    await asyncio.wait_for(view._following, 10)
    assert len(view.points) > shown
    assert view.points[-1]["label"] == "run completed"
    assert view.trace["run"]["status"] == "completed"
    assert len(thread.history_points()) > 0
    writer.close()
    reader.close()


async def test_stepping_through_a_run_here_follows_it_to_its_end(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    hanging = HangingTool("waited")
    tl.define_tool("hang", description="Wait.", execute=hanging, registry=registry)
    tl.define_prompt(
        "waits",
        prompt="Wait.",
        model=tl.models.ScriptedModel([call("hang", {}), text("done waiting")]),
        tools=["hang"],
        registry=registry,
    )
    thread = await rt.create_thread("waits")
    live = LiveRun(rt, thread, rate=50)
    task = asyncio.ensure_future(live.run("go"))
    await hanging.entered.wait()
    live.view._on_message(live.view, {"op": "play", "thread": thread.id, "playing": True}, [])
    during = [p["label"] for p in live.view.points]
    assert during[-1] == "assistant calls hang"  # the call runs; its end is not stored yet
    hanging.release.set()
    await task
    after = [p["label"] for p in live.view.points]
    assert after[: len(during)] == during
    assert after[-1] == "run completed"  # sent at the run's end, whatever the interval


async def test_fork_from_here_while_another_runtime_runs_the_thread_is_refused(
    store_spec: str, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two at once: a player forks a thread that another runtime on the same store is
    running. The fork is refused with the API's error, nothing is written, and the player
    keeps playing; once the run ends, the same fork is made."""
    sent = install(monkeypatch)
    hanging = HangingTool("waited")
    tl.define_tool("hang", description="Wait.", execute=hanging, registry=registry)
    tl.define_prompt(
        "waits",
        prompt="Wait.",
        model=tl.models.ScriptedModel([call("hang", {}), text("done waiting")]),
        tools=["hang"],
        registry=registry,
    )
    writer = tl.Runtime(registry, store_spec, secret_key="k")
    running = await writer.create_thread("waits")
    task = asyncio.ensure_future(running.send("go"))
    await hanging.entered.wait()
    reader = tl.Runtime(registry, store_spec, secret_key="k")
    view = tl.player(reader.thread(running.id))
    first = running.messages[0].id
    before = len(reader.threads())
    view._on_message(view, {"op": "fork", "thread": running.id, "at": first}, [])
    assert view._forking is not None
    await view._forking
    refused = [
        data["content"]
        for _, kind, data in sent
        if kind == "comm_msg" and data.get("method") == "custom"
        and data["content"].get("op") == "fork_error"
    ]  # fmt: skip
    assert len(refused) == 1
    assert "running" in refused[0]["error"]
    assert len(reader.threads()) == before  # nothing written
    assert view.playing
    assert view.points
    hanging.release.set()
    await task
    view._on_message(view, {"op": "fork", "thread": running.id, "at": first}, [])
    await view._forking
    assert view.state.root_id != running.id
    assert not view.playing
    writer.close()
    reader.close()


class Growing:
    """A model whose every answer reports more tokens than the last."""

    name = "growing"

    def __init__(self) -> None:
        self.calls = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.calls += 1
        yield TextChunk(f"answer {self.calls}")
        yield FinishChunk(usage={"input_tokens": 10 * self.calls, "output_tokens": 1})


async def test_the_player_sums_the_usage_of_the_last_run_as_any_view_does(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    tl.define_prompt("p", prompt="t", model=Growing(), registry=registry)
    thread = await rt.create_thread("p")
    await thread.send("one")
    second = await thread.send("two")
    assert second.usage == {"input_tokens": 20, "output_tokens": 1}
    # The status changes that start each run are read with the points: the run's summary
    # starts over there.
    assert tl.player(thread).state.run["usage"] == second.usage == replay(thread).run["usage"]
