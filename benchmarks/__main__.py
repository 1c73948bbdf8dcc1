"""Run every benchmark and print the tables recorded in benchmarks/README.md."""

from __future__ import annotations

import asyncio

from . import (
    call_cost,
    durable_peers,
    fanout,
    fork,
    growth,
    overhead,
    player,
    providers,
    ray_engine,
    replayed_evaluation,
    sandbox,
    scanner,
    storage,
    thread_hop,
    widgets,
)


def main() -> None:
    print("## Overhead per tool call\n")
    print(overhead.report(asyncio.run(overhead.main())))
    print("\n## Where a call's time goes\n")
    print(call_cost.report(asyncio.run(call_cost.measure())))
    print("\n## Beside the durable peers\n")
    print(durable_peers.report(asyncio.run(durable_peers.measure())))
    print("\n## Argument scanner\n")
    print(scanner.report(scanner.main()))
    print("\n## Subagent fan-out\n")
    print(asyncio.run(fanout.main()))
    print("\n## Widget traffic\n")
    print(asyncio.run(widgets.main()))
    print("\n## Store growth of a streamed call\n")
    print(storage.report(asyncio.run(storage.measure())))
    print("\n## Provider streaming\n")
    print(providers.report(asyncio.run(providers.measure())))
    print("\n## Forking a long thread\n")
    print(fork.report(asyncio.run(fork.measure())))
    print("\n## The player of a long thread (the kernel's side)\n")
    print(player.report(asyncio.run(player.measure())))
    print("\n## Work that grows with the thread\n")
    print(growth.report(asyncio.run(growth.measure())))
    print("\n## Handing a sync call to a thread\n")
    print(asyncio.run(thread_hop.main()))
    print("\n## An evaluation replayed on its recording\n")
    print(replayed_evaluation.report(asyncio.run(replayed_evaluation.measure())))
    print("\n## Evaluation runs on Ray\n")
    print(asyncio.run(ray_engine.main()))
    print("\n## run_code latency\n")
    print(sandbox.report(asyncio.run(sandbox.main())))


if __name__ == "__main__":
    main()
