"""Events reach `Thread.stream` consumers while the model is still streaming, even when the
model never suspends (a scripted model, a fast local server): before, a 1 MB argument
delivered all its events in one burst after the stream ended."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import threadlab as tl
from threadlab.models import FinishChunk, ModelChunk, ModelRequest, TextChunk, ToolCallChunk


class Eager:
    """A model that yields its whole answer without ever awaiting anything."""

    name = "eager"

    def __init__(self, content_size: int, chunk: int = 16) -> None:
        raw = json.dumps({"content": "x" * content_size})
        self.pieces = [raw[i : i + chunk] for i in range(0, len(raw), chunk)]
        self.produced = 0
        self.calls = 0

    async def stream(self, request: ModelRequest) -> AsyncIterator[ModelChunk]:
        self.calls += 1
        if self.calls > 1:
            yield TextChunk("done")
            yield FinishChunk()
            return
        yield ToolCallChunk(0, id="call_big", name="keep")
        for piece in self.pieces:
            self.produced += 1
            yield ToolCallChunk(0, arguments=piece)
        yield FinishChunk()


async def test_events_arrive_while_a_model_that_never_suspends_is_streaming(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool(
        "keep",
        description="Keep content.",
        args={"type": "object", "properties": {"content": {"type": "string"}}},
        execute=lambda s, a: f"kept {len(a['content'])}",
        registry=registry,
    )
    model = Eager(1_000_000)
    tl.define_prompt("p", prompt="t", model=model, tools=["keep"], registry=registry)
    thread = await rt.create_thread("p")

    produced_at_first_delta = None
    deltas = 0
    async for event in thread.stream("go"):
        if event.type == "tool_call_delta":
            deltas += 1
            if produced_at_first_delta is None:
                produced_at_first_delta = model.produced
    total = len(model.pieces)
    assert deltas >= total
    assert produced_at_first_delta is not None
    # The consumer saw the stream begin long before the model had produced it all.
    assert produced_at_first_delta < total / 2
    assert [m.content for m in thread.messages if m.role == "tool"] == ["kept 1000000"]
