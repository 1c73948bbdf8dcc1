"""Workers that die: kill -9 of the Ray worker running a child or an evaluation's row, found
through the pid the run itself wrote. Ray runs the task again; opening the thread answers the
interrupted call "interrupted" (it never runs twice) and the run goes on. Cancelling the
lead stops its children's workers and leaves their histories repaired."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.evaluation._on_engine import ENGINE_RERUN_NOTE

from .conftest import KEY
from .crew import define_crew, ledger_lines
from .test_ray_engine import _answered_once

pytestmark = pytest.mark.processes  # Ray's worker processes

KILLS = 10

NODE_LOST_WITHIN = 30.0
"""Seconds from a node's removal to the end of each child it ran, on a cluster's other node:
Ray learns the node is gone, starts a worker on the other and the run goes on. Measured 5.8 s
on a quiet machine and 11-14 s with a process keeping one core busy (the worker's start-up);
the bound leaves room for a busier machine."""


async def kill_each_once(
    where: Path, count: int, rt: tl.Runtime | None = None, limit: float = 240.0, started: int = 1
) -> dict[str, float]:
    """Kill -9 the worker of each run that wrote its pid into `where` (once each), until
    `count` were killed; when each was (thread id -> time). With `rt` (a runtime of its own,
    as another process watching the store), one at a time: the next once the last one's
    thread has ended (Ray ran it on in a new worker). The first kill waits until `started`
    runs are under way (their workers started)."""
    killed: dict[str, float] = {}
    deadline = time.monotonic() + limit
    for _ in range(int(limit / 0.05)):
        if len(list(where.glob("thr_*.pid"))) >= started:
            break
        await asyncio.sleep(0.05)
    while len(killed) < count and time.monotonic() < deadline:
        for pid_file in where.glob("thr_*.pid"):
            thread_id = pid_file.stem
            if thread_id in killed or len(killed) == count:
                continue
            text = pid_file.read_text()
            if not text:
                continue
            os.kill(int(text), signal.SIGKILL)
            killed[thread_id] = time.time()
            if rt is not None:
                await _until_ended(rt, thread_id, deadline)
        await asyncio.sleep(0.05)
    return killed


async def _until_ended(rt: tl.Runtime, thread_id: str, deadline: float) -> None:
    for _ in range(int((deadline - time.monotonic()) / 0.05)):
        if _ended(rt, thread_id):
            return
        await asyncio.sleep(0.05)


def _still_running(pid: int, within: float = 10.0) -> bool:
    """Whether process `pid` still runs after `within` seconds (a zombie does not)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        if state == "Z":
            return False
        time.sleep(0.05)
    return True


def _ended(rt: tl.Runtime, thread_id: str) -> bool:
    return any(isinstance(e, tl.RunFinishedEvent) for e in rt.thread(thread_id).events)


def _ended_at(thread: tl.Thread) -> float:
    ends = [e.at for e in thread.events if isinstance(e, tl.RunFinishedEvent)]
    assert ends, f"{thread.id} never ended"
    return ends[-1]


@pytest.mark.timeout(600)  # ten workers killed one after the other, each replaced by Ray
async def test_children_whose_workers_are_killed_end_and_report_once(
    ray_cluster: Any, store_spec: str, tmp_path: Path
) -> None:
    registry = tl.Registry()
    # Calls long enough that each is killed before it ends, one worker after the other.
    define_crew(registry, tmp_path, pause=120.0)
    rt = tl.Runtime(registry, store_spec, secret_key=KEY, engine=tl.RayEngine(max_retries=3),
                    poll_interval=0.1)  # fmt: skip
    lead = await rt.create_thread("fan")
    watcher = tl.Runtime(registry, store_spec, secret_key=KEY)
    # Once the first eight run (the local Ray's room: 2 cores, a quarter each), so that a
    # kill is timed against Ray's replacing one worker, not eight starting together.
    killer = asyncio.ensure_future(kill_each_once(tmp_path, KILLS, watcher, started=8))
    run = await asyncio.wait_for(lead.send(str(KILLS)), 500)
    killed = await killer
    watcher.close()
    assert run.status == "completed"
    children = lead.children
    assert len(killed) == KILLS == len(children)
    late = []
    for child in children:
        assert child.status in ("completed", "failed"), child.status
        if _ended_at(child) - killed[child.id] > 15:
            late.append((child.name, round(_ended_at(child) - killed[child.id], 1)))
        _answered_once(child)
        interrupted = [m for m in child.messages if m.role == "tool"]
        assert "interrupted" in (interrupted[0].content or "")
    assert late == []
    reports = [m.subagent_id for m in lead.messages if m.role == "user" and m.subagent_id]
    assert sorted(reports) == sorted(c.id for c in children)  # one report per child
    calls = ledger_lines(tmp_path)
    assert len(calls) == len({(thread, call) for thread, call, _ in calls}) == KILLS
    _answered_once(lead)
    rt.close()


async def test_an_evaluation_row_whose_worker_is_killed_runs_on_once_and_says_so(
    ray_cluster: Any, store_spec: str, tmp_path: Path
) -> None:
    registry = tl.Registry()
    define_crew(registry, tmp_path, pause=4.0)
    rt = tl.Runtime(registry, store_spec, secret_key=KEY, engine=tl.RayEngine())
    killer = asyncio.ensure_future(kill_each_once(tmp_path, 1))
    cases = [tl.Case(f"c{i}", f"topic {i}") for i in range(3)]
    report = await asyncio.wait_for(tl.evaluate("jotter", cases, runtime=rt), 120)
    (victim,) = await killer
    assert len(report.rows) == 3
    by_thread = {r.thread_id: r for r in report.rows}
    assert by_thread[victim].note == ENGINE_RERUN_NOTE
    assert by_thread[victim].status == "completed"
    assert [r.note for r in report.rows if r.thread_id != victim] == [None, None]
    assert len(ledger_lines(tmp_path)) == 3  # the killed call is not run again
    for row in report.rows:
        _answered_once(rt.thread(row.thread_id or ""))
    rt.close()


async def test_cancelling_the_lead_stops_its_childrens_workers_and_repairs_them(
    ray_cluster: Any, tmp_path: Path
) -> None:
    registry = tl.Registry()
    define_crew(registry, tmp_path, pause=60.0)
    rt = tl.Runtime(registry, tmp_path / "s", secret_key=KEY, engine=tl.RayEngine(),
                    poll_interval=0.1)  # fmt: skip
    lead = await rt.create_thread("fan")
    sending = asyncio.ensure_future(lead.send("2"))
    for _ in range(600):  # both calls under way (at most a minute)
        if len(list(tmp_path.glob("thr_*.pid"))) == 2:
            break
        await asyncio.sleep(0.1)
    pids = [int(p.read_text()) for p in tmp_path.glob("thr_*.pid")]
    assert len(pids) == 2
    sending.cancel()
    with pytest.raises(asyncio.CancelledError):
        await sending
    # Their workers were stopped, not left running the calls (a killed process is gone once
    # Ray reaps it; a zombie runs nothing).
    assert [pid for pid in pids if _still_running(pid)] == []
    for child in lead.children:
        _answered_once(child)
        assert child.status in ("failed", "idle")
    _answered_once(lead)
    rt.close()


@pytest.mark.timeout(420)  # a cluster of its own, started and stopped in another process
def test_children_on_a_node_that_is_lost_run_on_on_another_node(
    tmp_path: Path, postgres_url: str
) -> None:
    pytest.importorskip("ray", reason="the engine tests need Ray (threadlab[ray])")
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "THREADLAB_SECRET_KEY": KEY, "PYTHONPATH": str(root)}
    done = subprocess.run(
        # A cluster's store: its nodes are other machines as far as the engine knows.
        [sys.executable, "-m", "tests.engine.node_loss", postgres_url, str(tmp_path)],
        capture_output=True, text=True, timeout=400, cwd=root, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = json.loads(done.stdout.splitlines()[-1])
    print("node lost:", {c: round(v["ended_after"], 1) for c, v in outcome["children"].items()})
    assert outcome["lead"] == "completed"
    children = outcome["children"]
    assert len(children) == 2
    for child in children.values():
        assert child["status"] == "completed"
        assert child["ended_after"] < NODE_LOST_WITHIN, child
        # Its call was interrupted with the node, answered once, and not run again.
        assert len(child["calls"]) == len(child["results"]) == 1
        assert "interrupted" in child["results"][0]
    assert sorted(outcome["reports"]) == sorted(children)  # one report per child
    assert sorted(thread for thread, _ in outcome["ledger"]) == sorted(children)
