"""An evaluation replayed on its own recording: 200 cases, zero model calls, side by side
with pydantic-evals on the same trivial task.

- threadlab: one evaluation is recorded first (an offline model that answers at once); then
  `tl.evaluate` runs the same cases again with `tl.models.ReplayModel` over the recorded
  threads as the model, so every model step is answered from the recording — each row is
  still a thread written to the store (its messages, events and run), and scored.
- pydantic-evals: `Dataset.evaluate` over a task that looks up the same recorded answer, with
  the same scorer; it keeps nothing.

Both at concurrency 1 and 8, best of `rounds`, the sides alternating. Every row is checked:
none lost or doubled, every run completed with its question and the recorded answer, and the
replay forwarded no step to a model.

Beside them, the floor of a case as threadlab writes it: the same replayed evaluation once
more on a store that logs its statements, then that log run again through `sqlite3` alone on
a new file set up as the store sets up its own — what the statements cost with no Python of
threadlab's around them.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Any

import threadlab as tl

from .call_cost import TimedStore, Timings, replay

CONCURRENCY = (1, 8)
FLOOR = "its statements through sqlite3 alone"


def cases(count: int) -> list[tl.Case]:
    return [tl.Case(f"case {i}", f"question {i}") for i in range(count)]


def answered(ctx: tl.EvalContext) -> bool:
    return "question" in ctx.output


def _registry() -> tl.Registry:
    registry = tl.Registry()
    tl.define_model("instant", provider="offline", model="offline",
                    options={"chunk_size": 100_000}, registry=registry)  # fmt: skip
    tl.define_prompt("answerer", prompt="Answer the question.", model="instant",
                     registry=registry)  # fmt: skip
    return registry


@dataclass
class Recording:
    """The recorded evaluation: its runtime (whose store the replays write to as well) and
    each case's answer, for the anchor's task."""

    rt: tl.Runtime
    threads: list[tl.Thread]
    answers: dict[str, str] = field(default_factory=dict)


async def record(store: str, count: int) -> Recording:
    rt = tl.Runtime(_registry(), store, secret_key="bench")
    report = await tl.evaluate("answerer", cases(count), scorers=[answered], runtime=rt,
                               name="recorded")  # fmt: skip
    threads = [rt.thread(row.thread_id or "") for row in report.rows]
    recording = Recording(rt, threads)
    for thread in threads:
        question, answer = (m.content or "" for m in thread.messages)
        recording.answers[question] = answer
    return recording


async def ours(recording: Recording, count: int, concurrency: int, name: str) -> float:
    """Seconds for the replayed evaluation; checks every row."""
    replay = tl.models.ReplayModel(recording.threads)
    start = time.perf_counter()
    report = await tl.evaluate("answerer", cases(count), models=[replay], scorers=[answered],
                               runtime=recording.rt, concurrency=concurrency,
                               name=name)  # fmt: skip
    took = time.perf_counter() - start
    if replay.calls_forwarded or replay.calls_replayed != count:
        raise RuntimeError(f"{replay.calls_replayed} replayed, {replay.calls_forwarded} forwarded")
    keys = [r.case for r in report.rows]
    if len(keys) != count or len(set(keys)) != count:
        raise RuntimeError(f"{len(keys)} rows ({len(set(keys))} different) for {count}")
    for row in report.rows:
        messages = recording.rt.thread(row.thread_id or "").messages
        question, answer = (m.content or "" for m in messages)
        if row.status != "completed" or not row.passed or recording.answers[question] != answer:
            raise RuntimeError(f"row {row.case}: {row.status} {row.error}")
    return took


async def theirs(recording: Recording, count: int, concurrency: int) -> float:
    """Seconds for pydantic-evals over the same cases: the task looks up the recorded answer."""
    from pydantic_evals import Case, Dataset
    from pydantic_evals.evaluators import Evaluator, EvaluatorContext

    async def task(question: str) -> str:
        return recording.answers[question]

    class Answered(Evaluator[str, str, Any]):
        def evaluate(self, ctx: EvaluatorContext[str, str, Any]) -> bool:
            return "question" in ctx.output

    dataset = Dataset[str, str, Any](
        name="bench", cases=[Case(name=c.name, inputs=c.message) for c in cases(count)],
        evaluators=[Answered()],
    )  # fmt: skip
    start = time.perf_counter()
    report = await dataset.evaluate(task, max_concurrency=concurrency, progress=False)
    took = time.perf_counter() - start
    if len(report.cases) != count or report.failures:
        raise RuntimeError("pydantic-evals lost cases")
    if not all(all(r.value for r in c.assertions.values()) for c in report.cases):
        raise RuntimeError("pydantic-evals scored a case as failed")
    return took


async def floor(recording: Recording, count: int, directory: str) -> float:
    """Seconds per case that a replayed evaluation's statements take through `sqlite3` alone:
    the evaluation on a new store in `directory` that logs them, the log run again (best of
    3), the schema's statements untimed."""
    timings = Timings(on=False)  # only its log is wanted: the replay times the statements
    rt = tl.Runtime(_registry(), TimedStore(directory, timings), secret_key="bench")
    schema = len(timings.log)
    replayed = tl.models.ReplayModel(recording.threads)
    await tl.evaluate("answerer", cases(count), models=[replayed], scorers=[answered],
                      runtime=rt, concurrency=1, name="floor")  # fmt: skip
    rt.close()
    if replayed.calls_replayed != count:
        raise RuntimeError(f"{replayed.calls_replayed} of {count} steps replayed")
    return min(replay(timings.log, untimed=schema) for _ in range(3)) / count


async def measure(count: int = 200, rounds: int = 5) -> dict[str, float]:
    """Best seconds per case of each side at each concurrency, and the floor (`FLOOR`)."""
    best: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        recording = await record(f"{tmp}/store", count)
        await ours(recording, count, 1, "warm-up")
        await theirs(recording, count, 1)
        for n in range(rounds):
            for concurrency in CONCURRENCY:
                side = f"threadlab, concurrency {concurrency}"
                took = await ours(recording, count, concurrency, f"replay-{concurrency}-{n}")
                best[side] = min(best.get(side, took / count), took / count)
                side = f"pydantic-evals, concurrency {concurrency}"
                took = await theirs(recording, count, concurrency)
                best[side] = min(best.get(side, took / count), took / count)
        best[FLOOR] = await floor(recording, count, f"{tmp}/floor")
        recording.rt.close()
    return best


def report(best: dict[str, float]) -> str:
    lines = [
        "| concurrency | threadlab ms/case | pydantic-evals ms/case | ratio (ours/theirs) |"
        " threadlab cases/s | pydantic-evals cases/s |",
        "|---|---|---|---|---|---|",
    ]
    for concurrency in CONCURRENCY:
        ours_s = best[f"threadlab, concurrency {concurrency}"]
        theirs_s = best[f"pydantic-evals, concurrency {concurrency}"]
        lines.append(
            f"| {concurrency} | {ours_s * 1000:.3f} | {theirs_s * 1000:.3f} |"
            f" {ours_s / theirs_s:.2f} | {1 / ours_s:.0f} | {1 / theirs_s:.0f} |"
        )
    theirs_1 = best["pydantic-evals, concurrency 1"]
    lines += [
        "",
        f"a replayed case's statements through sqlite3 alone: {best[FLOOR] * 1000:.3f} ms"
        f" ({best[FLOOR] / theirs_1:.2f}x pydantic-evals at concurrency 1; target 1.50x)",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    print(report(asyncio.run(measure(count))))
