"""Workers that die: kill -9 of the Ray worker running a child or an evaluation's row, found
through the pid the run itself wrote. Ray runs the task again; opening the thread answers the
interrupted call "interrupted" (it never runs twice) and the run goes on. Cancelling the
lead stops its children's workers and leaves their histories repaired."""

from __future__ import annotations

import asyncio
import os
import signal
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


async def kill_each_once(where: Path, count: int, limit: float = 180.0) -> dict[str, float]:
    """Kill -9 the worker of each run that wrote its pid into `where` (once each), until
    `count` were killed; when each was (thread id -> time)."""
    killed: dict[str, float] = {}
    deadline = time.monotonic() + limit
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
        await asyncio.sleep(0.05)
    return killed


def _ended_at(thread: tl.Thread) -> float:
    ends = [e.at for e in thread.events if isinstance(e, tl.RunFinishedEvent)]
    assert ends, f"{thread.id} never ended"
    return ends[-1]


async def test_children_whose_workers_are_killed_end_and_report_once(
    ray_cluster: Any, store_spec: str, tmp_path: Path
) -> None:
    registry = tl.Registry()
    define_crew(registry, tmp_path, pause=5.0)
    rt = tl.Runtime(registry, store_spec, secret_key=KEY, engine=tl.RayEngine(max_retries=3),
                    poll_interval=0.1)  # fmt: skip
    lead = await rt.create_thread("fan")
    killer = asyncio.ensure_future(kill_each_once(tmp_path, KILLS))
    run = await asyncio.wait_for(lead.send(str(KILLS)), 240)
    killed = await killer
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
    for pid in pids:  # their workers were stopped, not left running the calls
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    for child in lead.children:
        _answered_once(child)
        assert child.status in ("failed", "idle")
    _answered_once(lead)
    rt.close()
