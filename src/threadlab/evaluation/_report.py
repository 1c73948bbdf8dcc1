"""An evaluation's outcome: a row per case, model and repeat, each with its thread, and what
a person asks of them — a summary per model, the cases where two models differ, a table."""

from __future__ import annotations

import html
import importlib
import statistics
from dataclasses import dataclass, field
from typing import Any

from ..definitions import Registry, agent_for

__all__ = ["EvalReport", "EvalRow"]


@dataclass
class EvalRow:
    """One run of one case with one model."""

    case: str
    model: str
    repeat: int
    thread_id: str | None
    status: str
    """The run's status ("completed", "failed", ...), "error" when it could not run."""
    scores: dict[str, Any] = field(default_factory=dict)
    """Each scorer's value (bool, number, str); None where the scorer raised."""
    duration_ms: float = 0.0
    usage: dict[str, int] | None = None
    cost_usd: float | None = None
    error: str | None = None
    """Why the run failed, or which scorer raised and how."""
    note: str | None = None
    """What happened on the way (a case re-run after its worker died)."""

    @property
    def passed(self) -> bool:
        """Completed with no error, and every true-or-false score true (a score of None,
        "does not apply", counts for neither)."""
        checks = [v for v in self.scores.values() if isinstance(v, bool)]
        return self.status == "completed" and self.error is None and all(checks)


@dataclass
class EvalReport:
    """What `tl.evaluate` returns."""

    name: str
    target: str
    rows: list[EvalRow]
    models: list[str]
    """The models' labels, in the order given (see `model_labels`)."""
    cases: list[str]
    given_models: list[Any] = field(default_factory=list, repr=False, compare=False)
    """The models as `evaluate` was given them (None: the target's own), by label order."""

    @staticmethod
    def model_labels(registry: Registry, target: str, models: list[Any]) -> list[str]:
        """How a report names each model of an evaluation of `target` (None: the target's
        own): its name, else the target's own model's name; the same name twice gets "#2"."""
        labels: list[str] = []
        for model in models:
            if model is None:
                prompt = registry.prompt(agent_for(registry, target).side_a.prompt)
                own = prompt.model if prompt is not None else "offline"
                label = own if isinstance(own, str) else str(getattr(own, "name", "model"))
            elif isinstance(model, str):
                label = model
            else:
                label = str(getattr(model, "name", type(model).__name__))
            base, n = label, 2
            while label in labels:
                label, n = f"{base}#{n}", n + 1
            labels.append(label)
        return labels

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per model: the pass rate, each score's mean (true counts 1), the median
        duration, the tokens and the cost (None when a price is unknown)."""
        out: dict[str, dict[str, Any]] = {}
        for model in self.models:
            rows = [r for r in self.rows if r.model == model]
            line: dict[str, Any] = {
                "rows": len(rows),
                "pass_rate": _mean([float(r.passed) for r in rows]),
            }
            for name in _score_names(rows):
                values = [_number(r.scores.get(name)) for r in rows]
                line[name] = _mean([v for v in values if v is not None])
            line["p50_ms"] = statistics.median([r.duration_ms for r in rows]) if rows else None
            line["tokens"] = sum(sum((r.usage or {}).values()) for r in rows)
            costs = [r.cost_usd for r in rows]
            line["cost_usd"] = None if None in costs else sum(c or 0.0 for c in costs)
            out[model] = line
        return out

    def compare(self, model_a: Any, model_b: Any) -> list[tuple[EvalRow, EvalRow]]:
        """The (a, b) rows of the cases (and repeats) whose scores or status differ. A model
        is named as `evaluate` was given it (a name, a model object, None for the target's
        own) or by its label in `models`."""
        model_a, model_b = self.label_of(model_a), self.label_of(model_b)
        b_rows = {(r.case, r.repeat): r for r in self.rows if r.model == model_b}
        out = []
        for a in (r for r in self.rows if r.model == model_a):
            b = b_rows.get((a.case, a.repeat))
            if b is not None and (a.scores != b.scores or a.status != b.status):
                out.append((a, b))
        return out

    def label_of(self, model: Any) -> str:
        """The label of a model as `evaluate` was given it, or of a label (KeyError naming the
        report's models when it has no such model)."""
        for given, label in zip(self.given_models, self.models, strict=False):
            if given is model or (isinstance(model, str) and given == model):
                return label
        if isinstance(model, str) and model in self.models:
            return model
        raise KeyError(f"no model {model!r} in this report ({', '.join(self.models)})")

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame, a column per score (pandas must be installed)."""
        try:
            pd = importlib.import_module("pandas")
        except ImportError:
            raise ImportError("to_pandas() needs pandas: pip install pandas") from None
        records = []
        for r in self.rows:
            record = {
                "case": r.case,
                "model": r.model,
                "repeat": r.repeat,
                "thread_id": r.thread_id,
                "status": r.status,
                "passed": r.passed,
                "duration_ms": r.duration_ms,
                "cost_usd": r.cost_usd,
                "error": r.error,
            }
            record.update({f"score:{k}": v for k, v in r.scores.items()})
            records.append(record)
        return pd.DataFrame.from_records(records)

    def __repr__(self) -> str:
        passed = sum(r.passed for r in self.rows)
        return (f"EvalReport({self.name!r}: {len(self.cases)} cases x {len(self.models)} models,"
                f" {passed}/{len(self.rows)} passed)")  # fmt: skip

    def _repr_html_(self) -> str:
        """Cases down, models across; each cell its scores, status and time."""
        head = "".join(f"<th>{html.escape(m)}</th>" for m in self.models)
        body = []
        for case in self.cases:
            cells = []
            for model in self.models:
                rows = [r for r in self.rows if r.case == case and r.model == model]
                cells.append("<td>" + "<br>".join(_cell(r) for r in rows) + "</td>")
            body.append(f"<tr><th>{html.escape(case)}</th>{''.join(cells)}</tr>")
        return (f"<table class='threadlab-eval'><tr><th>case</th>{head}</tr>"
                f"{''.join(body)}</table>")  # fmt: skip


def _cell(row: EvalRow) -> str:
    mark = "✓" if row.passed else "✗"
    scores = ", ".join(f"{k}={v}" for k, v in row.scores.items())
    return html.escape(f"{mark} {row.status} {row.duration_ms:.0f} ms {scores}".strip())


def _score_names(rows: list[EvalRow]) -> list[str]:
    names: dict[str, None] = {}
    for r in rows:
        names.update(dict.fromkeys(r.scores))
    return list(names)


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float):
        return float(value)
    return None


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None
