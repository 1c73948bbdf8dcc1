"""A lead and the researchers it leaves to workers: the definitions both sides of the worker
tests load (the lead's process and each worker process), and worker processes to run."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import threadlab as tl
from threadlab.models import FunctionModel, call, step, text

ROOT = Path(__file__).resolve().parents[2]


def define_team(registry: tl.Registry) -> None:
    async def note(state: tl.ThreadState, args: Any) -> str:
        if args["topic"] == "crash":  # the worker dies mid-call, as under SIGKILL
            os.kill(os.getpid(), signal.SIGKILL)
        if args["topic"] == "slowly":
            await asyncio.sleep(1.0)
        await state.write_file("/notes.md", f"{args['topic']}: written by process {os.getpid()}")
        return f"noted in process {os.getpid()}"

    topic = {"type": "object", "properties": {"topic": {"type": "string"}}}
    tl.define_tool("note", description="Take a note.", execute=note, args=topic,
                   registry=registry)  # fmt: skip

    def research(messages: list[tl.Message], tools: Any) -> Any:
        last = messages[-1]
        if last.role == "tool":
            return text(f"found it, {last.content}")
        return call("note", {"topic": last.content or ""})

    tl.define_prompt("research", prompt="Research.", model=FunctionModel(research),
                     tools=["note"], registry=registry)  # fmt: skip
    tl.define_agent("researcher", side_a=tl.Side("research"), tool_description="Researches.",
                    expose_as_tool=True, registry=registry)  # fmt: skip

    # Needs a variable the lead's process has in its environment and a worker may not.
    tl.define_prompt("archive", prompt="Archive.", model=FunctionModel(research), tools=["note"],
                     variables=[tl.Variable("ARCHIVE_TOKEN", required=True)],
                     registry=registry)  # fmt: skip
    tl.define_agent("archivist", side_a=tl.Side("archive"), tool_description="Archives.",
                    registry=registry)  # fmt: skip

    def lead(messages: list[tl.Message], tools: Any) -> Any:
        last = messages[-1]
        if last.role == "user" and last.subagent_id:
            return text(f"read the report of {last.subagent_id}")
        if last.role == "user":
            if last.content == "crash":
                create = [{"agent": "researcher", "name": "doomed", "message": "crash"}]
            elif last.content == "slowly":
                create = [{"agent": "researcher", "name": "s", "message": "slowly"}]
            elif last.content == "archive":
                create = [{"agent": "archivist", "name": "a", "message": "the notes"}]
            else:
                create = [{"agent": "researcher", "name": f"r{i}", "message": f"topic {i}"}
                          for i in range(int(last.content or "1"))]  # fmt: skip
            return step(*(call("subagent_create", arguments) for arguments in create))
        return text("waiting for the researchers")

    tl.define_prompt("lead", prompt="Lead.", model=FunctionModel(lead), registry=registry)
    tl.define_agent(
        "boss",
        side_a=tl.Side("lead", subagents=[tl.Subagent("researcher", blocking=False)]),
        registry=registry,
    )
    tl.define_agent(
        "keeper",
        side_a=tl.Side("lead", subagents=[tl.Subagent("archivist", blocking=False)]),
        registry=registry,
    )


def worker_command(store: str, poll_interval: float) -> list[str]:
    """The worker CLI, on this team's definitions."""
    return [
        *(sys.executable, "-m", "threadlab", "worker", "--store", store),
        *("--import", "tests.runtime.team_definitions", "--poll-interval", str(poll_interval)),
    ]


@contextmanager
def workers(
    store: str, count: int, poll_interval: float, without: tuple[str, ...] = ()
) -> Iterator[None]:
    """`count` worker processes serving `store` until the block ends (then SIGTERM), their
    environment this one's less the variables named in `without`."""
    env = {k: v for k, v in os.environ.items() if k not in without}
    env.update(PYTHONPATH=str(ROOT), THREADLAB_SECRET_KEY="k")  # the lead runtimes' key
    command = worker_command(store, poll_interval)
    procs = [
        subprocess.Popen(command, stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
        for _ in range(count)
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None
            assert proc.stdout.readline().startswith("threadlab worker serving")
        yield
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait(30)
            assert proc.stdout is not None
            proc.stdout.close()
    assert [p.returncode for p in procs] == [0] * count


@contextmanager
def worker_that_dies(store: str) -> Iterator[None]:
    """One worker process, there to take a case that kills it (`crash`): the block ends once
    it died so."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "THREADLAB_SECRET_KEY": "k"}
    command = worker_command(store, 0.1)
    with subprocess.Popen(command, stdout=subprocess.DEVNULL, env=env, cwd=ROOT) as proc:
        try:
            yield
            assert proc.wait(60) == -signal.SIGKILL  # it died in the case's call
        finally:
            proc.kill()
