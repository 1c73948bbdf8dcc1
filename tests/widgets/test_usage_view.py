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
    page = static_html(state)
    assert "· 100 in / 20 out tokens" in page  # the tools-only step
    assert "· 130 in / 5 out / 90 cached tokens" in page
    assert "run completed · 230 in / 25 out / 90 cached tokens" in page
    assert "run completed · 230 in / 25 out / 90 cached tokens" in static_text(state)
