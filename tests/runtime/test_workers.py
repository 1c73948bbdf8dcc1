"""A lead in one process, its children run by worker processes (`children="workers"` and
`Runtime.serve`): each child runs exactly once, in a worker, and its report reaches the lead
through the store — woken by the notification on PostgreSQL, by the poll on SQLite."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

import threadlab as tl

from .team import ROOT, define_team, worker_that_dies, workers

pytestmark = pytest.mark.processes  # it starts worker processes


def lead_runtime(store: str, poll_interval: float) -> tl.Runtime:
    registry = tl.Registry()
    define_team(registry)
    return tl.Runtime(
        registry, store, secret_key="k", children="workers", poll_interval=poll_interval
    )


async def test_the_lead_reads_the_reports_of_children_a_worker_process_ran(
    store_spec: str,
) -> None:
    # On PostgreSQL nobody polls within the test's time: the notifications must do it all.
    poll = 60.0 if store_spec.startswith("postgresql://") else 0.1
    rt = lead_runtime(store_spec, poll)
    with workers(store_spec, 1, poll):
        lead = await rt.create_thread("boss")
        run = await asyncio.wait_for(lead.send("3"), 30)
    assert run.status == "completed"
    children = lead.children
    assert sorted(c.name for c in children) == ["r0", "r1", "r2"]
    reports = [m for m in lead.messages if m.role == "user" and m.subagent_id]
    assert sorted(m.subagent_id or "" for m in reports) == sorted(c.id for c in children)
    for child in children:
        assert child.status == "completed"
        notes = (await child.files.read("/notes.md")).decode()
        pid = int(notes.rsplit(" ", 1)[1])
        assert pid != os.getpid()  # run by the worker, not here
        (report,) = [m for m in reports if m.subagent_id == child.id]
        assert f"noted in process {pid}" in (report.content or "")
        history = child.messages
        assert [m.role for m in history] == ["user", "assistant", "tool", "assistant"]
        statuses = [e.status for e in child.events if isinstance(e, tl.ThreadStatusEvent)]
        assert statuses == ["queued", "running", "idle"]  # left for a worker, then run there
    assert lead.messages[-1].content.startswith("read the report of")  # type: ignore[union-attr]
    rt.close()


async def test_two_workers_never_run_the_same_child(store_spec: str) -> None:
    rt = lead_runtime(store_spec, 0.1)
    with workers(store_spec, 2, 0.1):
        lead = await rt.create_thread("boss")
        run = await asyncio.wait_for(lead.send("8"), 60)
    assert run.status == "completed"
    children = lead.children
    assert len(children) == 8
    for child in children:
        # One run each: one user message, one call, one result, one answer.
        assert [m.role for m in child.messages] == ["user", "assistant", "tool", "assistant"]
    reports = [m.subagent_id for m in lead.messages if m.role == "user" and m.subagent_id]
    assert sorted(reports) == sorted(c.id for c in children)  # each exactly once
    rt.close()


async def test_a_blocking_child_runs_here_even_with_workers(
    registry: tl.Registry, tmp_path: Path
) -> None:
    define_team(registry)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("researcher")]),
                    registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, tmp_path / "s", secret_key="k", children="workers")
    lead = await rt.create_thread("boss")
    run = await asyncio.wait_for(lead.send("1"), 30)  # no worker anywhere: it must not wait
    assert run.status == "completed"
    (child,) = lead.children
    assert str(os.getpid()) in (await child.files.read("/notes.md")).decode()
    rt.close()


def test_children_is_here_or_workers(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match='"here" or "workers"'):
        tl.Runtime(tl.Registry(), tmp_path / "s", children="elsewhere")  # type: ignore[arg-type]


async def test_a_worker_killed_mid_child_leaves_a_repaired_child_and_a_lead_that_knows(
    store_spec: str,
) -> None:
    rt = lead_runtime(store_spec, 0.1)
    lead = await rt.create_thread("boss")
    with worker_that_dies(store_spec):
        run = await asyncio.wait_for(lead.send("crash"), 30)
    assert run.status == "completed"
    (child,) = lead.children
    assert child.status == "failed"
    # The call the worker died in has its one result; nothing is left open.
    history = child.messages
    assert [m.role for m in history] == ["user", "assistant", "tool"]
    assert history[-1].tool_call_id == history[1].tool_calls[0].id
    (report,) = [m for m in lead.messages if m.role == "user" and m.subagent_id == child.id]
    assert "worker stopped before it finished" in (report.content or "")
    rt.close()


async def test_a_dead_workers_child_repaired_elsewhere_first_is_still_reported_to_its_lead(
    store_spec: str,
) -> None:
    # Whoever opens the child first after its worker died repairs it (another worker that had
    # seen it queued, a notebook): that repair tells the lead, since nobody else will.
    rt = lead_runtime(store_spec, 0.1)
    lead = await rt.create_thread("boss")
    with worker_that_dies(store_spec):
        run = await asyncio.wait_for(lead.send("crash", wait_children=False), 30)
    assert run.status == "completed"
    (child,) = lead.children
    registry = tl.Registry()
    define_team(registry)
    elsewhere = tl.Runtime(registry, store_spec, secret_key="k")
    assert elsewhere.thread(child.id).status == "failed"  # repaired there
    assert elsewhere.store.has_queued(lead.id)  # the report waits for the lead
    elsewhere.close()
    again = await asyncio.wait_for(lead.resume(), 30)
    assert again.status == "completed"
    (report,) = [m for m in lead.messages if m.role == "user" and m.subagent_id == child.id]
    assert "worker stopped before it finished" in (report.content or "")
    assert lead.messages[-1].content == f"read the report of {child.id}"
    rt.close()


async def test_a_child_a_worker_cannot_run_is_reported_failed_not_retried(
    store_spec: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The lead's process has the variable; the worker's environment does not.
    monkeypatch.setenv("ARCHIVE_TOKEN", "here only")
    rt = lead_runtime(store_spec, 0.1)
    with workers(store_spec, 1, 0.1, without=("ARCHIVE_TOKEN",)):
        lead = await rt.create_thread("keeper")
        run = await asyncio.wait_for(lead.send("archive"), 30)
    assert run.status == "completed"
    (child,) = lead.children
    assert child.status == "failed"
    assert child.messages == []  # it never ran: nothing half-done
    assert not rt.store.has_queued(child.id)  # and nobody will retry it forever
    (report,) = [m for m in lead.messages if m.role == "user" and m.subagent_id == child.id]
    assert "failed" in (report.content or "")
    assert "ARCHIVE_TOKEN" in (report.content or "")
    assert "here only" not in str([m.model_dump() for m in lead.all_messages()])
    rt.close()


async def test_a_worker_leaves_children_of_agents_it_does_not_know_to_one_that_does(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    store = str(tmp_path / "store")
    rt = lead_runtime(store, 0.05)
    lead = await rt.create_thread("boss")
    await lead.send("1", wait_children=False)
    (child,) = lead.children
    assert child.status == "queued"

    async def serve_for(worker: tl.Runtime, seconds: float) -> None:
        stop = asyncio.Event()
        asyncio.get_running_loop().call_later(seconds, stop.set)
        await worker.serve(stop)

    stranger = tl.Runtime(tl.Registry(), store, secret_key="k", poll_interval=0.05)
    with caplog.at_level("WARNING", logger="threadlab.worker"):
        await serve_for(stranger, 0.5)  # about ten looks
    warned = [r for r in caplog.records if "defines agent 'researcher'" in r.getMessage()]
    assert len(warned) == 1  # said once, not at every look
    assert child.status == "queued"
    assert rt.store.has_queued(child.id)  # left for another worker, not dropped

    colleague = lead_runtime(store, 0.05)
    await serve_for(colleague, 1.0)
    assert rt.thread(child.id).status == "completed"
    assert [m.role for m in child.messages] == ["user", "assistant", "tool", "assistant"]
    for runtime in (rt, stranger, colleague):
        runtime.close()


async def test_the_leads_listeners_see_a_worker_child_queued_then_running_then_done(
    store_spec: str,
) -> None:
    rt = lead_runtime(store_spec, 0.1)
    seen: list[str] = []
    with workers(store_spec, 1, 0.1):
        lead = await rt.create_thread("boss")
        async for event in lead.stream("slowly"):
            if isinstance(event, tl.ThreadStatusEvent) and event.thread_id != lead.id:
                seen.append(event.status)
    assert seen == ["queued", "running", "idle"]  # the child works a second: seen running
    (child,) = lead.children
    # Shown live only: the child's stored events are the worker's own.
    stored = [e.status for e in child.events if isinstance(e, tl.ThreadStatusEvent)]
    assert stored == ["queued", "running", "idle"]
    rt.close()


def test_the_worker_command_says_what_is_wrong_with_its_arguments(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    store = [sys.executable, "-m", "threadlab", "worker", "--store", str(tmp_path / "s")]

    def run(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*store, *extra], capture_output=True, text=True, env=env, cwd=ROOT, timeout=60
        )

    missing = run("--import", "no_such_team_module")
    assert missing.returncode == 2
    assert "cannot import 'no_such_team_module'" in missing.stderr
    nothing = run()
    assert nothing.returncode == 2
    assert "no agent or prompt is defined" in nothing.stderr
    assert "--import" in nothing.stderr  # and how to fix it
