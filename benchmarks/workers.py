"""Children run by worker processes (`children="workers"`, `Runtime.serve`) against the same
children run in the lead's process, on one PostgreSQL: the wall time of a lead's run that
creates N non-blocking children and reads their N reports, median of several rounds, with
two worker processes. What the handoff costs is the queue, the claim, the report and two
notifications per child — plus the workers' own CPU, on this 2-core machine shared with the
server and the lead. SQLite (no notifications, a look every `poll_interval`) for
comparison."""

from __future__ import annotations

import asyncio
import statistics
import time

from tests.postgres import fresh_database, running_postgres
from tests.runtime.team import define_team, workers

import threadlab as tl


async def lead_run(store: str, children: str, count: int, poll_interval: float) -> float:
    """Seconds for one lead's run on `count` children, reports read."""
    registry = tl.Registry()
    define_team(registry)
    rt = tl.Runtime(registry, store, secret_key="bench", children=children,  # type: ignore[arg-type]
                    poll_interval=poll_interval)  # fmt: skip
    lead = await rt.create_thread("boss")
    start = time.perf_counter()
    run = await lead.send(str(count))
    took = time.perf_counter() - start
    reports = [m for m in lead.messages if m.role == "user" and m.subagent_id]
    if run.status != "completed" or len(reports) != count:
        raise RuntimeError(f"the lead's run went wrong: {run}, {len(reports)} reports")
    rt.close()
    return took


async def rounds(store: str, count: int, poll_interval: float, repeat: int) -> dict[str, float]:
    here, there = [], []
    with workers(store, 2, poll_interval):
        for _ in range(repeat):  # alternating, so drift hits both sides alike
            here.append(await lead_run(store, "here", count, poll_interval))
            there.append(await lead_run(store, "workers", count, poll_interval))
    return {"here": statistics.median(here), "workers": statistics.median(there)}


def row(store: str, count: int, poll: float, times: dict[str, float]) -> str:
    ratio = times["workers"] / times["here"]
    return (
        f"| {store} | {count} | {poll:g} | {times['here'] * 1000:.0f} |"
        f" {times['workers'] * 1000:.0f} | {ratio:.2f} |"
    )


async def main(tmp: str) -> str:
    lines = [
        "| store | children | poll_interval (s) | here (ms) | workers (ms) | workers / here |",
        "|---|---|---|---|---|---|",
    ]
    with running_postgres() as url:
        for count in (1, 10):
            database = fresh_database(url)
            lines.append(row("PostgreSQL", count, 1.0, await rounds(database, count, 1.0, 5)))
    for count in (1, 10):
        sqlite = f"{tmp}/sqlite-{count}"
        lines.append(row("SQLite", count, 1.0, await rounds(sqlite, count, 1.0, 5)))
    return "\n".join(lines)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        print(asyncio.run(main(tmp)))
