"""Token usage in the inspector: per step on each assistant message, summed for the run, in
the live state, the static HTML and the text summary."""

from __future__ import annotations

from collections.abc import AsyncIterator

import threadlab as tl
from threadlab.models import FinishChunk, ModelChunk, ModelRequest, TextChunk, ToolCallChunk
from threadlab.widgets import replay, static_html
from threadlab.widgets._static import static_text


class Counting:
    """A model that reports usage, as providers do: a tool call, then an answer."""

    name = "counting"

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        if not any(m.role == "tool" for m in request.messages):
            yield ToolCallChunk(0, id="call_1", name="ping", arguments="{}")
            yield FinishChunk(usage={"input_tokens": 100, "output_tokens": 20})
        else:
            yield TextChunk("pong it is")
            yield FinishChunk(usage={"input_tokens": 130, "output_tokens": 5, "cached_tokens": 90})


async def test_usage_per_step_and_per_run(rt: tl.Runtime, registry: tl.Registry) -> None:
    tl.define_tool("ping", description="Ping.", execute=lambda s, a: "pong", registry=registry)
    tl.define_prompt("p", prompt="t", model=Counting(), tools=["ping"], registry=registry)
    thread = await rt.create_thread("p")
    run = await thread.send("ping please")
    assert run.usage == {"input_tokens": 230, "output_tokens": 25, "cached_tokens": 90}

    state = replay(thread)
    steps = [m["usage"] for m in state.messages[thread.id] if m["role"] == "assistant"]
    assert steps == [
        {"input_tokens": 100, "output_tokens": 20},
        {"input_tokens": 130, "output_tokens": 5, "cached_tokens": 90},
    ]
    assert state.run["usage"] == run.usage
    page = static_html(thread)
    assert "· 100 in / 20 out tokens" in page  # the tools-only step
    assert "· 130 in / 5 out / 90 cached tokens" in page
    assert "run completed · 230 in / 25 out / 90 cached tokens" in page
    assert "run completed · 230 in / 25 out / 90 cached tokens" in static_text(thread)


class Priced(Counting):
    """The same steps, said to come from a provider's API: priced from the tables."""

    class endpoint:
        base_url = None

    def __init__(self, model: str) -> None:
        self.name = model
        self.model = model
        self.provider = "openai"


def price(**usage: int) -> float:
    return tl.models.step_cost(Priced("gpt-4o"), usage) or 0.0


async def test_costs_per_step_per_run_and_rolled_up_per_subagent(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("ping", description="Ping.", execute=lambda s, a: "pong", registry=registry)
    tl.define_prompt("p", prompt="t", model=Priced("gpt-4o"), tools=["ping"], registry=registry)
    tl.define_agent("pinger", side_a="p", registry=registry)
    lead_steps = [
        tl.models.call("subagent_create", {"agent": "pinger", "name": "c", "message": "ping"}),
        tl.models.text("all pinged"),
    ]
    tl.define_prompt("lead", prompt="Lead.", model=tl.models.ScriptedModel(lead_steps),
                     registry=registry)  # fmt: skip
    subagents = [tl.Subagent("pinger")]
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=subagents), registry=registry)
    thread = await rt.create_thread("boss")
    run = await thread.send("go")
    (child,) = thread.children
    first = price(input_tokens=100, output_tokens=20)
    second = price(input_tokens=130, output_tokens=5, cached_tokens=90)
    assert [m.cost_usd for m in child.messages if m.role == "assistant"] == [first, second]
    assert run.cost_usd == first + second  # the lead's own steps cost nothing here
    state = replay(thread)
    assert state.threads[child.id]["cost_usd"] == first + second
    assert state.threads[thread.id]["cost_usd"] == first + second  # rolled up
    page = static_html(thread)
    assert f"· ${first:.4f}" in page  # a step
    assert f"[completed · ${first + second:.4f}]" in page  # the subagent's total
    assert f"· ${first + second:.4f}" in static_text(thread)  # the run's


async def test_an_unknown_price_reads_as_unknown_up_the_tree(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("ping", description="Ping.", execute=lambda s, a: "pong", registry=registry)
    tl.define_prompt("p", prompt="t", model=Priced("no-such-model"), tools=["ping"],
                     registry=registry)  # fmt: skip
    thread = await rt.create_thread("p")
    run = await thread.send("ping please")
    assert run.cost_usd is None
    state = replay(thread)
    assert state.run["cost_usd"] is None
    assert "cost unknown" in static_html(thread)
