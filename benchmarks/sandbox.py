"""`state.run_code` latency: the time from starting a run to its result, for a trivial snippet
and for a snippet that makes one bridged call, per backend (Deno for JavaScript/TypeScript and
Python, each in the bubblewrap jail). Reports the median and the 95th percentile; each run is a
fresh process, as the sandbox promises. Beside the jailed Deno, the same runs of Deno started
bare (as it ran before the jail, with a shared cache directory), for the jail's cost."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from threadlab.sandbox import CodeResult, Language, Redaction, start_code_run
from threadlab.sandbox._code_run import CodeRun, Plan
from threadlab.sandbox._deno import check_deno, prepare_deno

SNIPPETS: dict[tuple[Language, str], str] = {
    ("typescript", "trivial"): "export default (): number => 6 * 7;",
    ("typescript", "bridged"): (
        "import { lookup } from 'host';\nexport default async () => await lookup('k');"
    ),
    ("python", "trivial"): "def main():\n    return 6 * 7",
    (
        "python",
        "bridged",
    ): "from host import lookup\nasync def main():\n    return await lookup('k')",
}
TARGETS_MS = {"typescript": 60.0, "python": 80.0}
_BARE_DENO_DIR = tempfile.mkdtemp(prefix="threadlab-bench-deno-")
os.chmod(_BARE_DENO_DIR, 0o777)  # as root, the runs are nobody's


@dataclass(frozen=True)
class Latency:
    language: Language
    shape: str
    runs: int
    p50_ms: float
    p95_ms: float
    jailed: bool = True


_IMPORTS = {"host": {"lookup": lambda key: f"value of {key}"}}


def _jailed(code: str, language: Language) -> Awaitable[CodeResult]:
    return start_code_run(code, language=language, imports=_IMPORTS)


def _bare_deno(code: str, language: Language) -> Awaitable[CodeResult]:
    """The same Deno command with the jail taken off: the host binary in the run's folder."""
    plan = Plan(code, {"host": ["lookup"]}, {}, {"fn": "default", "args": []}, 30.0, 256)
    launch = prepare_deno(plan, typescript=True)
    jailed_binary = len(launch.argv) - 1 - launch.argv[::-1].index("/sandbox/deno")
    command = launch.argv[jailed_binary:]
    bare = dataclasses.replace(
        launch,
        argv=[check_deno(), *command[1:]],
        env={"DENO_DIR": _BARE_DENO_DIR, "NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1"},
    )
    return CodeRun(bare, imports=_IMPORTS, timeout=30.0, redaction=Redaction())


async def measure(language: Language, shape: str, runs: int, *, jailed: bool = True) -> Latency:
    code = SNIPPETS[(language, shape)]
    start: Callable[[str, Language], Awaitable[CodeResult]] = _jailed if jailed else _bare_deno
    await start(code, language)  # warm the file cache
    times: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        result = await start(code, language)
        times.append((time.perf_counter() - started) * 1000)
        if result.status != "success":
            raise RuntimeError(f"{language} {shape} did not succeed: {result}")
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return Latency(language, shape, runs, statistics.median(times), p95, jailed)


async def main(runs: int = 50) -> list[Latency]:
    results = []
    for shape in ("trivial", "bridged"):  # jailed and bare Deno side by side, interleaved
        results.append(await measure("typescript", shape, runs))
        results.append(await measure("typescript", shape, runs, jailed=False))
    for shape in ("trivial", "bridged"):
        results.append(await measure("python", shape, runs))
    return results


def report(results: list[Latency]) -> str:
    lines = [
        "| backend | snippet | runs | p50 (ms) | p95 (ms) | p50 target (ms) |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        backend = "bubblewrap + python3"
        if r.language == "typescript":
            backend = "bubblewrap + Deno" if r.jailed else "Deno, no jail (before)"
        lines.append(
            f"| {backend} ({r.language}) | {r.shape} | {r.runs} | {r.p50_ms:.1f} |"
            f" {r.p95_ms:.1f} | {TARGETS_MS[r.language]:.0f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(asyncio.run(main())))
