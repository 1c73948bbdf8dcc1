"""What the first cells cost before anything runs: the CPU seconds of a fresh Python that
imports `threadlab` (and `threadlab.kernel_ext`, what the extension loads), side by side with
one that imports `anywidget` (the anchor) and `ipywidgets` — in the environment the tests and
`make lab` use, with JupyterLab installed (whose packages bring the slow-to-import optional
parts of jsonschema). Then the same in an IPython shell, as a notebook's first cells: the
shell alone, the shell with `%load_ext threadlab`, and with a `%%tool` cell after it (what
the extension defers until a cell needs it), beside the shell importing `anywidget`.
Each probe in its own process, alternating, CPU time (user + system) from the OS."""

from __future__ import annotations

import resource
import statistics
import subprocess
import sys
from dataclasses import dataclass

MODULES = ("threadlab", "threadlab.kernel_ext", "anywidget", "ipywidgets")

_SHELL = (
    "from IPython.core.interactiveshell import InteractiveShell\n"
    "shell = InteractiveShell.instance()\n"
)
_TOOL_CELL = "def shout(state, text: str) -> str:\n    '''Shout.'''\n    return text.upper()\n"
SHELL_PROBES = {
    "shell": _SHELL,
    "shell + import anywidget": _SHELL + "import anywidget\n",
    "shell + %load_ext threadlab": _SHELL + "shell.run_line_magic('load_ext', 'threadlab')\n",
    "shell + %load_ext + %%tool": _SHELL
    + "shell.run_line_magic('load_ext', 'threadlab')\n"
    + f"shell.run_cell_magic('tool', '', {_TOOL_CELL!r})\n",
}
PROBES = {**{f"import {m}": f"import {m}" for m in MODULES}, **SHELL_PROBES}


@dataclass(frozen=True)
class ImportCost:
    probe: str
    cpu_s: float


def _cpu_of(code: str) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", code], check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(repeats: int = 9) -> list[ImportCost]:
    """Median CPU seconds per probe, the probes alternating, after one warm-up each."""
    for code in PROBES.values():
        _cpu_of(code)
    costs: dict[str, list[float]] = {probe: [] for probe in PROBES}
    for _ in range(repeats):
        for probe, code in PROBES.items():
            costs[probe].append(_cpu_of(code))
    return [ImportCost(probe, statistics.median(costs[probe])) for probe in PROBES]


def report(costs: list[ImportCost]) -> str:
    by = {c.probe: c.cpu_s for c in costs}
    anchor = by["import anywidget"]
    shell_anchor = by["shell + import anywidget"]
    lines = ["| probe | CPU (s) | over its anywidget anchor (s) |", "|---|---|---|"]
    for c in costs:
        base = shell_anchor if c.probe.startswith("shell") else anchor
        lines.append(f"| `{c.probe}` | {c.cpu_s:.2f} | {c.cpu_s - base:+.2f} |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(measure()))
