"""Why a run ended, as a value: `Run.stop_reason` names the limit that stopped it or what it
waits for, beside the readable `error`, and the `run_finished` event carries it."""

from __future__ import annotations

import threadlab as tl
from threadlab.models import ScriptedModel, call, step, text


def _tools(registry: tl.Registry) -> None:
    tl.define_tool("ok", description="Fine.", execute=lambda s, a: "fine", registry=registry)
    tl.define_tool("bad", description="Fails.", execute=lambda s, a: 1 / 0, registry=registry)
    tl.define_tool(
        "rm", description="Deletes.", execute=lambda s, a: "gone", approval="always",
        registry=registry,
    )  # fmt: skip


async def _ended(
    rt: tl.Runtime, registry: tl.Registry, steps: list[tl.models.Step], **side: int
) -> tl.Run:
    _tools(registry)
    tl.define_prompt(
        "p", prompt="x", tools=["ok", "bad", "rm"], model=ScriptedModel(steps), registry=registry
    )
    target = "p"
    if side:
        tl.define_agent("a", side_a=tl.Side("p", **side), registry=registry)
        target = "a"
    thread = await rt.create_thread(target)
    run = await thread.send("go")
    (finished,) = [e for e in thread.events if isinstance(e, tl.RunFinishedEvent)]
    assert finished.stop_reason == run.stop_reason
    return run


async def test_a_turn_that_ends_on_an_answer_completed(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    run = await _ended(rt, registry, [call("ok"), text("done")])
    assert (run.status, run.stop_reason, run.error) == ("completed", "completed", None)


async def test_the_step_limit_is_named(rt: tl.Runtime, registry: tl.Registry) -> None:
    run = await _ended(rt, registry, [call("ok"), call("ok"), text("done")], max_steps=2)
    assert (run.status, run.stop_reason) == ("stopped", "stopped: max_steps")
    assert run.error == "the turn reached max_steps (2) model calls"


async def test_failures_in_a_row_are_named(registry: tl.Registry, store_dir: object) -> None:
    rt = tl.Runtime(registry, store_dir, max_consecutive_failures=2)  # type: ignore[arg-type]
    run = await _ended(rt, registry, [step(call("bad"), call("bad")), text("never")])
    assert (run.status, run.stop_reason) == ("stopped", "stopped: max_consecutive_failures")
    rt.close()


async def test_the_budget_is_named(registry: tl.Registry, store_dir: object) -> None:
    class Counted(ScriptedModel):
        async def stream(self, request):  # type: ignore[no-untyped-def]
            async for chunk in super().stream(request):
                yield chunk
            yield tl.models.FinishChunk(usage={"input_tokens": 80, "output_tokens": 40})

    _tools(registry)
    tl.define_prompt(
        "p", prompt="x", tools=["ok"], model=Counted([call("ok"), text("x")]), registry=registry
    )
    rt = tl.Runtime(registry, store_dir, budget=tl.Budget(max_tokens=100))  # type: ignore[arg-type]
    run = await (await rt.create_thread("p")).send("go")
    assert (run.status, run.stop_reason) == ("stopped", "stopped: budget")
    assert run.error == "the run reached its budget of 100 tokens (120 used)"
    rt.close()


async def test_a_call_that_waits_for_a_decision(rt: tl.Runtime, registry: tl.Registry) -> None:
    run = await _ended(rt, registry, [call("rm"), text("done")])
    assert (run.status, run.stop_reason) == ("waiting", "waiting: approval")
    assert [r.name for r in run.pending] == ["rm"]


async def test_a_failed_model_step(rt: tl.Runtime, registry: tl.Registry) -> None:
    run = await _ended(rt, registry, [])  # a script with no step left: the model fails
    assert (run.status, run.stop_reason) == ("failed", "failed")


def test_a_run_made_from_a_status_gets_its_reason() -> None:
    assert tl.Run("r", "t", "interrupted").stop_reason == "interrupted"
    assert tl.Run("r", "t", "queued").stop_reason == "queued"
    assert tl.Run("r", "t", "stopped").stop_reason is None  # a limit must be named
