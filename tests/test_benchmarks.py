"""The benchmarks run (at a tiny scale) so they cannot rot; their figures live in
benchmarks/README.md, not in assertions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from benchmarks import (
    call_cost,
    class_view,
    durable_peers,
    fanout,
    fork,
    growth,
    overhead,
    providers,
    sandbox,
    scanner,
    steps,
    storage,
    thread_hop,
    widgets,
)

pytestmark = pytest.mark.processes  # it starts the benchmarks' processes


async def test_overhead_benchmark_runs_both_sides() -> None:
    (measure,) = [await overhead.measure("tiny", 2, 3)]
    assert measure.calls == 6
    assert measure.ours_s > 0
    assert measure.theirs_s > 0


async def test_the_realistic_shape_streams_the_same_chunks_on_both_sides() -> None:
    assert overhead.argument_chunks('{"n": 12345}', 8) == ['{"n": 12', "345}"]
    for streamed in (True, False):
        measure = await overhead.measure("tiny", 2, 3, realistic=True, streamed=streamed)
        assert measure.ours_s > 0
        assert measure.theirs_s > 0


async def test_the_durable_peers_run_the_same_calls_and_keep_a_file() -> None:
    costs = await durable_peers.measure(runs=2, calls=3, repeats=1)
    assert [c.side for c in costs] == [
        "threadlab", "LangGraph + SqliteSaver", "OpenAI Agents SDK + SQLiteSession"]  # fmt: skip
    for cost in costs:
        assert cost.calls == 6
        assert cost.seconds > 0
        assert cost.bytes > 0  # each side kept its conversations in its file
    assert "faster durable peer" in durable_peers.report(costs)


def test_scanner_benchmark_finds_the_progress_both_ways() -> None:
    (measure,) = scanner.main((2_000,))
    assert measure.ours_s > 0
    assert measure.reparse_s > 0


async def test_fanout_benchmark_runs_children_and_shares_attachments() -> None:
    result = await fanout.fan_out(children=3)
    assert result.threads == 4
    given, grown = await fanout.shared_attachment(children=2, megabytes=1)
    assert given == 2 * 2**20
    assert grown < given


async def test_widget_traffic_benchmark_counts_updates() -> None:
    traffic = await widgets.measure(rate=10, calls=5, words=5)
    assert traffic.tool_calls == 5
    assert traffic.text_deltas == 30
    assert 0 < traffic.updates < traffic.events


async def test_sandbox_benchmark_measures_both_backends() -> None:
    from tests.sandbox.conftest import require_jail

    require_jail()
    for language in ("typescript", "python"):
        latency = await sandbox.measure(language, "bridged", runs=2)
        assert 0 < latency.p50_ms <= latency.p95_ms


async def test_storage_benchmark_measures_growth() -> None:
    result = await storage.measure(size=20_000, chunk=16)
    assert result.chunks > 1_000
    assert result.grown_bytes > 0


async def test_provider_streaming_benchmark_reads_the_same_stream_both_ways() -> None:
    result = await providers.measure(chunks=200, repeats=1)
    assert result.chunks == 200
    assert result.ours_s > 0
    assert result.bare_s > 0


async def test_postgres_benchmark_measures_both_stores_and_checks_every_history(
    postgres_server: str,
) -> None:
    from benchmarks import postgres

    over = await postgres.overhead(postgres_server, runs=2, calls=2, repeats=1)
    assert over.sqlite_ms > 0
    assert over.postgres_ms > 0
    work = postgres.workers(postgres_server, processes=2, threads=4, calls=2)
    assert work.valid == 4


async def test_wake_up_benchmark_hears_every_message(postgres_url: str) -> None:
    from benchmarks import wakeup

    values = await wakeup.latencies(postgres_url, messages=5)
    assert len(values) == 5
    assert all(v > 0 for v in values)


async def test_fork_benchmark_forks_a_thread_with_children() -> None:
    times = await fork.measure(rounds=2, calls=30, children=3)
    assert times.messages == 62  # the question, 30 calls and their results, the answer
    assert times.children == 3
    assert times.at_end_ms > 0
    assert times.in_middle_ms > 0


async def test_steps_benchmark_reads_every_step_beside_the_players_points() -> None:
    cost = await steps.measure(calls=30, children=3, rounds=1)
    # Each call is a step, each model step too (one per call, and the answer), a child's
    # creation, and the children's own steps.
    assert cost.steps > 30 + 31 + 3
    assert cost.points > cost.steps
    assert cost.steps_ms > 0
    assert cost.points_ms > 0
    # A span per model step and call, and one per run: the lead's and each child's.
    assert cost.spans > 30 + 31 + 1 + 3
    assert cost.export_ms > 0


async def test_first_delta_benchmark_times_both_sides() -> None:
    result = await providers.first_delta(repeats=1)
    assert result.ours_ms > 0
    assert result.bare_ms > 0


def test_import_benchmark_times_each_module() -> None:
    from benchmarks import imports

    costs = imports.measure(repeats=1)
    assert [c.probe for c in costs] == list(imports.PROBES)
    assert all(c.cpu_s > 0 for c in costs)


async def test_evaluation_benchmark_checks_every_row_on_every_side(tmp_path: Path) -> None:
    from benchmarks import evaluation

    assert await evaluation.ours(str(tmp_path / "here"), 4, concurrency=2) > 0
    assert await evaluation.theirs(4, 2) > 0


async def test_replayed_evaluation_benchmark_checks_every_row_on_both_sides() -> None:
    from benchmarks import replayed_evaluation

    best = await replayed_evaluation.measure(count=5, rounds=1)
    assert set(best) == {
        f"{side}, concurrency {n}"
        for side in ("threadlab", "pydantic-evals")
        for n in replayed_evaluation.CONCURRENCY
    } | {replayed_evaluation.FLOOR}
    assert all(seconds > 0 for seconds in best.values())
    # The floor is the statements alone: less than the cases they were written by.
    assert best[replayed_evaluation.FLOOR] < best["threadlab, concurrency 1"]
    table = replayed_evaluation.report(best)
    assert "| 8 |" in table
    assert "through sqlite3 alone" in table


async def test_a_replay_that_forwards_a_step_fails_the_benchmark(tmp_path: Path) -> None:
    from benchmarks import replayed_evaluation

    recording = await replayed_evaluation.record(str(tmp_path / "store"), 3)
    recording.threads.pop()  # one case is no longer recorded: its step cannot be replayed
    with pytest.raises(RuntimeError):
        await replayed_evaluation.ours(recording, 3, 1, "short")
    recording.rt.close()


async def test_growth_benchmark_exports_every_run_both_ways() -> None:
    measured = await growth.measure(calls=40, per_run=10, at=(20, 40))
    assert [p.calls for p in measured.exports] == [20, 40]
    assert all(p.live_ms > 0 and p.whole_ms > 0 for p in measured.exports)
    assert [p.calls for p in measured.updates] == [20, 40]
    assert [p.calls for p in measured.runs] == [20, 40]
    assert all(p.live_ms > 0 and p.whole_ms > 0 for p in measured.runs)
    report = growth.report(measured)
    assert "view update" in report
    assert "| threadlab ms/run | pydantic-ai ms/run |" in report


async def test_thread_hop_benchmark_times_each_way_to_a_thread() -> None:
    results = await thread_hop.measure(calls=5)
    assert set(results) == {
        "threadlab pooled threads",
        "asyncio.to_thread",
        "loop default executor",
    }
    assert all(us > 0 for us in results.values())
    assert "| threadlab pooled threads |" in thread_hop.report(results)
    async_ms, sync_ms = await thread_hop.sync_over_async(runs=1, calls=2, rounds=1)
    assert async_ms > 0
    assert sync_ms > 0


async def test_call_cost_benchmark_splits_a_call_into_the_store_and_the_rest() -> None:
    short = await call_cost.measure(runs=2, calls=3, rounds=1)
    long = await call_cost.measure(runs=2, calls=6, rounds=1)
    # Three more calls in each of two runs: two more transactions for each (the floor).
    for kind in ("BEGIN", "COMMIT"):
        assert long.statements[kind] - short.statements[kind] == 2 * 3 * 2
    assert 0 < short.store_total_s < short.ours_s
    assert short.raw_s > 0  # the same statements replayed: they all run again
    assert set(short.raw_without_s) == set(call_cost.LEAVE_OUT)
    assert all(s > 0 for s in short.raw_without_s.values())
    assert short.theirs_s > 0
    table = call_cost.report(short)
    assert "| store: COMMIT |" in table
    assert "| the rest (Python) |" in table


def test_call_cost_leaves_out_only_the_event_rows_it_names() -> None:
    events = "INSERT INTO events (thread_id, type, data) VALUES (?, ?, ?)"
    messages = "INSERT INTO messages (id, thread_id, depth, data) VALUES (?, ?, ?, ?)"
    log: call_cost.Log = [
        (False, "BEGIN IMMEDIATE", ()),
        (True, messages, [("m1", "t", 0, "{}")]),
        (True, events, [("t", "tool_call_started", "{}"), ("t", "message_created", "{}")]),
        (True, events, [("t", "message_created", "{}")]),
        (False, "COMMIT", ()),
    ]
    created = call_cost.LEAVE_OUT["the message_created rows"]
    assert call_cost.without_events(log, created) == [
        log[0],
        log[1],
        (True, events, [("t", "tool_call_started", "{}")]),
        log[4],
    ]
    assert call_cost.without_events(log, call_cost.LEAVE_OUT["any event row"]) == [
        log[0],
        log[1],
        log[4],
    ]


async def test_the_ray_benchmark_runs_every_side(ray_cluster: Any) -> None:
    from benchmarks import ray_engine

    from .conftest import RAY_KEY

    printed = await ray_engine.main(2, key=RAY_KEY)
    assert "ray, 1 → 4 worker processes" in printed
    assert "| here, concurrency 8 |" in printed


async def test_the_class_view_benchmark_reads_every_member() -> None:
    cost = await class_view.measure(3, 2, 1)
    assert (cost.members, cost.threads) == (3, 6)
    assert cost.open_ms > 0
    assert cost.list_ms > 0
