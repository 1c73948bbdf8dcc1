"""A run's owner frozen past its lease (a suspended laptop, a debugger, a blocked loop) while
another process takes the thread over: once it runs again, what it still tries to write is
refused, its run ends cleanly, and the history stays one run at a time — exactly one result
per call. Two real processes on one store, SQLite and PostgreSQL alike."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FunctionModel, call, text
from threadlab.store import Store, open_store
from threadlab.threads import RunLeases, _lease

pytestmark = pytest.mark.processes  # the owner runs in a process of its own, stopped and continued

HEARTBEAT = 0.5  # the owner's heartbeat: seconds between two
STALE = 1.5  # how old a heartbeat is before the lease is stale, here

OWNER = textwrap.dedent(
    """
    import asyncio, json, os, sys
    import threadlab as tl
    from threadlab.models import FunctionModel, call, text
    from threadlab.threads import _lease

    store, thread_id, folder, heartbeat = sys.argv[1:5]
    _lease.HEARTBEAT_SECONDS = float(heartbeat)

    async def wait(state, args):
        open(os.path.join(folder, "in-tool"), "w").close()
        while not os.path.exists(os.path.join(folder, "go")):
            await asyncio.sleep(0.02)
        return "done by the first owner"

    def decide(messages, tools):
        last = messages[-1]
        return text("answered by the first owner") if last.role == "tool" else call("wait")

    async def main():
        registry = tl.Registry()
        tl.define_tool("wait", description="Wait.", execute=wait, registry=registry)
        tl.define_prompt("p", prompt="x", model=FunctionModel(decide), tools=["wait"],
                         registry=registry)
        rt = tl.Runtime(registry, store, secret_key="k")
        run = await rt.thread(thread_id).send("go")
        print(json.dumps({"status": run.status, "error": run.error}), flush=True)
        rt.close()

    asyncio.run(main())
    """
)


def define(registry: tl.Registry) -> None:
    """The same prompt for the process that takes the thread over; it never calls the tool."""

    def never(state: tl.ThreadState, args: Any) -> str:
        raise AssertionError("the second owner runs no call")

    def decide(messages: list[tl.Message], tools: Any) -> Any:
        return text("answered by the second owner") if messages[-1].role == "user" else call("x")

    tl.define_tool("wait", description="Wait.", execute=never, registry=registry)
    tl.define_prompt("p", prompt="x", model=FunctionModel(decide), tools=["wait"],
                     registry=registry)  # fmt: skip


async def until(condition: Callable[[], bool], seconds: float, what: str) -> None:
    # Another process's state, with nothing to wait on: looked at until it holds.
    for _ in range(int(seconds / 0.02)):
        if condition():
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"waited {seconds} s for {what}")


def stopped(pid: int) -> bool:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2 :].split()[0] == "T"


def stored(store: Store, thread_id: str) -> tuple[list[str], list[str], str | None]:
    """Every message and event row of the thread, and its metadata, as stored."""
    messages = [m.data for m in store.list_messages(thread_id)]
    record = store.get_thread(thread_id)
    metadata = record.metadata if record is not None else None
    return messages, [e.data for e in store.iter_events(thread_id)], metadata


async def test_an_owner_stopped_past_its_lease_writes_nothing_once_the_thread_is_taken_over(
    registry: tl.Registry,
    store_spec: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_lease, "STALE_SECONDS", STALE)
    define(registry)
    setup = tl.Runtime(registry, store_spec, secret_key="k")
    thread_id = (await setup.create_thread("p")).id
    setup.close()
    folder = tmp_path / "signals"
    folder.mkdir()
    script = tmp_path / "owner.py"
    script.write_text(OWNER)
    owner = subprocess.Popen(
        [sys.executable, str(script), store_spec, thread_id, str(folder), str(HEARTBEAT)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    store = open_store(store_spec)
    taker = tl.Runtime(registry, store_spec, secret_key="k")
    try:
        await until((folder / "in-tool").exists, 60, "the first owner to enter its tool")
        os.kill(owner.pid, signal.SIGSTOP)
        await until(lambda: stopped(owner.pid), 10, "the first owner to stop")
        # Stopped past its lease: to another process its run is abandoned.
        await until(lambda: not RunLeases(store).held_now(thread_id), 30, "the lease to go stale")
        thread = taker.thread(thread_id)  # opening it repairs it: the open call "interrupted"
        run = await thread.send("again")
        assert run.status == "completed", run.error
        before = stored(store, thread_id)
        (folder / "go").touch()  # the tool returns as soon as its process runs again
    finally:
        os.kill(owner.pid, signal.SIGCONT)
    out, err = owner.communicate(timeout=60)
    taker.close()

    after = stored(store, thread_id)
    messages = [tl.Message.model_validate_json(m) for m in after[0]]
    results = Counter(m.tool_call_id for m in messages if m.role == "tool")
    assert set(results.values()) == {1}, f"results per call: {results}"
    assert [m.role for m in messages] == ["user", "assistant", "tool", "user", "assistant"]
    assert (messages[2].content or "").startswith("interrupted")
    assert messages[-1].content == "answered by the second owner"
    assert after == before  # the first owner wrote nothing more: no message, event, metadata
    assert store.running_runs(thread_id) == []
    store.close()

    # Its run ended cleanly, saying why, with no traceback anywhere.
    assert owner.returncode == 0, err
    assert "Traceback" not in err, err
    ended = json.loads(out.strip().splitlines()[-1])
    assert ended["status"] == "interrupted", ended
    assert "taken over by another process" in ended["error"], ended
