"""The benchmarks run (at a tiny scale) so they cannot rot; their figures live in
benchmarks/README.md, not in assertions."""

from __future__ import annotations

from benchmarks import overhead, scanner


async def test_overhead_benchmark_runs_both_sides() -> None:
    (measure,) = [await overhead.measure("tiny", 2, 3)]
    assert measure.calls == 6
    assert measure.ours_s > 0
    assert measure.theirs_s > 0


def test_scanner_benchmark_finds_the_progress_both_ways() -> None:
    (measure,) = scanner.main((2_000,))
    assert measure.ours_s > 0
    assert measure.reparse_s > 0
