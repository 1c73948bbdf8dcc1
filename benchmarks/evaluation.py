"""An evaluation of 200 cases x 2 models with a ~50 ms offline model step, side by side
(runs on Ray, across worker processes: `benchmarks/ray_engine.py`):

- the evaluation in one process with `concurrency=4`, every history checked and no row
  lost or doubled;
- `pydantic_evals.Dataset.evaluate` over the same task (the same offline model's step) at
  `max_concurrency=4`, the anchor;
- and the overhead per case, one case at a time: `tl.evaluate` (a thread per case, stored,
  scored) against pydantic-evals (a task call, scored), same step, same scorer.
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import threadlab as tl
from benchmarks import eval_definitions
from threadlab.models import ModelRequest, OfflineModel

ROOT = Path(__file__).resolve().parents[1]


def cases(count: int) -> list[tl.Case]:
    return [tl.Case(f"case {i}", f"question {i}") for i in range(count)]


def answered(ctx: tl.EvalContext) -> bool:
    return "question" in ctx.output


def check(report: tl.EvalReport, rt: tl.Runtime, count: int, models: int) -> None:
    """Every row there once, every run completed, every history a question and its answer."""
    keys = [(r.case, r.model, r.repeat) for r in report.rows]
    if len(keys) != count * models or len(set(keys)) != len(keys):
        raise RuntimeError(f"{len(keys)} rows ({len(set(keys))} different) for {count * models}")
    for row in report.rows:
        roles = [m.role for m in rt.thread(row.thread_id or "").messages]
        if row.status != "completed" or roles != ["user", "assistant"] or not row.passed:
            raise RuntimeError(f"row {row.case}/{row.model}: {row.status} {roles} {row.error}")


async def ours(store: str, count: int, *, concurrency: int) -> float:
    """Seconds for the evaluation in this process."""
    registry = tl.Registry()
    for model in ("step-a", "step-b"):
        tl.define_model(model, provider="offline", model="offline",
                        options=eval_definitions.STEP_OPTIONS, registry=registry)  # fmt: skip
    tl.define_prompt("answerer", prompt="Answer the question.", model="step-a", registry=registry)
    rt = tl.Runtime(registry, store, secret_key="bench")
    start = time.perf_counter()
    report = await tl.evaluate("answerer", cases(count), models=["step-a", "step-b"],
                               scorers=[answered], runtime=rt, concurrency=concurrency)  # fmt: skip
    took = time.perf_counter() - start
    check(report, rt, count, 2)
    rt.close()
    return took


async def theirs(count: int, concurrency: int) -> float:
    """Seconds for pydantic-evals over the same task: each case's step of the same offline
    model, for each of the two models, with the same scorer."""
    from pydantic_evals import Case, Dataset
    from pydantic_evals.evaluators import Evaluator, EvaluatorContext

    model = OfflineModel(**eval_definitions.STEP_OPTIONS)  # type: ignore[arg-type]

    async def task(question: str) -> str:
        answer = ""
        request = ModelRequest(messages=[tl.Message(role="user", content=question)])
        async for chunk in model.stream(request):
            answer += getattr(chunk, "text", "") or ""
        return answer

    class Answered(Evaluator[str, str, Any]):
        def evaluate(self, ctx: EvaluatorContext[str, str, Any]) -> bool:
            return "question" in ctx.output

    dataset = Dataset[str, str, Any](
        name="bench", cases=[Case(name=f"case {i}", inputs=f"question {i}") for i in range(count)],
        evaluators=[Answered()],
    )  # fmt: skip
    start = time.perf_counter()
    for _ in range(2):  # the two models
        report = await dataset.evaluate(task, max_concurrency=concurrency, progress=False)
        if len(report.cases) != count or report.failures:
            raise RuntimeError("pydantic-evals lost cases")
    return time.perf_counter() - start


async def measure(count: int, tmp: str) -> dict[str, float]:
    times: dict[str, float] = {}
    times["here, concurrency 4"] = await ours(f"{tmp}/here", count, concurrency=4)
    times["pydantic-evals, concurrency 4"] = await theirs(count, 4)
    small = max(10, count // 10)
    one_by_one = await ours(f"{tmp}/one", small, concurrency=1)
    times["per case, ours"] = one_by_one / (2 * small)
    times["per case, pydantic-evals"] = await theirs(small, 1) / (2 * small)
    return times


def report(times: dict[str, float], count: int) -> str:
    runs = 2 * count
    lines = ["| how | seconds | runs / s |", "|---|---|---|"]
    for how in ("here, concurrency 4", "pydantic-evals, concurrency 4"):
        lines.append(f"| {how} | {times[how]:.2f} | {runs / times[how]:.1f} |")
    overhead = times["per case, ours"] / times["per case, pydantic-evals"]
    lines.append("")
    lines.append(
        f"per case, one at a time: {times['per case, ours'] * 1000:.1f} ms against"
        f" {times['per case, pydantic-evals'] * 1000:.1f} ms (ratio {overhead:.2f})"
    )
    return "\n".join(lines)


async def main(count: int = 200) -> str:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        return report(await measure(count, tmp), count)


if __name__ == "__main__":
    print(asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)))
