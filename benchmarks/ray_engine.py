"""Evaluation runs on Ray (`tl.RayEngine`), side by side with the same runs in this process:
200 cases x 2 models, each run one ~50 ms offline model step (two streamed chunks, 25 ms
before each), one scorer, a SQLite store.

- a local Ray with 4 worker slots: one run at a time on it (`max_concurrency=1`) against
  four (`max_concurrency=4`), the scaling;
- the same evaluation in this process at `concurrency=4` and `8` (asyncio: the runs wait on
  the model together, in one process);
- the cost of a run on Ray over the same run here, one run at a time on a warm Ray (its
  worker keeps the definitions and the store open), and the cold start: from starting Ray to
  the first row.
Every side checks every row: none lost or doubled, every run completed with its question and
its answer."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
import tempfile
import time
from typing import Any

import threadlab as tl
from benchmarks import eval_definitions
from benchmarks.evaluation import answered, cases, check

KEY = "bench"


def registry() -> tl.Registry:
    found = tl.Registry()
    for model in ("step-a", "step-b"):
        tl.define_model(model, provider="offline", model="offline",
                        options=eval_definitions.STEP_OPTIONS, registry=found)  # fmt: skip
    tl.define_prompt("answerer", prompt="Answer the question.", model="step-a", registry=found)
    return found


async def evaluation(
    store: str, count: int, *, concurrency: int, engine: Any = None, key: str = KEY
) -> float:
    """Seconds for `count` cases x 2 models, here (`engine` None) or on `engine`."""
    rt = tl.Runtime(registry(), store, secret_key=key, engine=engine)
    start = time.perf_counter()
    report = await tl.evaluate("answerer", cases(count), models=["step-a", "step-b"],
                               scorers=[answered], runtime=rt, concurrency=concurrency)  # fmt: skip
    took = time.perf_counter() - start
    check(report, rt, count, 2)
    rt.close()
    return took


def start_ray(slots: int) -> bool:
    """Start a local Ray with `slots` worker slots, unless one runs here already (the
    tests'); whether this started it."""
    import ray

    if ray.is_initialized():
        return False
    os.environ["THREADLAB_SECRET_KEY"] = KEY  # Ray's processes inherit it
    ray.init(num_cpus=slots, include_dashboard=False, logging_level=logging.ERROR)
    return True


async def measure(count: int, tmp: str, key: str = KEY) -> dict[str, float]:
    times: dict[str, float] = {}
    started = time.perf_counter()
    ours = start_ray(4)
    times["ray start"] = time.perf_counter() - started
    times["first row"] = await evaluation(f"{tmp}/cold", 1, concurrency=1,
                                          engine=tl.RayEngine(), key=key) / 2  # fmt: skip
    for slots in (1, 4):
        engine = tl.RayEngine(max_concurrency=slots)
        times[f"ray, {slots} at a time"] = await evaluation(
            f"{tmp}/ray{slots}", count, concurrency=8, engine=engine, key=key
        )
    for concurrency in (4, 8):
        times[f"here, concurrency {concurrency}"] = await evaluation(
            f"{tmp}/here{concurrency}", count, concurrency=concurrency
        )
    small = max(10, count // 10)
    times["per run, ray"] = await evaluation(
        f"{tmp}/one-ray", small, concurrency=1, engine=tl.RayEngine(), key=key
    ) / (2 * small)
    times["per run, here"] = await evaluation(f"{tmp}/one-here", small, concurrency=1) / (2 * small)
    if ours:
        import ray

        ray.shutdown()
    return times


def report(times: dict[str, float], count: int) -> str:
    runs = 2 * count
    lines = ["| how | seconds | runs / s |", "|---|---|---|"]
    for how in ("ray, 1 at a time", "ray, 4 at a time", "here, concurrency 4",
                "here, concurrency 8"):  # fmt: skip
        lines.append(f"| {how} | {times[how]:.2f} | {runs / times[how]:.1f} |")
    scaling = times["ray, 1 at a time"] / times["ray, 4 at a time"]
    extra = (times["per run, ray"] - times["per run, here"]) * 1000
    lines += [
        "",
        f"ray, 1 → 4 worker processes: {scaling:.2f}x",
        f"per run, one at a time: {times['per run, ray'] * 1000:.1f} ms on Ray against"
        f" {times['per run, here'] * 1000:.1f} ms here ({extra:+.1f} ms a run)",
        f"cold start: Ray {times['ray start']:.1f} s, then the first run"
        f" {times['first row']:.1f} s (its worker starts and imports threadlab)",
    ]
    return "\n".join(lines)


async def main(count: int = 200, key: str = KEY) -> str:
    """The table; `key`: the secret key of the Ray already running here, if one is."""
    with tempfile.TemporaryDirectory() as tmp:
        return report(await measure(count, tmp, key), count)


if __name__ == "__main__":
    print(asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)))
