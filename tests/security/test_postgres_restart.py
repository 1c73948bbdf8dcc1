"""A PostgreSQL server restarted under a running Runtime (a crash, a failover, a network cut):
the broken connection is replaced and the same Runtime goes on — the run in progress ends in
a readable state, the next `send` and `rt.threads()` work within seconds, and the history
stays valid."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, text

from ..helpers import scripted_prompt
from ..postgres import PostgresServer, fresh_database

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
