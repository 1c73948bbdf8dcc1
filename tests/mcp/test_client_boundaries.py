"""What a server threadlab uses cannot make it spend or store without bound: sampling
requests made at once share the run's token budget by reservation (on the 2025 protocols, as
requests in flight mid-call; on the 2026 one, as one round of input requests), a flood of log
messages is stored coalesced, the last kept with a count of those left out, and a structured
result over the size limit is not stored. The server: the tests' own, over stdio."""

from __future__ import annotations

import asyncio
import functools
import json
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import mcp
import pytest

import threadlab as tl
from threadlab.mcp_client._results import MAX_RESULT_CHARS
from threadlab.models import FinishChunk, ModelRequest, ScriptedModel, TextChunk, call, text

pytestmark = pytest.mark.processes  # it starts an MCP server in its own process

SERVER = [sys.executable, str(Path(__file__).resolve().parent / "sampling_server.py")]


@pytest.fixture(params=["legacy", "auto"])
def protocol(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """threadlab's client speaking the 2025 protocols ("legacy") or the newest both know."""
    if request.param == "legacy":
        monkeypatch.setattr(mcp, "Client", functools.partial(mcp.Client, mode="legacy"))
    return str(request.param)


class Greedy:
    """A model that takes its time and spends every output token it is allowed."""

    name = "greedy"

    def __init__(self) -> None:
        self.limits: list[int | None] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        self.limits.append(request.max_output_tokens)
        await asyncio.sleep(0.2)  # the others arrive meanwhile
        yield TextChunk("an answer")
        said = sum(len((m.content or "").split()) for m in request.messages)
        yield FinishChunk(usage={"input_tokens": said, "output_tokens":
                                 request.max_output_tokens or 500})  # fmt: skip


def calling(registry: tl.Registry, tool: str, arguments: dict[str, Any], **server: Any) -> None:
    command, *args = SERVER
    tl.define_mcp_server("s", command=command, args=args, registry=registry, **server)
    model = ScriptedModel([call(tool, arguments), text("done")])
    tl.define_prompt("p", prompt="x", model=model, tools=["mcp:s"], registry=registry)


def custom(thread: tl.Thread, kind: str) -> list[tl.CustomEvent]:
    return [e for e in thread.events if isinstance(e, tl.CustomEvent) and e.event_type == kind]


async def test_sampling_requests_made_at_once_never_spend_past_the_budget(
    registry: tl.Registry, store_dir: Path, protocol: str
) -> None:
    """12 requests of up to 500 tokens at once under a budget of 1,000: each is given what
    the budget has left once the others in flight hold theirs; the rest are refused."""
    greedy = Greedy()
    tool = "burst" if protocol == "legacy" else "burst_round"
    calling(registry, tool, {}, sampling_model=greedy)
    rt = tl.Runtime(registry, store_dir, budget=tl.Budget(max_tokens=1000))
    try:
        thread = await rt.create_thread("p")
        run = await thread.send("go")
        spent = [e.data["usage"] for e in custom(thread, "sampling") if "usage" in e.data]
        total = sum(u["input_tokens"] + u["output_tokens"] for u in spent)
        assert total <= 1000
        assert sum(n or 0 for n in greedy.limits) <= 1000  # what was handed out, all told
        assert 1 <= len(greedy.limits) < 12
        (answer,) = [m.content or "" for m in thread.messages if m.role == "tool"]
        assert "sampling refused: the run's budget of 1,000 tokens has" in answer
        assert "held by requests in flight" in answer
        assert run.usage is None or sum(run.usage.values()) == total
    finally:
        await rt.aclose()


async def test_a_flood_of_log_messages_is_stored_coalesced_with_a_count_of_those_left_out(
    registry: tl.Registry, store_dir: Path, protocol: str
) -> None:
    """20,000 log messages in one call: each is heard live; the store keeps a few a second
    of each level and the last, with how many it left out."""
    calling(registry, "babble", {"count": 20_000})
    rt = tl.Runtime(registry, store_dir)
    try:
        thread = await rt.create_thread("p")
        started = time.monotonic()
        heard = [e async for e in thread.stream("go") if isinstance(e, tl.CustomEvent)]
        took = time.monotonic() - started
        live = [e for e in heard if e.event_type == "log"]
        assert len(live) >= 20_001  # every one, live (the stored ones are heard once more)
        stored = custom(thread, "log")
        assert len(stored) <= 2 * (4 * took + 2)  # two levels: four a second each, and the last
        last_info = [e.data for e in stored if e.data["level"] == "info"][-1]
        assert last_info["message"].startswith("line 20000 ")
        kept = sum(1 for e in stored if e.data["level"] == "info")
        assert kept + sum(e.data.get("dropped", 0) for e in stored) == 20_000
        warnings = [e.data for e in stored if e.data["level"] == "warning"]
        assert warnings == [{"level": "warning", "message": "the last line"}]  # not lost
    finally:
        await rt.aclose()


async def test_a_structured_result_over_the_limit_is_not_stored(
    registry: tl.Registry, store_dir: Path
) -> None:
    """A 40 MB structured result: the model reads the text beside it, and why the rest was
    left out; the store does not hold 40 MB."""
    calling(registry, "huge", {"megabytes": 40})
    rt = tl.Runtime(registry, store_dir)
    try:
        thread = await rt.create_thread("p")
        assert (await thread.send("go")).status == "completed"
        (result,) = [m for m in thread.messages if m.role == "tool"]
        assert result.tool_status == "success"
        said = result.content or ""
        assert len(said) < MAX_RESULT_CHARS
        assert said.startswith("a big table")
        assert f"over the limit of {MAX_RESULT_CHARS:,} characters" in said
        stored = sum(p.stat().st_size for p in store_dir.rglob("*") if p.is_file())
        assert stored < 10 << 20
    finally:
        await rt.aclose()


async def test_a_result_within_the_limit_keeps_its_structured_content(
    registry: tl.Registry, store_dir: Path
) -> None:
    calling(registry, "huge", {"megabytes": 0})
    rt = tl.Runtime(registry, store_dir)
    try:
        thread = await rt.create_thread("p")
        await thread.send("go")
        (result,) = [m for m in thread.messages if m.role == "tool"]
        assert json.loads(result.content or "") == {"rows": []}
    finally:
        await rt.aclose()
