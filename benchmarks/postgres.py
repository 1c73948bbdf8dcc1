"""threadlab on PostgreSQL, against a throwaway local server (`initdb` + `pg_ctl`, as the tests
start one): the per-call overhead against SQLite (the realistic overhead shape: one integer
argument in 8-character chunks, a fresh thread per 10-call run), and 4 worker processes
running 100 threads x 10 calls on one database — throughput, and every history checked: no
message lost or duplicated, every call answered once."""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

from tests.postgres import fresh_database, running_postgres

import threadlab as tl

from .overhead import threadlab_runs

WORKER = textwrap.dedent(
    """
    import asyncio, sys
    import threadlab as tl

    async def main(url, threads, calls):
        registry = tl.Registry()
        tl.define_tool("noop", description="x", execute=lambda s, a: "ok", registry=registry,
                       args={"type": "object", "properties": {"n": {"type": "integer"}}})
        def decide(messages, tools):
            done = sum(1 for m in messages if m.role == "tool")
            return tl.models.call("noop", {"n": done}) if done < calls else tl.models.text("done")
        model = tl.models.FunctionModel(decide, chunk_size=8)
        tl.define_prompt("p", prompt="x", model=model, tools=["noop"], registry=registry)
        rt = tl.Runtime(registry, url, secret_key="bench", max_steps=calls + 5)
        for _ in range(threads):
            thread = await rt.create_thread("p")
            run = await thread.send("go")
            assert run.status == "completed", run
        rt.close()

    asyncio.run(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
    """
)


@dataclass(frozen=True)
class Overhead:
    sqlite_ms: float
    postgres_ms: float


@dataclass(frozen=True)
class Workers:
    processes: int
    threads: int
    calls: int
    seconds: float
    valid: int


async def overhead(url: str, runs: int = 50, calls: int = 10, repeats: int = 3) -> Overhead:
    """Median ms/call of `repeats` alternating measurements per store."""
    sqlite: list[float] = []
    postgres: list[float] = []
    for _ in range(repeats):
        sqlite.append(await threadlab_runs(runs, calls, realistic=True) / (runs * calls) * 1000)
        database = fresh_database(url)
        seconds = await threadlab_runs(runs, calls, realistic=True, store=database)
        postgres.append(seconds / (runs * calls) * 1000)
    return Overhead(statistics.median(sqlite), statistics.median(postgres))


def workers(url: str, processes: int = 4, threads: int = 100, calls: int = 10) -> Workers:
    database = fresh_database(url)
    tl.Runtime(tl.Registry(), database).close()  # the schema, before the workers race for it
    script = Path(__file__).with_name("_pg_worker.py")
    script.write_text(WORKER)
    try:
        started = time.perf_counter()
        running = [
            subprocess.Popen(
                [sys.executable, str(script), database, str(threads // processes), str(calls)],
                stderr=subprocess.PIPE,
                text=True,
            )
            for _ in range(processes)
        ]
        errors = [p.communicate(timeout=600)[1] for p in running]
        seconds = time.perf_counter() - started
        assert all(p.returncode == 0 for p in running), errors
    finally:
        script.unlink()
    return Workers(processes, threads, calls, seconds, _valid_histories(database, threads, calls))


def _valid_histories(database: str, threads: int, calls: int) -> int:
    rt = tl.Runtime(tl.Registry(), database)
    listed = rt.threads()
    assert len(listed) == threads, f"{len(listed)} threads, expected {threads}"
    valid = 0
    for thread in listed:
        messages = thread.messages
        ids = [m.id for m in messages]
        assert len(ids) == len(set(ids)), f"duplicated message in {thread.id}"
        calls_made = [c.id for m in messages for c in m.tool_calls]
        answered = [m.tool_call_id for m in messages if m.role == "tool"]
        assert calls_made == answered, thread.id
        assert len(calls_made) == calls, thread.id
        assert [m.content for m in messages if m.role == "user"] == ["go"], thread.id
        assert messages[-1].content == "done", thread.id
        valid += 1
    rt.close()
    return valid


def report(over: Overhead, work: Workers) -> str:
    total = work.threads * work.calls
    return "\n".join(
        [
            "| store | ms/call (realistic shape) |",
            "|---|---|",
            f"| SQLite | {over.sqlite_ms:.3f} |",
            f"| PostgreSQL | {over.postgres_ms:.3f} |",
            f"\nPostgreSQL / SQLite: {over.postgres_ms / over.sqlite_ms:.2f}x",
            "",
            "| worker processes | threads | calls | wall (s) | calls/s | valid histories |",
            "|---|---|---|---|---|---|",
            f"| {work.processes} | {work.threads} | {total:,} | {work.seconds:.1f} |"
            f" {total / work.seconds:,.0f} | {work.valid} / {work.threads} |",
        ]
    )


async def main() -> str:
    with running_postgres() as url:
        over = await overhead(url)
        work = await asyncio.to_thread(workers, url)
        return report(over, work)


if __name__ == "__main__":
    print(asyncio.run(main()))
