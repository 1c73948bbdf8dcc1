"""A PostgreSQL server restarted under a running Runtime (a crash, a failover, a network cut):
the broken connection is replaced and the same Runtime goes on — the run in progress ends in
a readable state, the next `send` and `rt.threads()` work within seconds, and the history
stays valid."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, text

from ..helpers import scripted_prompt
from ..postgres import PostgresServer, fresh_database
from ..runtime.team import workers
from ..runtime.test_workers import lead_runtime

pytestmark = pytest.mark.processes  # it starts a PostgreSQL server it restarts


@pytest.fixture
def server() -> Iterator[PostgresServer]:
    pytest.importorskip("psycopg")
    server = PostgresServer()
    server.start()
    yield server
    server.remove()


def assert_valid(thread: tl.Thread) -> None:
    """Every tool call of the history has exactly one result, after its call."""
    open_calls: list[str] = []
    answered: list[str] = []
    for message in thread.messages:
        open_calls += [c.id for c in message.tool_calls]
        if message.role == "tool":
            assert message.tool_call_id in open_calls
            answered.append(str(message.tool_call_id))
    assert sorted(answered) == sorted(set(answered)) == sorted(open_calls)


async def test_a_runtime_goes_on_after_the_server_restarts_mid_run(
    registry: tl.Registry, server: PostgresServer
) -> None:
    url = fresh_database(server.url)

    def restart(state: tl.ThreadState, args: Any) -> str:
        server.restart()  # every connection is cut while the run is in a tool
        return "the server restarted"

    tl.define_tool("restart", description="Restart.", execute=restart, registry=registry)
    scripted_prompt(
        registry,
        [call("restart"), text("after the restart"), text("second run")],
        tools=["restart"],
    )
    rt = tl.Runtime(registry, url, secret_key="k")
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "completed", run
    started = time.monotonic()
    again = await thread.send("again")
    assert again.status == "completed", again
    assert [t.id for t in rt.threads()] == [thread.id]
    assert time.monotonic() - started < 10
    assert [m.content for m in thread.messages if m.role == "assistant" and m.content] == [
        "after the restart",
        "second run",
    ]
    assert_valid(thread)
    rt.close()
    reopened = tl.Runtime(registry, url, secret_key="k")
    assert_valid(reopened.thread(thread.id))
    reopened.close()


async def test_reads_between_runs_survive_a_restart(
    registry: tl.Registry, server: PostgresServer
) -> None:
    url = fresh_database(server.url)
    scripted_prompt(registry, [text("one"), text("two")])
    rt = tl.Runtime(registry, url, secret_key="k")
    thread = await rt.create_thread("p")
    await thread.send("first")
    server.restart()
    assert [t.id for t in rt.threads()] == [thread.id]  # a read on a connection that broke
    assert (await thread.send("second")).status == "completed"
    rt.close()


async def test_a_worker_outlives_a_restart_and_runs_what_is_queued_after_it(
    server: PostgresServer,
) -> None:
    url = fresh_database(server.url)
    rt = lead_runtime(url, 0.2)
    with workers(url, 1, 0.2):  # which also checks that the worker exits with status 0
        lead = await rt.create_thread("boss")
        assert (await asyncio.wait_for(lead.send("1"), 30)).status == "completed"
        server.restart()
        await asyncio.sleep(1.0)  # the worker looks at the store while the server is back
        run = await asyncio.wait_for(lead.send("2"), 30)
    assert run.status == "completed"
    assert sorted(c.status for c in lead.children) == ["completed"] * 3
    reports = [m.subagent_id for m in lead.messages if m.role == "user" and m.subagent_id]
    assert sorted(reports) == sorted(c.id for c in lead.children)
    assert_valid(lead)
    rt.close()


async def test_a_worker_backs_off_while_the_server_is_down_and_goes_on_after(
    server: PostgresServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from threadlab.store import _postgres_link

    monkeypatch.setattr(_postgres_link, "RECONNECT_SECONDS", 0.5)  # shorter than the outage
    url = fresh_database(server.url)
    rt = lead_runtime(url, 0.2)
    worker = lead_runtime(url, 0.2)
    stop = asyncio.Event()
    serving = asyncio.create_task(worker.serve(stop))
    lead = await rt.create_thread("boss")
    assert (await asyncio.wait_for(lead.send("1"), 30)).status == "completed"
    server.stop()
    await asyncio.sleep(3.0)  # the worker keeps looking, and backs off
    assert not serving.done()
    server.start()
    run = await asyncio.wait_for(lead.send("2"), 60)
    stop.set()
    await asyncio.wait_for(serving, 30)
    assert run.status == "completed"
    assert sorted(c.status for c in lead.children) == ["completed"] * 3
    assert "cannot read the store" in caplog.text
    assert_valid(lead)
    rt.close()
    worker.close()
