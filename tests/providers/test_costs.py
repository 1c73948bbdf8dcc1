"""What runs cost and the budgets that bound them, over the wire: the official `openai` SDK
against the scripted server. A step's price comes from the `genai-prices` tables for the
provider and model (a model at an unknown server has an unknown price: None, never a guess);
a `tl.Budget` stops a run before a step that would start past it, its children's steps
included."""

from __future__ import annotations

from typing import Any

import genai_prices
import pytest

import threadlab as tl

from ._protocols import PROVIDERS, chat_chunks, chat_frames, provider_frames
from ._server import Reply, ScriptedServer
from ._setup import KEY, arguments, new_thread, remote_prompt

ADD = ("call_a1", "add", arguments({"a": 2, "b": 3}))


def reply(*chunks: dict[str, object]) -> Reply:
    return Reply(frames=chat_frames(chunks))


def adds_then_answers(server: ScriptedServer, adds: int) -> None:
    for n in range(adds):
        call = (f"call_{n}", "add", arguments({"a": n, "b": 1}))
        server.reply(reply(*chat_chunks(calls=[call], usage=(1000, 100, 200))))
    server.reply(reply(*chat_chunks("done", usage=(1000, 100, 200))))


def priced(model: str, provider: str, **usage: int) -> float:
    """What the tables say, asked directly."""
    return float(
        genai_prices.calc_price(
            genai_prices.Usage(**usage), model, provider_id=provider
        ).total_price
    )


async def test_a_known_models_steps_and_run_are_priced_with_cache_reads(
    registry: tl.Registry,
    store_dir: Any,
    server: ScriptedServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The provider's own API (no base_url), reached here through the SDK's own setting.
    monkeypatch.setenv("OPENAI_BASE_URL", f"{server.url}/v1")
    remote_prompt(registry, server)
    tl.define_model("remote", provider="openai", model="gpt-4o", options={"max_retries": 0},
                    registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    adds_then_answers(server, 1)
    thread = await new_thread(rt)
    run = await thread.send("add")
    each = priced("gpt-4o", "openai", input_tokens=1000, output_tokens=100, cache_read_tokens=200)
    uncached = priced("gpt-4o", "openai", input_tokens=1000, output_tokens=100)
    assert 0 < each < uncached  # cache reads are priced as such
    steps = [m.cost_usd for m in thread.messages if m.role == "assistant"]
    assert steps == [pytest.approx(each), pytest.approx(each)]
    assert run.cost_usd == pytest.approx(2 * each)
    rt.close()


async def test_an_unknown_price_is_none_and_a_cost_budget_stops_rather_than_guess(
    registry: tl.Registry, store_dir: Any, server: ScriptedServer
) -> None:
    remote_prompt(registry, server)  # "test-model" at a local server: no table knows it
    rt = tl.Runtime(registry, store_dir, secret_key="k", budget=tl.Budget(max_cost_usd=1.0))
    adds_then_answers(server, 2)
    thread = await new_thread(rt)
    run = await thread.send("add")
    assert run.status == "stopped"
    assert run.error == (
        "the run cannot keep to its budget of $1: the price of model 'test-model' is unknown"
    )
    assert run.cost_usd is None
    assert [m.cost_usd for m in thread.messages if m.role == "assistant"] == [None]
    assert len(server.requests) == 1  # no second step started
    assert KEY not in (run.error or "")
    rt.close()


async def test_a_token_budget_stops_before_the_step_that_would_pass_it(
    registry: tl.Registry, store_dir: Any, server: ScriptedServer
) -> None:
    remote_prompt(registry, server)
    rt = tl.Runtime(registry, store_dir, secret_key="k", budget=tl.Budget(max_tokens=2000))
    adds_then_answers(server, 3)
    thread = await new_thread(rt)
    run = await thread.send("add")
    assert (run.status, run.error) == (
        "stopped",
        "the run reached its budget of 2,000 tokens (2,200 used)",
    )
    assert len(server.requests) == 2
    # Every call of the last persisted step has its result: the history stays valid.
    calls = [c.id for m in thread.messages for c in m.tool_calls]
    answered = [m.tool_call_id for m in thread.messages if m.role == "tool"]
    assert calls == answered == ["call_0", "call_1"]
    rt.close()


async def test_a_childs_steps_count_against_its_parents_budget(
    registry: tl.Registry, store_dir: Any, server: ScriptedServer
) -> None:
    remote_prompt(registry, server)
    tl.define_agent("adder", side_a="p", registry=registry)
    create = ("call_c", "subagent_create",
              arguments({"agent": "adder", "name": "a1", "message": "add"}))  # fmt: skip
    tl.define_prompt("lead", prompt="Lead.", model="remote", registry=registry)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("adder")]),
                    registry=registry)  # fmt: skip
    server.reply(reply(*chat_chunks(calls=[create], usage=(1000, 100, 0))))  # the boss: 1,100
    server.reply(reply(*chat_chunks(calls=[ADD], usage=(1000, 100, 0))))  # the child: 2,200
    server.reply(reply(*chat_chunks("child done", usage=(1000, 100, 0))))  # never asked
    rt = tl.Runtime(registry, store_dir, secret_key="k", budget=tl.Budget(max_tokens=2000))
    boss = await rt.create_thread("boss", secrets={"OPENAI_API_KEY": KEY})
    run = await boss.send("go")
    (child,) = boss.children
    child_run = [e for e in child.events if isinstance(e, tl.RunFinishedEvent)][-1]
    assert (child_run.status, child_run.error) == (
        "stopped",
        "the run reached its budget of 2,000 tokens (2,200 used)",
    )
    assert run.status == "stopped"  # the parent may not take another step either
    assert len(server.requests) == 2


OUTPUT_LIMIT = {
    "openai": "max_completion_tokens",
    "openai-responses": "max_output_tokens",
    "anthropic": "max_tokens",
}


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_token_budget_caps_each_steps_output_at_what_is_left(
    registry: tl.Registry, store_dir: Any, server: ScriptedServer, provider: str
) -> None:
    """A step can no longer write a million tokens past a budget checked only before it:
    each request asks for at most what the budget has left, in the field its API names."""
    remote_prompt(registry, server, provider)
    rt = tl.Runtime(registry, store_dir, secret_key="k", budget=tl.Budget(max_tokens=1000))
    add = ("call_1", "add", arguments({"a": 1, "b": 2}))
    server.reply(Reply(frames=provider_frames(provider, calls=[add], usage=(300, 100, 0))))
    server.reply(Reply(frames=provider_frames(provider, "done", usage=(400, 50, 0))))
    thread = await new_thread(rt, provider)
    assert (await thread.send("add")).status == "completed"
    field = OUTPUT_LIMIT[provider]
    assert [r.body.get(field) for r in server.requests] == [1000, 600]
    rt.close()


async def test_the_models_own_output_limit_is_lowered_not_doubled(
    registry: tl.Registry, store_dir: Any, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, "openai", max_tokens=50_000)  # a compatible server's name
    rt = tl.Runtime(registry, store_dir, secret_key="k", budget=tl.Budget(max_tokens=1000))
    server.reply(reply(*chat_chunks("done", usage=(10, 10, 0))))
    thread = await new_thread(rt)
    await thread.send("hi")
    (sent,) = server.requests
    assert (sent.body.get("max_tokens"), "max_completion_tokens" in sent.body) == (1000, False)
    rt.close()


async def test_a_gateway_with_a_declared_provider_is_priced_by_it(
    registry: tl.Registry, store_dir: Any, server: ScriptedServer
) -> None:
    """An OpenAI model behind a local gateway: the URL names no provider, the declared one
    does, and a cost budget runs on that price instead of stopping at "unknown"."""
    tl.define_model("remote", provider="openai", model="gpt-4o", base_url=f"{server.url}/v1",
                    options={"max_retries": 0}, registry=registry)  # fmt: skip
    tl.define_prompt("p", prompt="x", model="remote", registry=registry)
    rt = tl.Runtime(registry, store_dir, secret_key="k", budget=tl.Budget(max_cost_usd=1.0))
    server.reply(reply(*chat_chunks("hello", usage=(1000, 100, 0))))
    thread = await new_thread(rt)
    run = await thread.send("hi")
    assert run.status == "completed"
    expected = priced("gpt-4o", "openai", input_tokens=1000, output_tokens=100)
    assert expected > 0
    assert run.cost_usd == pytest.approx(expected)
    rt.close()


@pytest.mark.parametrize(
    ("limits", "error"),
    [
        ({"max_tokens": 0}, "max_tokens must be positive, got 0"),
        ({"max_tokens": -5}, "max_tokens must be positive, got -5"),
        ({"max_cost_usd": -0.5}, "max_cost_usd must be positive, got -0.5"),
        ({"max_cost_usd": "1"}, "max_cost_usd must be positive, got '1'"),
        ({"max_tokens": True}, "max_tokens must be positive, got True"),
    ],
)
def test_a_budget_with_limits_that_are_not_positive_is_refused(
    limits: dict[str, Any], error: str
) -> None:
    with pytest.raises(tl.ThreadlabError, match=error):
        tl.Budget(**limits)


def test_a_runtime_budget_must_be_a_budget(registry: tl.Registry, store_dir: Any) -> None:
    with pytest.raises(TypeError, match=r"budget must be a tl\.Budget"):
        tl.Runtime(registry, store_dir, budget={"max_tokens": 5})  # type: ignore[arg-type]
