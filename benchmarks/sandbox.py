"""`state.run_code` latency: the time from starting a run to its result, for a trivial snippet
and for a snippet that makes one bridged call, per backend (Deno for JavaScript/TypeScript, a
bubblewrap jail for Python). Reports the median and the 95th percentile; each run is a fresh
process, as the sandbox promises."""

from __future__ import annotations

import asyncio
import statistics
import time
from dataclasses import dataclass

from threadlab.sandbox import Language, start_code_run

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


@dataclass(frozen=True)
class Latency:
    language: Language
    shape: str
    runs: int
    p50_ms: float
    p95_ms: float


async def measure(language: Language, shape: str, runs: int) -> Latency:
    code = SNIPPETS[(language, shape)]
    imports = {"host": {"lookup": lambda key: f"value of {key}"}}
    await start_code_run(code, language=language, imports=imports)  # warm the file cache
    times: list[float] = []
    for _ in range(runs):
        started = time.perf_counter()
        result = await start_code_run(code, language=language, imports=imports)
        times.append((time.perf_counter() - started) * 1000)
        if result.status != "success":
            raise RuntimeError(f"{language} {shape} did not succeed: {result}")
    times.sort()
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    return Latency(language, shape, runs, statistics.median(times), p95)


async def main(runs: int = 50) -> list[Latency]:
    return [
        await measure(language, shape, runs)
        for language in ("typescript", "python")
        for shape in ("trivial", "bridged")
    ]


def report(results: list[Latency]) -> str:
    lines = [
        "| backend | snippet | runs | p50 (ms) | p95 (ms) | p50 target (ms) |",
        "|---|---|---|---|---|---|",
    ]
    for r in results:
        backend = "Deno" if r.language == "typescript" else "bubblewrap + python3"
        lines.append(
            f"| {backend} ({r.language}) | {r.shape} | {r.runs} | {r.p50_ms:.1f} |"
            f" {r.p95_ms:.1f} | {TARGETS_MS[r.language]:.0f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(asyncio.run(main())))
