"""Runs that leave the caller's process, on a real local Ray: an evaluation's rows and a
lead's non-blocking children run as Ray tasks in worker processes, each opening its thread
from the store; what they did is there, as of a run in this process."""

from __future__ import annotations

import asyncio
import os
import textwrap
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.engine._on_worker import NO_KEY, WRONG_KEY

from .conftest import KEY
from .crew import define_crew, ledger_lines

pytestmark = pytest.mark.processes  # Ray's worker processes


def _runtime(registry: tl.Registry, store: str, **engine: Any) -> tl.Runtime:
    return tl.Runtime(
        registry, store, secret_key=KEY, engine=tl.RayEngine(**engine), poll_interval=0.1
    )


def _answered_once(thread: tl.Thread) -> None:
    """Every call of the history has exactly one result."""
    messages = thread.all_messages()
    calls = [c.id for m in messages for c in m.tool_calls]
    results = [m.tool_call_id for m in messages if m.role == "tool"]
    assert sorted(calls) == sorted(r or "" for r in results), (calls, results)


async def test_a_tool_defined_in_main_runs_in_a_ray_worker(
    ray_cluster: Any, store_spec: str
) -> None:
    import __main__

    # As a notebook cell defines it: a function of __main__, which Ray ships by value.
    source = textwrap.dedent(
        """
        def where_am_i(state, args):
            import os
            return f"ran in {os.getpid()}"
        """
    )
    exec(compile(source, "<cell>", "exec"), __main__.__dict__)
    registry = tl.Registry()
    tl.define_tool("where_am_i", description="Where.", execute=__main__.where_am_i,
                   args={"type": "object", "properties": {}}, registry=registry)  # fmt: skip

    def answer(messages: list[tl.Message], tools: Any) -> Any:
        if messages[-1].role == "tool":
            return tl.models.text(messages[-1].content or "")
        return tl.models.call("where_am_i", {})

    tl.define_prompt("ask", prompt="Ask.", model=tl.models.FunctionModel(answer),
                     tools=["where_am_i"], registry=registry)  # fmt: skip
    rt = _runtime(registry, store_spec)
    report = await tl.evaluate("ask", [tl.Case("one", "where?")], runtime=rt)
    (row,) = report.rows
    assert row.status == "completed", row
    thread = rt.thread(row.thread_id or "")
    pid = int((thread.messages[-1].content or "").split()[-1])
    assert pid != os.getpid()
    del __main__.where_am_i
    rt.close()


async def test_every_row_of_an_evaluation_runs_once_on_ray(
    ray_cluster: Any, store_spec: str, tmp_path: Path
) -> None:
    registry = tl.Registry()
    define_crew(registry, tmp_path)
    rt = _runtime(registry, store_spec, max_concurrency=2)
    cases = [tl.Case(f"c{i}", f"topic {i}", expected=f"topic {i}") for i in range(12)]
    seen: list[str] = []
    report = await tl.evaluate(
        "jotter", cases, runtime=rt, repeat=2, on_row=lambda r: seen.append(r.case),
        scorers=[lambda ctx: (ctx.case.expected or "") in (ctx.run.text or "")],
    )  # fmt: skip
    assert len(report.rows) == 24
    assert sorted(seen) == sorted(c.name for c in cases for _ in range(2))
    assert all(r.status == "completed" and r.note is None for r in report.rows)
    assert all(list(r.scores.values()) == [True] for r in report.rows)
    calls = ledger_lines(tmp_path)
    assert len(calls) == 24  # each row's call once, none doubled
    assert len({thread for thread, _, _ in calls}) == 24
    assert {pid for _, _, pid in calls}.isdisjoint({os.getpid()})
    rt.close()


async def test_a_lead_hears_each_child_that_ran_on_ray(
    ray_cluster: Any, store_spec: str, tmp_path: Path
) -> None:
    registry = tl.Registry()
    define_crew(registry, tmp_path)
    rt = _runtime(registry, store_spec)
    lead = await rt.create_thread("fan")
    run = await asyncio.wait_for(lead.send("4"), 120)
    assert run.status == "completed"
    children = lead.children
    assert len(children) == 4
    reports = [m.subagent_id for m in lead.messages if m.role == "user" and m.subagent_id]
    assert sorted(reports) == sorted(c.id for c in children)  # one each
    for child in children:
        assert child.status == "completed"
        assert [m.role for m in child.messages] == ["user", "assistant", "tool", "assistant"]
        statuses = [e.status for e in child.events if isinstance(e, tl.ThreadStatusEvent)]
        assert statuses[0] == "queued"
    pids = {pid for _, _, pid in ledger_lines(tmp_path)}
    assert os.getpid() not in pids
    rt.close()


async def test_a_worker_without_the_secret_key_fails_its_row_saying_so(
    ray_cluster: Any, tmp_path: Path
) -> None:
    registry = tl.Registry()
    define_crew(registry, tmp_path)
    # This runtime's key is given to it, and not to Ray's processes (which hold another).
    rt = tl.Runtime(registry, tmp_path / "s", secret_key="only-here", engine=tl.RayEngine())
    report = await tl.evaluate("jotter", [tl.Case("a", "x")], runtime=rt)
    (row,) = report.rows
    assert row.status == "failed"
    assert row.error == WRONG_KEY
    assert ledger_lines(tmp_path) == []  # nothing ran
    # A worker with no key at all (its environment's is empty) says that instead.
    bare = tl.RayEngine(runtime_env={"env_vars": {"THREADLAB_SECRET_KEY": ""}})
    rt2 = tl.Runtime(registry, tmp_path / "s2", secret_key=KEY, engine=bare)
    (row,) = (await tl.evaluate("jotter", [tl.Case("a", "x")], runtime=rt2)).rows
    assert (row.status, row.error) == ("failed", NO_KEY)
    for text in (row.error or "", WRONG_KEY):
        assert KEY not in text
        assert "only-here" not in text
    rt.close()
    rt2.close()


def test_a_sqlite_store_is_refused_with_a_remote_cluster(tmp_path: Path) -> None:
    engine = tl.RayEngine("ray://10.20.30.40:10001")
    with pytest.raises(tl.StoreError, match="PostgreSQL"):
        tl.Runtime(tl.Registry(), tmp_path / "s", engine=engine)
    assert tl.RayEngine("auto").remote is False
    assert tl.RayEngine("ray://127.0.0.1:10001").remote is False


def test_the_cluster_is_read_as_ray_reads_it_from_ray_address_and_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ray.init(address="auto") or no address joins RAY_ADDRESS's cluster: the check must
    # read it the same way, or it lets a SQLite file through to workers that cannot open it.
    monkeypatch.setenv("RAY_TMPDIR", str(tmp_path))  # where `ray start` records a cluster
    monkeypatch.setenv("RAY_ADDRESS", "ray://10.20.30.40:10001")
    for engine in (tl.RayEngine("auto"), tl.RayEngine()):
        assert engine.remote is True
        with pytest.raises(tl.StoreError, match="PostgreSQL"):
            tl.Runtime(tl.Registry(), tmp_path / "s", engine=engine)
    assert tl.RayEngine("127.0.0.1:6379").remote is False  # an address given wins
    monkeypatch.setenv("RAY_ADDRESS", "127.0.0.1:6379")
    assert tl.RayEngine("auto").remote is False
    # Without RAY_ADDRESS, the cluster that `ray start --address=...` joined from here.
    monkeypatch.delenv("RAY_ADDRESS")
    assert tl.RayEngine("auto").remote is False
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "ray_current_cluster").write_text("10.20.30.40:6379\n")
    assert tl.RayEngine("auto").remote is True


def test_a_cluster_whose_head_is_this_machine_takes_a_sqlite_store(tmp_path: Path) -> None:
    import ray

    # The address `ray start --head` and ray.cluster_utils hand out: this machine's own
    # outward address, not loopback. Its workers run here and reach the file.
    own: str = ray.util.get_node_ip_address()  # type: ignore[no-untyped-call]
    for address in (f"{own}:6379", f"ray://{own}:10001"):
        engine = tl.RayEngine(address)
        assert engine.remote is False
        tl.Runtime(tl.Registry(), tmp_path / "s", engine=engine).close()


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_concurrency": 0}, "max_concurrency"),
        ({"max_retries": -1}, "max_retries"),
        ({"address": ""}, "address"),
    ],
)
def test_bad_engine_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        tl.RayEngine(**options)


def _parsers_imported() -> tuple[bool, list[str]]:
    import sys

    loaded = sorted(m for m in sys.modules if m.split(".")[0] in {"lark", "rfc3987_syntax"})
    return "jsonschema" in sys.modules, loaded


def test_the_processes_of_a_local_ray_do_not_build_parsers_when_they_start(
    ray_cluster: Any,
) -> None:
    # Every process of a local Ray (its agents, its workers) imports jsonschema as it starts.
    # With the iri format parsers built at import (jsonschema 4.25 and later, next to
    # JupyterLab's rfc3987-syntax) each spends seconds of CPU there, and on a busy machine
    # the raylet gives up on its agent before the node is up.
    in_worker = ray_cluster.get(ray_cluster.remote(_parsers_imported).remote(), timeout=120)
    assert in_worker == (True, [])
