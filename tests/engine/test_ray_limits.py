"""A run a Ray worker takes keeps every limit and policy it has in the caller's process: the
step limit, the budget, the approver and step mode; a run that stopped stays stopped; and an
engine closed under a run in flight ends that run quietly."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FinishChunk, FunctionModel, call

from .conftest import KEY

pytestmark = pytest.mark.processes  # Ray's worker processes


class Spending(FunctionModel):
    """Calls `tick` forever, reporting usage as a provider does."""

    def __init__(self) -> None:
        super().__init__(lambda messages, tools: call("tick", {}))

    async def stream(self, request: Any) -> Any:
        async for chunk in super().stream(request):
            if isinstance(chunk, FinishChunk):
                chunk = FinishChunk(usage={"input_tokens": 40, "output_tokens": 10})
            yield chunk


def define(registry: tl.Registry, approval: str | None = None) -> None:
    tl.define_tool("tick", description="Tick.", execute=lambda s, a: "tock",
                   args={"type": "object", "properties": {}}, approval=approval,
                   registry=registry)  # fmt: skip
    tl.define_prompt("looper", prompt="Loop.", model=Spending(), tools=["tick"],
                     registry=registry)  # fmt: skip


def calls(thread: tl.Thread) -> int:
    return sum(len(m.tool_calls) for m in thread.all_messages())


async def queued(rt: tl.Runtime, step: Any = False) -> tuple[tl.Thread, tl.Run]:
    thread = await rt.create_thread("looper")
    handled = await asyncio.wait_for(await thread.queue("go", step=step), 120)
    assert handled.run is not None
    return thread, handled.run


async def test_a_run_on_a_worker_stops_at_max_steps_and_stays_stopped(
    ray_cluster: Any, store_spec: str
) -> None:
    registry = tl.Registry()
    define(registry)
    rt = tl.Runtime(registry, store_spec, secret_key=KEY, engine=tl.RayEngine(), max_steps=3)
    thread, run = await queued(rt)
    assert run.status == "stopped"
    assert calls(thread) == 3
    await asyncio.sleep(1.0)  # nothing goes on once the worker is done with it
    assert calls(thread) == 3
    ended = [e.status for e in thread.events if isinstance(e, tl.RunFinishedEvent) and not e.depth]
    assert ended == ["stopped"]  # one run, not resumed again and again
    rt.close()


async def test_a_run_on_a_worker_keeps_the_budget_the_approver_and_step_mode(
    ray_cluster: Any, store_spec: str
) -> None:
    registry = tl.Registry()
    define(registry)
    budgeted = tl.Runtime(registry, store_spec, secret_key=KEY, engine=tl.RayEngine(),
                          budget=tl.Budget(max_tokens=120))  # fmt: skip
    thread, run = await queued(budgeted)
    assert run.status == "stopped"
    assert calls(thread) < 5  # 50 tokens a step: the third step would pass 120
    assert "budget" in (run.error or "").lower()
    budgeted.close()

    gated = tl.Registry()
    define(gated, approval="always")
    refusing = tl.Runtime(
        gated, store_spec, secret_key=KEY, engine=tl.RayEngine(), max_steps=2,
        approver=lambda request: tl.Approval(False, reason="not from a worker"),
    )  # fmt: skip
    thread, run = await queued(refusing)
    results = [m.content for m in thread.all_messages() if m.role == "tool"]
    assert results
    assert all(r == "rejected: not from a worker" for r in results)
    refusing.close()

    stepping = tl.Runtime(registry, store_spec, secret_key=KEY, engine=tl.RayEngine())
    thread, run = await queued(stepping, step=True)
    assert run.status == "waiting"
    assert [r.name for r in thread.pending] == ["tick"]
    assert not [m for m in thread.all_messages() if m.role == "tool"]
    stepping.close()


async def test_an_evaluation_on_ray_keeps_max_steps(ray_cluster: Any, store_spec: str) -> None:
    registry = tl.Registry()
    define(registry)
    rt = tl.Runtime(registry, store_spec, secret_key=KEY, engine=tl.RayEngine(), max_steps=2)
    report = await asyncio.wait_for(
        tl.evaluate("looper", [tl.Case(f"c{i}", "go") for i in range(3)], runtime=rt), 120
    )
    assert [row.status for row in report.rows] == ["stopped"] * 3
    for row in report.rows:
        assert calls(rt.thread(row.thread_id or "")) == 2
    rt.close()


CLOSE_IN_FLIGHT = """
import asyncio, sys, tempfile, time
import threadlab as tl

async def main():
    registry = tl.Registry()
    tl.define_tool("wait", description="Wait.", execute=lambda s, a: time.sleep(60) or "late",
                   args={"type": "object", "properties": {}}, registry=registry)
    tl.define_prompt("p", prompt="Wait.", model=tl.models.ScriptedModel(
        [tl.models.call("wait", {}), tl.models.text("done")]), tools=["wait"], registry=registry)
    engine = tl.RayEngine(max_concurrency=1)
    rt = tl.Runtime(registry, tempfile.mkdtemp(), secret_key="close-key", engine=engine)
    first, second = await rt.create_thread("p"), await rt.create_thread("p")
    running, waiting = await first.queue("go"), await second.queue("go")
    for _ in range(600):  # until the first call runs on its worker
        if any(m.tool_calls for m in first.all_messages()):
            break
        await asyncio.sleep(0.1)
    engine.close()
    outcomes = await asyncio.wait_for(asyncio.gather(running, waiting), 60)
    print("ENDED", [o.run for o in outcomes])
    rt.close()

asyncio.run(main())
"""


def test_closing_the_engine_under_a_run_in_flight_ends_it_quietly(tmp_path: Path) -> None:
    # An engine that started its own Ray (a process of its own: the tests' Ray is running).
    script = tmp_path / "close.py"
    script.write_text(textwrap.dedent(CLOSE_IN_FLIGHT))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=240, env={**os.environ, "RAY_ADDRESS": ""})  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "ENDED [None, None]" in done.stdout, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert "never retrieved" not in done.stderr
