"""One writer per thread: two senders at the same moment — tasks on two Runtimes, OS threads,
processes — never both run the thread. One runs; the other's message is queued and answered
within the running turn; the history stays valid (no assistant message while calls of the one
before are unanswered)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl

pytestmark = pytest.mark.processes  # it starts competing processes

SETUP = """
import asyncio, time
import threadlab as tl
from threadlab.models import FunctionModel, call, text

def define(registry):
    def slow(state, args):
        time.sleep(0.3)  # keeps the thread busy while the other sender arrives
        return "slow done"

    def decide(messages, tools):
        # Call `slow` once per user message, then answer: replaying a turn stays short.
        last = messages[-1]
        return call("slow") if last.role == "user" else text("answered")

    tl.define_tool("slow", description="Slow.", execute=slow, registry=registry)
    model = FunctionModel(decide)
    tl.define_prompt("p", prompt="x", model=model, tools=["slow"], registry=registry)
"""
namespace: dict[str, Any] = {}
exec(SETUP, namespace)
define = namespace["define"]


def assert_valid(thread: tl.Thread) -> None:
    open_calls: set[str] = set()
    for message in thread.messages:
        if message.role == "assistant":
            assert not open_calls, f"an assistant message while {open_calls} were unanswered"
            open_calls = {c.id for c in message.tool_calls}
        elif message.role == "tool":
            open_calls.discard(message.tool_call_id or "")
    assert not open_calls


def outcome(statuses: list[str], thread: tl.Thread) -> None:
    assert sorted(statuses) == ["completed", "queued"]
    users = [m.content or "" for m in thread.messages if m.role == "user"]
    assert sorted(users) == ["from a", "from b"]  # the queued one was answered too
    assert_valid(thread)


async def test_two_runtimes_on_one_loop(registry: tl.Registry, store_dir: Path) -> None:
    define(registry)
    first = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await first.create_thread("p")
    second = tl.Runtime(registry, store_dir, secret_key="k")
    runs = await asyncio.gather(thread.send("from a"), second.thread(thread.id).send("from b"))
    outcome(
        [r.status for r in runs], tl.Runtime(registry, store_dir, secret_key="k").thread(thread.id)
    )


async def test_two_os_threads(registry: tl.Registry, store_dir: Path) -> None:
    define(registry)
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    thread_id = (await rt.create_thread("p")).id
    barrier = threading.Barrier(2)
    statuses: list[str] = []

    def sender(label: str) -> None:
        async def go() -> str:
            mine = tl.Runtime(registry, store_dir, secret_key="k")
            handle = mine.thread(thread_id)
            barrier.wait()
            return (await handle.send(f"from {label}")).status

        statuses.append(asyncio.run(go()))

    workers = [threading.Thread(target=sender, args=(label,)) for label in "ab"]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    outcome(statuses, tl.Runtime(registry, store_dir, secret_key="k").thread(thread_id))


SENDER = SETUP + textwrap.dedent(
    """
    import os, sys

    async def main():
        registry = tl.Registry()
        define(registry)
        rt = tl.Runtime(registry, sys.argv[1], secret_key="k")
        thread = rt.thread(sys.argv[2])
        go = sys.argv[3]
        open(go + "-ready-" + sys.argv[4], "w").close()
        while not os.path.exists(go):
            time.sleep(0.005)
        print((await thread.send(sys.argv[4])).status, flush=True)

    asyncio.run(main())
    """
)


async def test_two_processes(registry: tl.Registry, store_spec: str, tmp_path: Path) -> None:
    define(registry)
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread_id = (await rt.create_thread("p")).id
    rt.close()
    script = tmp_path / "sender.py"
    script.write_text(SENDER)
    go = tmp_path / "go"
    senders = [
        subprocess.Popen(
            [sys.executable, str(script), store_spec, thread_id, str(go), f"from {label}"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for label in "ab"
    ]
    deadline = time.monotonic() + 60
    # Other processes signal through files: there is no event to wait on.
    while len(list(tmp_path.glob("go-ready-*"))) < 2 and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(0.02)  # both are up, the thread opened, waiting for the signal
    go.touch()
    results = [p.communicate(timeout=60) for p in senders]
    assert all(p.returncode == 0 for p in senders), [err for _, err in results]
    outcome(
        [out.strip() for out, _ in results],
        tl.Runtime(registry, store_spec, secret_key="k").thread(thread_id),
    )


async def test_a_dead_owner_whose_pid_now_belongs_to_another_process_is_not_live(
    registry: tl.Registry, store_spec: str
) -> None:
    import os

    from threadlab.store import RunRecord
    from threadlab.threads import HOST_NAME, is_live, process_started_at

    define(registry)
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await rt.create_thread("p")
    now = time.time()
    # PID 1 is alive (in a container, it is often a shell or an init) but started long before
    # this lease: the lease's owner died and its PID was handed on.
    assert process_started_at(1) is not None
    # The lease says its owner started at `now - 5`; the live PID 1 started at another time.
    reused = RunRecord(
        "run_reused", thread.id, "running", 1, HOST_NAME, now, now, owner_started=now - 5
    )
    stale = RunRecord("run_stale", thread.id, "running", os.getppid(), "elsewhere", now - 60, 0)
    assert not is_live(reused)
    assert not is_live(stale)
    rt.store.start_run(reused)
    reopened = tl.Runtime(registry, store_spec, secret_key="k").thread(thread.id)
    assert reopened.status == "idle"
    run = await reopened.send("from a")
    assert run.status == "completed"


def test_a_killed_owner_not_yet_reaped_is_not_live() -> None:
    """A killed process stays a zombie until its parent waits for it (a worker started by a
    supervisor that is busy): its lease is not live, or a lead would wait for it until the
    heartbeat goes stale."""
    import subprocess
    import sys

    from threadlab.store import RunRecord
    from threadlab.threads import HOST_NAME, is_live, process_started_at

    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    started = process_started_at(proc.pid)
    now = time.time()
    lease = RunRecord("run_z", "thr_z", "running", proc.pid, HOST_NAME, now, now, started)
    assert is_live(lease)
    proc.kill()
    for _ in range(200):  # until the kernel has made it a zombie (not reaped: no wait())
        if Path(f"/proc/{proc.pid}/stat").read_text().split(") ")[1].startswith("Z"):
            break
        time.sleep(0.01)
    assert not is_live(lease)
    proc.wait()


async def test_a_worker_that_loses_the_claim_leaves_the_queue_in_order(
    registry: tl.Registry, store_dir: Path
) -> None:
    """Another process claims the thread between a worker's look and its claim: the worker
    runs nothing, and the messages waiting stay in the order they were sent."""
    import sqlite3

    from threadlab.execution import run_queued

    define(registry)
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await rt.create_thread("p")
    for text in ("first", "second"):
        rt.store.enqueue(thread.id, tl.Message(role="user", content=text).model_dump_json())

    # The other process: its claim holds the write lock while the worker looks...
    other = sqlite3.connect(
        store_dir / "threads.sqlite3", isolation_level=None, check_same_thread=False
    )
    other.execute("BEGIN IMMEDIATE")
    now = time.time()
    other.execute(
        "INSERT INTO runs (id, thread_id, status, owner_pid, owner_host, heartbeat, started_at)"
        " VALUES ('run_other', ?, 'running', 1, 'another-host', ?, ?)",
        (thread.id, now, now),
    )
    # ...and commits its lease while the worker's claim waits for that lock.
    threading.Timer(0.5, lambda: other.execute("COMMIT")).start()
    assert await run_queued(rt._host, rt._host.context(thread.id)) is None
    other.close()

    waiting = [tl.Message.model_validate_json(m).content for m in rt.store.drain_queue(thread.id)]
    assert waiting == ["first", "second"]
    assert [m.role for m in rt.thread(thread.id).messages] == []  # nothing ran here
    rt.close()
