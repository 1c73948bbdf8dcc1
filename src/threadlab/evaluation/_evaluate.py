"""`tl.evaluate`: one target over cases x models x repeats, every run a thread of its own
(origin "eval:<name>"), scored as it ends."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import Any

from .._data import Run
from .._errors import ThreadlabError
from ..definitions import agent_for
from ..runtime import Runtime, Thread
from ._cases import Case, EvalError, read_cases
from ._context import EvalContext
from ._on_engine import run_on_engine
from ._report import EvalReport, EvalRow
from ._scoring import check_scorer, scorer_name, scores_of

__all__ = ["evaluate"]

RowListener = Callable[[EvalRow], None]


async def evaluate(
    target: str,
    cases: Any,
    *,
    scorers: Iterable[Any] = (),
    models: Iterable[Any] | None = None,
    repeat: int = 1,
    concurrency: int = 8,
    runtime: Runtime | None = None,
    name: str | None = None,
    on_row: RowListener | None = None,
) -> EvalReport:
    """Run `target` (an agent or prompt) on every case, once per model, `repeat` times, at
    most `concurrency` runs at a time, and score each run.

    `models`: None (the target's own) or models and model names. `scorers`: callables
    `(tl.EvalContext) -> bool | float | str | dict`, sync or async, or pydantic-evals
    `Evaluator`s; a `pydantic_evals.Dataset` as `cases` brings its own evaluators. A run that
    fails is a row with its status and error; a scorer that raises scores None, and the row
    says which scorer raised. `on_row` hears of each row as it is done (a live report).

    With a runtime that has an engine (`tl.RayEngine`), each run is a Ray task (at most
    `concurrency` at a time from here): made here, run there, scored here as it ends; a run
    whose worker died is run on by the engine, and its row's `note` says so.

    Examples:
        >>> import asyncio, threadlab as tl
        >>> reg = tl.Registry()
        >>> _ = tl.define_prompt("echo", prompt="Repeat.", registry=reg)
        >>> rt = tl.Runtime(reg, store=getfixture("tmp_path"))
        >>> report = asyncio.run(tl.evaluate("echo", [tl.Case("hi", "hello")], runtime=rt,
        ...                      scorers=[tl.scorers.contains("hello")]))
        >>> [(r.case, r.status, r.scores) for r in report.rows]
        [('hi', 'completed', {"contains('hello')": True})]
    """
    rt = runtime if runtime is not None else Runtime()
    agent_for(rt.registry, target)  # DefinitionError names what is defined
    read, shared, per_case = read_cases(cases)
    chosen = [*scorers]
    for scorer in chosen:
        check_scorer(scorer)
    if not isinstance(repeat, int) or repeat < 1:
        raise EvalError(f"repeat must be a whole number of at least 1, got {repeat!r}")
    if not isinstance(concurrency, int) or concurrency < 1:
        raise EvalError(f"concurrency must be a whole number of at least 1, got {concurrency!r}")
    grid_models = list(models) if models is not None else [None]
    if not grid_models:
        raise EvalError("models must name at least one model (or be None: the target's own)")
    labels = EvalReport.model_labels(rt.registry, target, grid_models)
    name = name or f"{target}-{time.strftime('%Y%m%d-%H%M%S')}"
    gate = asyncio.Semaphore(concurrency)

    async def one(case: Case, model: Any, label: str, repeat_n: int) -> EvalRow:
        async with gate:
            row = await _run_case(rt, target, name, case, model, label, repeat_n,
                                  [*chosen, *shared, *per_case.get(case.name, [])])  # fmt: skip
        if on_row is not None:
            on_row(row)
        return row

    async def on_engine(cell: tuple[Case, Any, str, int]) -> EvalRow:
        async with gate:
            row = await run_on_engine(rt, target, name, cell, scored)
        if on_row is not None:
            on_row(row)
        return row

    async def scored(case: Case, label: str, repeat_n: int, thread: Thread, run: Run,
                     seconds: float) -> EvalRow:  # fmt: skip
        scorers = [*chosen, *shared, *per_case.get(case.name, [])]
        return await _scored(case, label, repeat_n, thread, run, seconds, scorers)

    grid = [(case, model, label, n)
            for case in read
            for model, label in zip(grid_models, labels, strict=True)
            for n in range(repeat)]  # fmt: skip
    try:
        if rt.engine is not None:
            rows = list(await asyncio.gather(*(on_engine(cell) for cell in grid)))
        else:
            rows = list(await asyncio.gather(*(one(*cell) for cell in grid)))
    finally:
        if runtime is None:
            await rt.aclose()
    return EvalReport(name, target, rows, labels, [c.name for c in read], grid_models)


async def _run_case(
    rt: Runtime, target: str, name: str, case: Case, model: Any, label: str, repeat_n: int,
    scorers: list[Any],
) -> EvalRow:  # fmt: skip
    started = time.perf_counter()
    try:
        thread = await rt.create_thread(target, env=case.env, model=model, origin=f"eval:{name}")
        paths = [(await thread.files.write(p, c)).path for p, c in case.attachments.items()]
        run = await thread.send(case.message, attachments=paths)
    except ThreadlabError as exc:  # it could not start: a missing variable, a bad path
        return EvalRow(case.name, label, repeat_n, None, "error", error=str(exc),
                       duration_ms=(time.perf_counter() - started) * 1000)  # fmt: skip
    return await _scored(case, label, repeat_n, thread, run, time.perf_counter() - started,
                         scorers)  # fmt: skip


async def _scored(
    case: Case, label: str, repeat_n: int, thread: Thread, run: Run, duration: float,
    scorers: list[Any],
) -> EvalRow:  # fmt: skip
    """The row of a run that ended, with every scorer's scores."""
    row = EvalRow(case.name, label, repeat_n, thread.id, run.status, duration_ms=duration * 1000,
                  usage=run.usage, cost_usd=run.cost_usd, error=run.error)  # fmt: skip
    context = EvalContext(case, thread, run, label)
    raised: list[str] = []
    for scorer in scorers:
        try:
            row.scores.update(await scores_of(scorer, context, duration))
        except Exception as exc:  # a scorer's bug: that score is missing, the row says why
            row.scores[scorer_name(scorer)] = None
            raised.append(f"scorer {scorer_name(scorer)} raised {type(exc).__name__}: {exc}")
    if raised:
        row.error = "; ".join(filter(None, [row.error, *raised]))
    return row
