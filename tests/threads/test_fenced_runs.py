"""A run whose lease another process took over while it waited in a tool (as when its own
process was stopped past the lease): it ends "interrupted", saying why, without writing
anything more — not its result, not its end, not even a cancelled call's result — and a
stream of it still ends with its `run_finished`. The takeover is played here through a second
store object, as the other process's repair and run would write it."""

from __future__ import annotations

import asyncio
import logging
import time
from pathlib import Path

import pytest

import threadlab as tl
from threadlab.models import call, text
from threadlab.store import LeaseLostError, RunRecord, Store
from threadlab.threads import _lease

from ..helpers import HangingTool, scripted_prompt


def take_over(store_dir: Path, thread_id: str) -> Store:
    """What another process does once it finds the lease stale: end the abandoned run
    (repairing the thread) and start its own."""
    other = tl.SQLiteStore(store_dir)
    (abandoned,) = other.running_runs(thread_id)
    other.finish_run(abandoned.id, "interrupted", None, "owner gone", time.time())
    now = time.time()
    other.start_run(RunRecord("run_elsewhere", thread_id, "running", 1, "elsewhere", now, now))
    return other


def stored(store: Store, thread_id: str) -> tuple[list[str], list[str]]:
    messages = [m.data for m in store.list_messages(thread_id)]
    return messages, [e.data for e in store.iter_events(thread_id)]


@pytest.mark.parametrize("how", ["send", "stream", "cancelled"])
async def test_a_run_taken_over_in_a_tool_ends_without_writing_more(
    rt: tl.Runtime,
    registry: tl.Registry,
    store_dir: Path,
    how: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setattr(_lease, "HEARTBEAT_SECONDS", 0.01)  # it beats, and finds it lost
    hanging = HangingTool("late result")
    tl.define_tool("wait", description="Wait.", execute=hanging, registry=registry)
    scripted_prompt(registry, [call("wait"), text("never answered")], tools=["wait"])
    thread = await rt.create_thread("p")
    heard: list[tl.ThreadEvent] = []

    async def streamed() -> None:
        async for event in thread.stream("go"):
            heard.append(event)

    running = asyncio.ensure_future(thread.send("go") if how != "stream" else streamed())
    await hanging.entered.wait()
    other = take_over(store_dir, thread.id)
    before = stored(other, thread.id)
    await asyncio.sleep(0.05)  # a few heartbeats: refused, they stop
    if how == "cancelled":
        running.cancel()  # interrupted as well: the cancelled call's result is not its to write
        with pytest.raises(asyncio.CancelledError):
            await running
    else:
        hanging.release.set()
        run = await asyncio.wait_for(running, 10)
        if how == "send":
            assert isinstance(run, tl.Run)
            assert run.status == "interrupted"
            assert "taken over by another process" in (run.error or "")
        else:
            finished = heard[-1]
            assert isinstance(finished, tl.RunFinishedEvent)
            assert finished.status == "interrupted"
            assert "taken over by another process" in (finished.error or "")
    assert stored(other, thread.id) == before  # nothing more: no result, no end, no event
    (running_run,) = other.running_runs(thread.id)
    assert running_run.id == "run_elsewhere"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    other.close()


async def test_a_run_taken_over_queues_no_message_for_the_next_owner(
    rt: tl.Runtime, registry: tl.Registry, store_dir: Path
) -> None:
    entered, release = asyncio.Event(), asyncio.Event()
    refused: list[str] = []

    async def late(state: tl.ThreadState, args: dict[str, object]) -> str:
        entered.set()
        await release.wait()
        try:
            await state.queue_message("injected by the run taken over")
        except LeaseLostError as exc:
            refused.append(str(exc))
        return "late result"

    tl.define_tool("late", description="Late.", execute=late, registry=registry)
    scripted_prompt(registry, [call("late"), text("never answered")], tools=["late"])
    thread = await rt.create_thread("p")
    running = asyncio.ensure_future(thread.send("go"))
    await entered.wait()
    other = take_over(store_dir, thread.id)
    release.set()
    run = await asyncio.wait_for(running, 10)
    assert run.status == "interrupted"
    assert len(refused) == 1
    assert not other.has_queued(thread.id)  # the new owner's run hears nothing from it
    other.close()
