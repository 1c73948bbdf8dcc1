"""`tl.evaluate`: a grid of cases x models x repeats, each run a thread; the built-in
scorers, plain callables and pydantic-evals evaluators and datasets; the report's summary,
comparison and table; replay at no model call; bad input."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic_evals import Case as PECase
from pydantic_evals import Dataset
from pydantic_evals.evaluators import Contains, EqualsExpected, Evaluator, EvaluatorContext

import threadlab as tl
from threadlab import scorers
from threadlab.models import FunctionModel, Step, call, text

CASES = [
    tl.Case("tea", "Find tea.", expected="tea"),
    tl.Case("coffee", "Find coffee.", expected="coffee"),
    {"name": "water", "message": "Find water.", "expected": "water"},
]


def searcher(registry: tl.Registry, careless: bool = False) -> FunctionModel:
    """Searches for the word before the full stop, then answers with what it found; a
    careless one skips the search for water and says so."""

    def step(messages: list[Any], tools: list[Any]) -> Step:
        asked = next(m.content for m in messages if m.role == "user")
        word = asked.removeprefix("Find ").rstrip(".")
        if messages[-1].role == "user" and not (careless and word == "water"):
            return call("search", {"query": word})
        found = messages[-1].content if messages[-1].role == "tool" else "nothing"
        return text(f"I found {found}")

    step.__name__ = "careless" if careless else "careful"
    return FunctionModel(step)


def define(registry: tl.Registry) -> None:
    tl.define_tool("search", description="Search.", registry=registry,
                   args={"type": "object", "properties": {"query": {"type": "string"}}},
                   execute=lambda s, a: a["query"])  # fmt: skip
    tl.define_prompt("finder", prompt="Find things.", tools=["search"],
                     model=searcher(registry), registry=registry)  # fmt: skip


async def test_a_grid_of_cases_models_and_repeats_each_a_scored_thread(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define(registry)
    seen: list[tl.EvalRow] = []
    report = await tl.evaluate(
        "finder", CASES, runtime=rt, name="first", repeat=2, on_row=seen.append,
        models=[searcher(registry), searcher(registry, careless=True)],
        scorers=[scorers.called("search"), scorers.contains("water"), scorers.status("completed"),
                 lambda ctx: ctx.output.endswith(str(ctx.expected))],
    )  # fmt: skip
    assert report.models == ["careful", "careless"]
    assert len(report.rows) == len(seen) == 3 * 2 * 2
    assert [(r.case, r.model, r.repeat) for r in report.rows[:4]] == [
        ("tea", "careful", 0), ("tea", "careful", 1), ("tea", "careless", 0),
        ("tea", "careless", 1)]  # fmt: skip
    water = {r.model: r for r in report.rows if r.case == "water" and r.repeat == 0}
    assert water["careful"].scores == {"called(search)": True, "contains('water')": True,
                                       "status(completed)": True, "<lambda>": True}  # fmt: skip
    assert water["careless"].scores["called(search)"] is False
    assert water["careless"].passed is False
    summary = report.summary()
    assert summary["careful"]["called(search)"] == 1.0
    assert summary["careless"]["called(search)"] == pytest.approx(4 / 6)
    assert summary["careful"]["rows"] == 6
    assert [(a.case, b.case) for a, b in report.compare("careful", "careless")] == [
        ("water", "water"), ("water", "water")]  # fmt: skip
    threads = {t.id: t for t in rt.threads()}
    assert {threads[r.thread_id].origin for r in report.rows if r.thread_id} == {"eval:first"}
    one = threads[water["careful"].thread_id or ""]
    assert one.messages[-1].content == "I found water"
    table = report.to_pandas()
    assert list(table["case"][:2]) == ["tea", "tea"]
    assert "score:called(search)" in table.columns
    assert "water" in report._repr_html_()


async def test_pydantic_evals_datasets_and_evaluators_are_taken_as_they_are(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define(registry)

    class FoundIt(Evaluator[str, str, Any]):
        def evaluate(self, ctx: EvaluatorContext[str, str, Any]) -> bool:
            return ctx.output == f"I found {ctx.expected_output}"

    dataset = Dataset[str, str, Any](
        name="finding",
        cases=[PECase(name="tea", inputs="Find tea.", expected_output="tea"),
               PECase(name="milk", inputs="Find milk.", expected_output="cream",
                      evaluators=[Contains("milk")])],
        evaluators=[FoundIt()],
    )  # fmt: skip
    report = await tl.evaluate("finder", dataset, runtime=rt, scorers=[EqualsExpected()])
    scores = {r.case: r.scores for r in report.rows}
    assert scores["tea"] == {"EqualsExpected": False, "FoundIt": True}
    assert scores["milk"] == {"EqualsExpected": False, "FoundIt": False, "Contains": True}


async def test_at_most_concurrency_runs_at_a_time(rt: tl.Runtime, registry: tl.Registry) -> None:
    running, most = 0, 0

    async def slow(state: tl.ThreadState, args: Any) -> str:
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.05)
        running -= 1
        return "done"

    tl.define_tool("slow", description="Slow.", execute=slow, registry=registry)
    tl.define_prompt("p", prompt="x", tools=["slow"], registry=registry)
    cases = [tl.Case(f"c{n}", "go") for n in range(8)]
    await tl.evaluate("p", cases, runtime=rt, concurrency=3)
    assert most == 3
    most = 0
    await tl.evaluate("p", cases, runtime=rt, concurrency=1)
    assert most == 1


async def test_replaying_an_evaluation_calls_no_model_until_a_tool_changes(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define(registry)
    first = await tl.evaluate("finder", CASES, runtime=rt, scorers=[scorers.contains("found")])
    recorded = [rt.thread(r.thread_id or "") for r in first.rows]
    calls: list[str] = []

    def counting(messages: list[Any], tools: list[Any]) -> Step:
        calls.append(messages[-1].role)
        return text("fresh answer")

    replay = tl.models.ReplayModel(recorded, fallback=FunctionModel(counting))
    again = await tl.evaluate("finder", CASES, runtime=rt, models=[replay],
                              scorers=[scorers.contains("found")])  # fmt: skip
    assert calls == []
    assert [r.scores for r in again.rows] == [r.scores for r in first.rows]
    # The tool changes for one case: only that case's next step goes to the model.
    tl.define_tool("search", description="Search.", registry=registry,
                   args={"type": "object", "properties": {"query": {"type": "string"}}},
                   execute=lambda s, a: "TEA" if a["query"] == "tea" else a["query"])  # fmt: skip
    replay = tl.models.ReplayModel(recorded, fallback=FunctionModel(counting))
    changed = await tl.evaluate("finder", CASES, runtime=rt, models=[replay])
    assert calls == ["tool"]
    assert [r.case for r in changed.rows if rt.thread(r.thread_id or "").messages[-1].content
            == "fresh answer"] == ["tea"]  # fmt: skip


async def test_bad_input_is_refused_before_anything_runs(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define(registry)
    with pytest.raises(tl.DefinitionError, match="unknown target 'nope'"):
        await tl.evaluate("nope", CASES, runtime=rt)
    with pytest.raises(tl.EvalError, match="at least one case"):
        await tl.evaluate("finder", [], runtime=rt)
    with pytest.raises(tl.EvalError, match="a scorer must be a callable"):
        await tl.evaluate("finder", CASES, runtime=rt, scorers=["contains"])
    with pytest.raises(tl.EvalError, match="given twice: tea"):
        await tl.evaluate("finder", [tl.Case("tea", "a"), tl.Case("tea", "b")], runtime=rt)
    with pytest.raises(tl.EvalError, match=r"case 1 does not fit tl\.Case"):
        await tl.evaluate("finder", [{"message": "x", "colour": "red"}], runtime=rt)
    with pytest.raises(tl.EvalError, match="repeat must be"):
        await tl.evaluate("finder", CASES, runtime=rt, repeat=0)
    assert rt.threads() == []


async def test_a_scorer_that_raises_and_a_run_that_fails_are_rows_that_say_so(
    rt: tl.Runtime, registry: tl.Registry, store_dir: Path
) -> None:
    define(registry)

    def broken(ctx: tl.EvalContext) -> bool:
        raise KeyError("no such field")

    def failing(messages: list[Any], tools: list[Any]) -> Step:
        raise RuntimeError("the provider is down")

    tl.define_tool("needs_key", description="x", execute=lambda s, a: "x", registry=registry,
                   variables=[tl.Variable("SOME_KEY", type="secret", required=True)])  # fmt: skip
    tl.define_prompt("keyed", prompt="x", tools=["needs_key"], registry=registry)
    report = await tl.evaluate("finder", CASES[:1], runtime=rt,
                               models=[searcher(registry), FunctionModel(failing)],
                               scorers=[broken, scorers.called("search")])  # fmt: skip
    good, bad = report.rows
    assert good.scores == {"broken": None, "called(search)": True}
    assert good.error == "scorer broken raised KeyError: 'no such field'"
    assert bad.status == "failed"
    assert "the provider is down" in (bad.error or "")
    keyed = await tl.evaluate("keyed", CASES[:1], runtime=rt)
    (row,) = keyed.rows
    assert row.status == "error"
    assert "SOME_KEY" in (row.error or "")
    assert row.thread_id is None


async def test_compare_takes_the_models_as_they_were_given(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    define(registry)
    careful, careless = searcher(registry), searcher(registry, careless=True)
    report = await tl.evaluate(
        "finder", CASES, runtime=rt, models=[careful, careless, "offline"],
        scorers=[scorers.called("search")],
    )  # fmt: skip
    by_label = report.compare("careful", "careless")
    assert [(a.case, b.case) for a, b in report.compare(careful, careless)] == [
        (a.case, b.case) for a, b in by_label
    ]
    assert by_label  # the careless model skips the search for "water"
    assert report.compare(careful, "offline") == report.compare("careful", "offline")
    with pytest.raises(
        KeyError, match=r"no model .* in this report \(careful, careless, offline\)"
    ):
        report.compare(searcher(registry), careless)  # another object, even of the same name
