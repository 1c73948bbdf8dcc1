"""The streaming-argument scanner against re-parsing the growing buffer with pydantic-core's
partial JSON mode on every chunk (what a UI would otherwise do to read the progress argument).

The progress argument is placed *last*, after a large `content`: the worst case for the
scanner, which must then walk the whole argument (when it comes first, as the runtime
arranges, the scanner stops after a few bytes).
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

import pydantic_core

from threadlab.execution import ArgumentScanner

CHUNK = 16


@dataclass(frozen=True)
class ScanMeasure:
    size: int
    ours_s: float
    reparse_s: float

    @property
    def speedup(self) -> float:
        return self.reparse_s / self.ours_s


def argument_text(size: int) -> str:
    body = ('<p>streamed "content" with \\escapes\\ and unicode é</p>\n' * (size // 50 + 1))[:size]
    return json.dumps({"path": "/index.html", "content": body, "description": "writing index.html"})


def chunks_of(text: str) -> list[str]:
    return [text[i : i + CHUNK] for i in range(0, len(text), CHUNK)]


def scan(chunks: list[str]) -> float:
    started = time.perf_counter()
    scanner = ArgumentScanner("description")
    for chunk in chunks:
        if scanner.feed(chunk):
            break
    elapsed = time.perf_counter() - started
    assert scanner.value == "writing index.html"
    return elapsed


def reparse(chunks: list[str]) -> float:
    started = time.perf_counter()
    buffer = ""
    found = None
    for chunk in chunks:
        buffer += chunk
        parsed = pydantic_core.from_json(buffer, allow_partial=True)
        # allow_partial=True leaves out a string still open, so presence means complete.
        if isinstance(parsed, dict) and "description" in parsed:
            found = parsed["description"]
            break
    elapsed = time.perf_counter() - started
    assert found == "writing index.html"
    return elapsed


def main(sizes: tuple[int, ...] = (10_000, 100_000, 1_000_000)) -> list[ScanMeasure]:
    out = []
    for size in sizes:
        chunks = chunks_of(argument_text(size))
        out.append(ScanMeasure(size, scan(chunks), reparse(chunks)))
    return out


def report(results: list[ScanMeasure]) -> str:
    lines = [
        f"| argument | scanner (s) | re-parse each {CHUNK}-byte chunk (s) | speed-up |",
        "|---|---|---|---|",
    ]
    for m in results:
        lines.append(f"| {m.size:,} B | {m.ours_s:.4f} | {m.reparse_s:.3f} | {m.speedup:,.0f}x |")
    by_size = {m.size: m for m in results}
    if 100_000 in by_size and 1_000_000 in by_size:
        growth = by_size[1_000_000].ours_s / by_size[100_000].ours_s
        lines.append("")
        lines.append(f"scanner 1 MB / 100 KB time: {growth:.1f} (target <= 12: linear)")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(main()))
