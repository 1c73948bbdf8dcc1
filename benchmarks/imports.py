"""What `%load_ext threadlab` costs before anything runs: the CPU seconds of a fresh Python that
imports `threadlab` (and `threadlab.kernel_ext`, what the extension loads), side by side with
one that imports `ipywidgets` — in the environment the tests and `make lab` use, with
JupyterLab installed (whose packages bring the slow-to-import optional parts of jsonschema).
Each import in its own process, alternating, CPU time (user + system) from the OS."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
from dataclasses import dataclass

MODULES = ("threadlab", "threadlab.kernel_ext", "anywidget", "ipywidgets")


@dataclass(frozen=True)
class ImportCost:
    module: str
    cpu_s: float


def _cpu_of(module: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(repeats: int = 9) -> list[ImportCost]:
    """Median CPU seconds per module, the modules alternating, after one warm-up each."""
    for module in MODULES:
        _cpu_of(module)
    costs: dict[str, list[float]] = {module: [] for module in MODULES}
    for _ in range(repeats):
        for module in MODULES:
            costs[module].append(_cpu_of(module))
    return [ImportCost(module, statistics.median(costs[module])) for module in MODULES]


def report(costs: list[ImportCost]) -> str:
    anchor = next(c.cpu_s for c in costs if c.module == "ipywidgets")
    lines = ["| import | CPU (s) | ratio to ipywidgets |", "|---|---|---|"]
    lines += [f"| `{c.module}` | {c.cpu_s:.2f} | {c.cpu_s / anchor:.1f} |" for c in costs]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(measure()))
