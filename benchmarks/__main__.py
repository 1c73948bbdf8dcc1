"""Run every benchmark and print the tables recorded in benchmarks/README.md."""

from __future__ import annotations

import asyncio

from . import fanout, overhead, scanner


def main() -> None:
    print("## Overhead per tool call\n")
    print(overhead.report(asyncio.run(overhead.main())))
    print("\n## Argument scanner\n")
    print(scanner.report(scanner.main()))
    print("\n## Subagent fan-out\n")
    print(asyncio.run(fanout.main()))


if __name__ == "__main__":
    main()
