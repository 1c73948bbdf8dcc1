"""An evaluation as a live table: cases down, models across, a cell per run (its score,
status, latency, tokens and cost), a progress bar with the time left, filters for failures
and for cases where the models differ; clicking a cell opens its thread below."""

from __future__ import annotations

import html
import time
from typing import Any

import traitlets

from .. import EvalReport, EvalRow, Runtime
from ._views import OpeningView

__all__ = ["EvalView"]


class EvalView(OpeningView):
    """The table of one evaluation, filled in as its rows finish."""

    name = traitlets.Unicode("").tag(sync=True)
    target = traitlets.Unicode("").tag(sync=True)
    models: traitlets.List[str] = traitlets.List().tag(sync=True)
    cases: traitlets.List[str] = traitlets.List().tag(sync=True)
    total = traitlets.Int(0).tag(sync=True)
    started_at = traitlets.Float(0.0).tag(sync=True)
    finished = traitlets.Bool(False).tag(sync=True)

    def __init__(self, rt: Runtime, *, name: str, target: str, cases: list[str],
                 models: list[str], repeat: int, **kwargs: Any) -> None:  # fmt: skip
        super().__init__(rt, view="eval", **kwargs)
        self.name, self.target = name, target
        self.cases, self.models = cases, models
        self.total = len(cases) * len(models) * repeat
        self.started_at = time.time()

    def add(self, row: EvalRow) -> None:
        """A row that finished: its cell fills in."""
        self.rows = [*self.rows, cell(row)]

    def finish(self, report: EvalReport) -> None:
        """The evaluation ended: the rows in their order, and the output the notebook
        keeps brought up to date."""
        self.rows = [cell(r) for r in report.rows]
        self.finished = True
        self.refresh_output()

    def streaming(self) -> bool:
        return not self.finished

    def saved_state(self) -> dict[str, Any]:
        keep = ("name", "target", "models", "cases", "total", "started_at", "finished")
        return {**super().saved_state(), **{k: getattr(self, k) for k in keep}}

    def static_html(self) -> str:
        head = "".join(f"<th>{html.escape(m)}</th>" for m in self.models)
        body = []
        for case in self.cases:
            cells = []
            for model in self.models:
                rows = [r for r in self.rows if r["case"] == case and r["model"] == model]
                cells.append("<td>" + "<br>".join(html.escape(_text(r)) for r in rows) + "</td>")
            body.append(f"<tr><th>{html.escape(case)}</th>{''.join(cells)}</tr>")
        title = html.escape(f"eval {self.name}: {self.target}")
        return (f'<div class="threadlab-eval"><b>{title}</b><table><tr><th>case</th>{head}</tr>'
                f"{''.join(body)}</table></div>")  # fmt: skip

    def __repr__(self) -> str:
        passed = sum(1 for r in self.rows if r["passed"])
        lines = [f"eval {self.name}: {self.target}, {len(self.rows)}/{self.total} runs,"
                 f" {passed} passed"]  # fmt: skip
        lines += [f"  {r['case']} | {r['model']} | {_text(r)}" for r in self.rows]
        return "\n".join(lines)


def cell(row: EvalRow) -> dict[str, Any]:
    """A row as the table shows it."""
    return {
        "case": row.case,
        "model": row.model,
        "repeat": row.repeat,
        "thread": row.thread_id,
        "status": row.status,
        "passed": row.passed,
        "scores": dict(row.scores),
        "ms": round(row.duration_ms),
        "tokens": sum((row.usage or {}).values()),
        "cost_usd": row.cost_usd,
        "error": row.error,
        "note": row.note,
    }


def _text(r: dict[str, Any]) -> str:
    scores = ", ".join(f"{k}={v}" for k, v in r["scores"].items())
    return f"{'✓' if r['passed'] else '✗'} {r['status']} {r['ms']} ms {scores}".strip()
