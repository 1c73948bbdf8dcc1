"""A run in step mode "model" pauses before each model step: the view shows the request about
to be sent, Continue sends that step (and pauses before the next), Stop ends the view's run
with the thread's history as it stands."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import ScriptedModel, call, text
from threadlab.widgets import LiveRun, replay, static_html

from .fake_comm import install

SECRET = "hidden-key-for-pause-77"


def adder(registry: tl.Registry) -> ScriptedModel:
    def add(state: tl.ThreadState, a: int, b: int) -> int:
        """Add."""
        return a + b

    tl.tool(registry=registry)(add)
    model = ScriptedModel([call("add", {"a": 2, "b": 3}), text("5")])
    tl.define_prompt(
        "p",
        prompt="You add with key {{env:KEY}}.",
        tools=["add"],
        model=model,
        variables=[tl.Variable("KEY", type="secret")],
        registry=registry,
    )
    return model


def press(live: LiveRun, thread_id: str, action: str) -> None:
    """What the pause panel's buttons send."""
    live.view._on_message(live.view, {"op": "step", "thread": thread_id, "action": action}, [])


async def test_continue_sends_each_step_and_the_view_follows(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    model = adder(registry)
    thread = await rt.create_thread("p", secrets={"KEY": SECRET})
    live = LiveRun(rt, thread, rate=50)
    await live.run("2+3?", step="model")
    run = live.view.trace["run"]
    assert (run["status"], run["stop_reason"]) == ("waiting", "waiting: model step")
    assert run["next_request"].splitlines() == [
        "system: You add with key [secret:KEY].",
        "user: 2+3?",
        "tools: add (tool_choice auto, parallel calls no)",
    ]
    assert run["next_tools"] == ["add"]  # what a student predicting the step chooses from
    assert model.requests == []
    press(live, thread.id, "continue")
    assert live.view._stepping is not None
    await live.view._stepping
    run = live.view.trace["run"]
    assert run["stop_reason"] == "waiting: model step"
    told = run["next_request"].splitlines()[-2]
    assert told.startswith("tool (call_")
    assert told.endswith("): 5")
    assert len(model.requests) == 1
    press(live, thread.id, "continue")
    await live.view._stepping
    assert live.view.trace["run"]["status"] == "completed"
    assert [m.role for m in thread.messages] == ["user", "assistant", "tool", "assistant"]
    assert SECRET not in repr(sent) + repr(live.view.trace) + static_html(thread)


async def test_stop_leaves_the_thread_as_it_is_and_a_made_up_press_changes_nothing(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    model = adder(registry)
    thread = await rt.create_thread("p", secrets={"KEY": SECRET})
    live = LiveRun(rt, thread, rate=50)
    await live.run("2+3?", step="model")
    press(live, "thr_someone_else", "continue")  # not this view's thread
    live.view._on_message(live.view, {"op": "step", "thread": thread.id, "action": "go"}, [])
    assert live.view._stepping is None
    press(live, thread.id, "stop")
    run: dict[str, Any] = live.view.trace["run"]
    assert (run["status"], run["error"]) == ("interrupted", "stopped before a model step")
    press(live, thread.id, "continue")  # stopped: no pause left to go on from
    assert live.view._stepping is None
    assert model.requests == []
    assert [m.role for m in thread.messages] == ["user"]


async def test_a_model_steps_time_starts_when_its_run_went_on(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    adder(registry)
    thread = await rt.create_thread("p", secrets={"KEY": SECRET})
    await thread.send("2 + 3?", step="model")  # paused before the first model step
    await asyncio.sleep(0.3)  # a person reads the request
    await thread.resume()
    messages = replay(thread).snapshot()["messages"][thread.id]
    first = next(m for m in messages if m["role"] == "assistant")
    asked = next(m for m in messages if m["role"] == "user")
    assert first["since"] - asked["at"] >= 0.3  # the pause is before its step, not in it
    assert first["at"] - first["since"] < 0.3


async def test_a_stale_pause_shows_the_thread_as_it_is_and_runs_nothing(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After Run All a paused cell still offered Continue though a later cell had finished
    the run; Continue then drew "completed" with no call and no files."""
    install(monkeypatch)
    model = adder(registry)
    thread = await rt.create_thread("p", secrets={"KEY": SECRET})
    live = LiveRun(rt, thread, rate=50)
    await live.run("2+3?", step="model")
    assert live.view.trace["run"]["stop_reason"] == "waiting: model step"
    done = await thread.resume()  # a later cell goes on without the view
    assert done.status == "completed"
    asked = len(model.requests)
    for action in ("continue", "stop"):
        press(live, thread.id, action)
        assert live.view._stepping is None  # nothing ran
        assert len(model.requests) == asked
        trace = live.view.trace
        assert trace["run"]["status"] == "completed"
        calls = [c for c in trace["cards"].values() if c.get("name") == "add"]
        assert [c.get("status") for c in calls] == ["success"]


async def test_a_pause_redraws_itself_when_a_later_cell_goes_on(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After Run All, the paused cell still said "paused" though the next cell had finished
    the run: it shows the thread as it is, without a click."""
    install(monkeypatch)
    adder(registry)
    thread = await rt.create_thread("p", secrets={"KEY": SECRET})
    live = LiveRun(rt, thread, rate=50)
    await live.run("2+3?", step="model")
    live.view.watch_pause()
    assert live.view.trace["run"]["stop_reason"] == "waiting: model step"
    await thread.resume()  # the next cell
    trace = live.view.trace
    assert trace["run"]["status"] == "completed"
    assert [c["name"] for c in trace["cards"].values()] == ["add"]
    live.view.unwatch_pause()


async def test_a_pause_redraws_itself_when_another_runtime_goes_on(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The lesson goes on from the pause with a runtime of its own (`tl.Runtime()` in a later
    cell): the view finds the thread moved on in the store."""
    install(monkeypatch)
    adder(registry)
    thread = await rt.create_thread("p", secrets={"KEY": SECRET})
    live = LiveRun(rt, thread, rate=50)
    await live.run("2+3?", step="model")
    live.view.watch_pause(every=0.05)
    other = tl.Runtime(registry, rt.store)
    await other.thread(thread.id).resume()
    for _ in range(100):
        await asyncio.sleep(0.02)
        if live.view.trace["run"]["status"] == "completed":
            break
    assert live.view.trace["run"]["status"] == "completed"
    assert live.view._unwatch is None  # no longer paused: it stopped looking
    other.close()
