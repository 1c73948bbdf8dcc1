"""An evaluation left to worker processes (a runtime with `children="workers"`, on SQLite and
PostgreSQL): each case runs once, in a worker, and the report fills in as they finish; a case
whose worker is killed mid-run is repaired and run again here, once, and its row says so."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
from pathlib import Path

import pytest

import threadlab as tl
from threadlab import scorers
from threadlab.evaluation._by_workers import RERUN_NOTE, Queued, queue_all, wait_for_rows

from ..runtime.team import ROOT, define_team, worker_command, worker_that_dies, workers

pytestmark = pytest.mark.processes  # it starts worker processes


def lead(store: str) -> tl.Runtime:
    registry = tl.Registry()
    define_team(registry)
    return tl.Runtime(registry, store, secret_key="k", children="workers", poll_interval=0.1)


async def test_workers_run_every_case_once_and_the_rows_fill_in(store_spec: str) -> None:
    rt = lead(store_spec)
    cases = [tl.Case(f"c{i}", f"topic {i}") for i in range(6)]
    seen: list[str] = []
    with workers(store_spec, 2, 0.1):
        report = await asyncio.wait_for(
            tl.evaluate("research", cases, runtime=rt, repeat=2, name="team",
                        scorers=[scorers.called("note"), scorers.contains("found it")],
                        on_row=lambda row: seen.append(row.case)),
            90,
        )  # fmt: skip
    assert len(report.rows) == len(seen) == 12
    assert sorted(seen) == sorted(f"c{i}" for i in range(6) for _ in range(2))
    assert [(r.case, r.repeat) for r in report.rows][:3] == [("c0", 0), ("c0", 1), ("c1", 0)]
    assert all(r.passed for r in report.rows), [r.error for r in report.rows]
    pids = set()
    for row in report.rows:
        thread = rt.thread(row.thread_id or "")
        assert thread.origin == "eval:team"
        finished = [e for e in thread.events if isinstance(e, tl.RunFinishedEvent)]
        assert len(finished) == 1  # run exactly once
        notes = (await thread.files.read("/notes.md")).decode()
        pids.add(int(notes.rsplit(" ", 1)[1]))
    assert os.getpid() not in pids  # every case ran in a worker
    rt.close()


async def test_a_case_whose_worker_dies_is_run_again_here_once(store_spec: str) -> None:
    rt = lead(store_spec)
    env = {**os.environ, "PYTHONPATH": str(ROOT), "THREADLAB_SECRET_KEY": "k"}
    procs = [
        subprocess.Popen(worker_command(store_spec, 0.1), stdout=subprocess.PIPE, text=True,
                         env=env, cwd=ROOT)
        for _ in range(2)
    ]  # fmt: skip
    try:
        for proc in procs:
            assert proc.stdout is not None
            assert proc.stdout.readline().startswith("threadlab worker serving")
        cases = [tl.Case("doomed", "crash"), tl.Case("fine", "topic 1")]
        report = await asyncio.wait_for(tl.evaluate("research", cases, runtime=rt), 90)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
            proc.wait(30)
            assert proc.stdout is not None
            proc.stdout.close()
    assert sorted(p.returncode for p in procs) == [-signal.SIGKILL, 0]
    doomed, fine = report.rows
    assert (doomed.status, doomed.note) == ("completed", RERUN_NOTE)
    history = rt.thread(doomed.thread_id or "").messages
    assert [m.role for m in history] == ["user", "assistant", "tool", "assistant"]
    assert "interrupted" in (history[2].content or "")  # the call the worker died in
    assert (fine.status, fine.note) == ("completed", None)
    rt.close()


async def test_a_case_repaired_elsewhere_after_its_worker_died_is_run_again_here(
    store_spec: str,
) -> None:
    # Whoever opens the thread first repairs it: here another runtime does, before this
    # process looks (a second worker that had seen the case queued does the same).
    rt = lead(store_spec)
    queued = await queue_all(rt, "research", "t", [(tl.Case("doomed", "crash"), None, "m", 0)])
    with worker_that_dies(store_spec):
        pass
    registry = tl.Registry()
    define_team(registry)
    elsewhere = tl.Runtime(registry, store_spec, secret_key="k")
    elsewhere.thread(queued[0].thread.id)
    assert elsewhere.store.running_runs(queued[0].thread.id) == []  # repaired: ended there
    elsewhere.close()
    rows: list[tuple[str, str, str | None]] = []

    async def finished(item: Queued, run: tl.Run, seconds: float, note: str | None) -> None:
        rows.append((run.status, (run.text or "")[:9], note))

    await asyncio.wait_for(wait_for_rows(rt, queued, finished), 60)
    assert rows == [("completed", "found it,", RERUN_NOTE)]
    history = rt.thread(queued[0].thread.id).messages
    assert [m.role for m in history] == ["user", "assistant", "tool", "assistant"]
    assert "interrupted" in (history[2].content or "")
    rt.close()


async def test_a_case_no_worker_can_run_is_a_failed_row_not_a_wait_forever(
    store_spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The evaluating process has the variable the target needs; the worker does not.
    monkeypatch.setenv("ARCHIVE_TOKEN", "here only")
    rt = lead(store_spec)
    with workers(store_spec, 1, 0.1, without=("ARCHIVE_TOKEN",)):
        report = await asyncio.wait_for(
            tl.evaluate("archive", [tl.Case("a", "the notes")], runtime=rt,
                        scorers=[scorers.called("note")]),
            60,
        )  # fmt: skip
    (row,) = report.rows
    assert (row.status, row.note, row.scores) == ("error", None, {})  # as it would be here
    assert "ARCHIVE_TOKEN" in (row.error or ""), row.error
    thread = rt.thread(row.thread_id or "")
    (ended,) = [e for e in thread.events if isinstance(e, tl.RunFinishedEvent)]
    assert (ended.status, ended.error) == ("failed", row.error)
    assert not rt.store.has_queued(thread.id)  # answered, not left to be retried
    rt.close()


async def test_workers_take_models_by_name(tmp_path: Path) -> None:
    rt = lead(str(tmp_path / "store"))
    with pytest.raises(tl.EvalError, match="runs left to workers take models by name"):
        await tl.evaluate("research", [tl.Case("a", "x")], runtime=rt,
                          models=[tl.models.ScriptedModel([])])  # fmt: skip
    rt.close()
