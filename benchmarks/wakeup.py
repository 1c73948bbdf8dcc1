"""How soon a process hears of a message queued for its thread by another: from the sender's
`enqueue` being called (its transaction and commit included) on one connection to the
watcher's wake-up running on the owner's event loop, through PostgreSQL's NOTIFY on loopback.
SQLite cannot notify; there whoever waits polls, and the delay is the poll's interval."""

from __future__ import annotations

import asyncio
import statistics
import threading
import time

from tests.postgres import fresh_database, running_postgres

from threadlab.store import PostgresStore


async def latencies(url: str, messages: int = 200) -> list[float]:
    """Milliseconds from each `enqueue` call to the owner's wake-up."""
    owner, sender = PostgresStore(url), PostgresStore(url)
    loop = asyncio.get_running_loop()
    woken: asyncio.Queue[float] = asyncio.Queue()

    def wake_up() -> None:  # runs on the owner's loop: the moment it is woken
        woken.put_nowait(time.monotonic())

    def heard(_: str) -> None:
        loop.call_soon_threadsafe(wake_up)

    stop = owner.watch_queue(heard)
    sent: list[float] = []

    def send() -> None:
        for index in range(messages):
            sent.append(time.monotonic())
            sender.enqueue(f"thr_{index}", "{}")
            time.sleep(0.005)  # one at a time: each wake-up measured on its own

    writer = threading.Thread(target=send)
    writer.start()
    woke = [await asyncio.wait_for(woken.get(), 10) for _ in range(messages)]
    writer.join()
    stop()
    owner.close()
    sender.close()
    return [(w - s) * 1000 for w, s in zip(woke, sent, strict=True)]


def report(values: list[float]) -> str:
    ordered = sorted(values)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    return "\n".join(
        [
            "| messages | p50 (ms) | p95 (ms) | max (ms) | target p50 (ms) |",
            "|---|---|---|---|---|",
            f"| {len(values)} | {statistics.median(values):.2f} | {p95:.2f} |"
            f" {ordered[-1]:.2f} | 50 |",
        ]
    )


async def main() -> str:
    with running_postgres() as url:
        return report(await latencies(fresh_database(url)))


if __name__ == "__main__":
    print(asyncio.run(main()))
