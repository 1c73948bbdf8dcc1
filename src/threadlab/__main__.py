"""`python -m threadlab worker`: a worker process for a shared store.

It imports the modules that define the team's tools, prompts and agents (into the
process-wide registry, as a notebook's cells do), then runs the children that runtimes with
`children="workers"` leave in the store (`Runtime.serve`) until SIGTERM or Ctrl-C; the runs
under way finish first.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import os
import signal
import sys
from collections.abc import Sequence

from .definitions import default_registry
from .runtime import Runtime


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m threadlab")
    commands = parser.add_subparsers(dest="command", required=True)
    worker = commands.add_parser(
        "worker",
        help="run the children left in a shared store for workers",
        description="Run the children that runtimes with children='workers' leave in the"
        " store, until SIGTERM or Ctrl-C. Secrets are read with THREADLAB_SECRET_KEY (or this"
        " user's key file): the same key as the runtimes that wrote them.",
    )
    worker.add_argument(
        "--store",
        default=os.environ.get("THREADLAB_STORE"),
        help="a postgresql:// URL or a directory; THREADLAB_STORE when absent, which keeps a"
        " password out of the process list",
    )
    worker.add_argument(
        "--import",
        dest="modules",
        action="append",
        default=[],
        metavar="MODULE",
        help="a module that defines the tools, prompts and agents (repeatable)",
    )
    worker.add_argument("--concurrency", type=int, default=4, help="children run at once")
    worker.add_argument(
        "--poll-interval", type=float, default=1.0, help="seconds between looks at the store"
    )
    args = parser.parse_args(argv)
    if not args.store:
        parser.error("name the store with --store or THREADLAB_STORE")
    for name in args.modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            parser.error(f"cannot import {name!r}: {exc}")
    registry = default_registry()
    agents = [a.name for a in registry.agents()] + [p.name for p in registry.prompts()]
    if not agents:
        parser.error(
            "no agent or prompt is defined: name the modules that define them with --import"
        )
    return asyncio.run(_serve(args.store, args.concurrency, args.poll_interval, agents))


async def _serve(store: str, concurrency: int, poll_interval: float, agents: list[str]) -> int:
    runtime = Runtime(store=store, poll_interval=poll_interval)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    print(f"threadlab worker serving {', '.join(sorted(agents))}", flush=True)
    try:
        await runtime.serve(stop, concurrency=concurrency)
    finally:
        runtime.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
