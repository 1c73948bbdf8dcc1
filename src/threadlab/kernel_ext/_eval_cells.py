"""`%%eval TARGET`: a quick list of cases, one per line — a message (`message => expected` to
say what the answer should contain), or a JSON object of `tl.Case` fields — run by
`tl.evaluate` into a live table."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from IPython.core.error import UsageError
from IPython.display import display
from pydantic import ValidationError

from .. import Case, EvalContext, EvalReport, Runtime, evaluate, scorers
from ..widgets import EvalView
from ._arguments import split_names

__all__ = ["run_eval_cell"]


def eval_cases(cell: str) -> list[Case]:
    """A case per non-empty line: a JSON object of `tl.Case` fields (named by its "name", else
    by its message), or a message, named by itself (the same name twice: "(2)")."""
    cases: list[Case] = []
    seen: dict[str, int] = {}
    for line in cell.splitlines():
        if not line.strip():
            continue
        given = _case_object(line)
        if given is not None:
            base = str(given.get("name") or given.get("message") or "")
            seen[base] = seen.get(base, 0) + 1
            name = base if seen[base] == 1 else f"{base} ({seen[base]})"
            try:
                cases.append(Case(**{**given, "name": name}))
            except ValidationError as exc:
                problems = "; ".join(
                    f"{'.'.join(map(str, e['loc'])) or 'case'}: {e['msg']}" for e in exc.errors()
                )
                raise UsageError(
                    f"%%eval: a case line is not a tl.Case ({problems}): {line!r}"
                ) from None
            continue
        message, _, expected = line.partition("=>")
        message = message.strip()
        if not message:
            raise UsageError(f"%%eval: a line has no message before '=>': {line!r}")
        base = message if len(message) <= 40 else message[:39] + "…"
        seen[base] = seen.get(base, 0) + 1
        name = base if seen[base] == 1 else f"{base} ({seen[base]})"
        cases.append(Case(name, message, expected=expected.strip() or None))
    if not cases:
        raise UsageError("%%eval: the cell holds the cases, one message per line, and it is empty")
    return cases


def _case_object(line: str) -> dict[str, Any] | None:
    """The fields of a line that is a JSON object; None for a line that is a message (one
    that merely starts with "{" but is no JSON object is a message too)."""
    text = line.strip()
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _expected_in_answer(ctx: EvalContext) -> bool | None:
    return None if ctx.expected is None else str(ctx.expected) in ctx.output


_expected_in_answer.__name__ = "answer has expected"


def chosen_scorers(args: Any, cases: list[Case], namespace: Mapping[str, Any]) -> list[Any]:
    """The scorers the flags name, and "answer has expected" when a line gave one."""
    chosen: list[Any] = [scorers.called(t) for t in args.called or []]
    chosen += [scorers.not_called(t) for t in args.not_called or []]
    chosen += [scorers.contains(t) for t in args.contains or []]
    for name in args.scorer or []:
        if name not in namespace:
            raise UsageError(f"%%eval: --scorer {name}: no such name in this notebook")
        chosen.append(namespace[name])
    if any(c.expected is not None for c in cases):
        chosen.append(_expected_in_answer)
    return chosen


def chosen_models(names: str | None, namespace: Mapping[str, Any]) -> list[Any] | None:
    """Model names, or models the notebook holds under those names."""
    if not names:
        return None
    return [
        namespace[n] if callable(getattr(namespace.get(n), "stream", None)) else n
        for n in split_names(names)
    ]


async def run_eval_cell(rt: Runtime, args: Any, cell: str, namespace: Mapping[str, Any]) -> None:
    """Evaluate the cell's cases with a live table that fills in as runs finish."""
    cases = eval_cases(cell)
    models = chosen_models(args.models, namespace)
    chosen = chosen_scorers(args, cases, namespace)
    labels = EvalReport.model_labels(
        rt.registry, args.target, list(models) if models is not None else [None]
    )
    view = EvalView(rt, name=args.name or args.target, target=args.target,
                    cases=[c.name for c in cases], models=labels,
                    repeat=args.repeat)  # fmt: skip
    display(view)
    report = await evaluate(args.target, cases, scorers=chosen, models=models,
                            repeat=args.repeat, concurrency=args.concurrency, runtime=rt,
                            name=args.name, on_row=view.add)  # fmt: skip
    view.finish(report)
