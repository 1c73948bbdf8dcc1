"""What threadlab adds on top of a provider's SDK stream: a 10,000-chunk Chat Completions response
(text, then a `write_file` call whose arguments stream in small chunks), served by the loopback
test server and read through the official `openai` SDK — once by a bare loop over the SDK's
stream, once by a whole threadlab run (events, redaction, the argument scanner, persisting the
messages, running the tool, the second model request). Both sides read the same bytes from the
same server: the answer, then the short final answer after the tool."""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import openai
from tests.providers._protocols import chat_chunks, chat_frames
from tests.providers._server import Reply, ScriptedServer

import threadlab as tl

KEY = "sk-bench-0123456789abcdef"


@dataclass(frozen=True)
class Streaming:
    chunks: int
    ours_s: float
    bare_s: float

    @property
    def ratio(self) -> float:
        return self.ours_s / self.bare_s


def _responses(chunks: int) -> tuple[bytes, bytes]:
    # A fifth of the chunks text, the rest one call's argument text, 8 characters a chunk.
    text_chunks = chunks // 5
    content = "x" * (8 * (chunks - text_chunks) - 40)
    arguments = json.dumps({"path": "/index.html", "content": content})
    first = chat_chunks("word " * (text_chunks * 8 // 5), [("call_1", "write_file", arguments)])
    second = chat_chunks("Written.")
    return b"".join(chat_frames(first)), b"".join(chat_frames(second))


async def _bare(server: ScriptedServer, bodies: tuple[bytes, bytes]) -> float:
    client = openai.AsyncOpenAI(api_key=KEY, base_url=f"{server.url}/v1", max_retries=0)
    started = time.perf_counter()
    for body in bodies:
        server.reply(Reply(raw=body))
        stream = await client.chat.completions.create(
            model="bench", messages=[{"role": "user", "content": "go"}], stream=True
        )
        async for chunk in stream:
            for choice in chunk.choices:
                _ = choice.delta.content, choice.delta.tool_calls
    elapsed = time.perf_counter() - started
    await client.close()
    return elapsed


async def _ours(rt: tl.Runtime, server: ScriptedServer, bodies: tuple[bytes, bytes]) -> float:
    for body in bodies:
        server.reply(Reply(raw=body))
    thread = await rt.create_thread("p", secrets={"OPENAI_API_KEY": KEY})
    started = time.perf_counter()
    run = await thread.send("go")
    elapsed = time.perf_counter() - started
    assert run.status == "completed", run.error
    return elapsed


def _define(registry: tl.Registry, server: ScriptedServer) -> None:
    tl.define_model(
        "bench",
        provider="openai",
        model="bench",
        base_url=f"{server.url}/v1",
        options={"max_retries": 0},
        registry=registry,
    )

    async def write_file(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.write_file(args["path"], args["content"])
        return "written"

    tl.define_tool(
        "write_file",
        description="Write a file.",
        args={
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
        },
        execute=write_file,
        progress_argument="path",
        registry=registry,
    )
    tl.define_prompt("p", prompt="Write.", model="bench", tools=["write_file"], registry=registry)


Side = Callable[[tl.Runtime, ScriptedServer], Awaitable[float]]


async def _alternating(repeats: int, ours: Side, bare: Side) -> tuple[float, float]:
    """Medians of `repeats` alternating runs of each side (bare first), after one warm-up
    each, on one loopback server and a fresh store."""
    server = ScriptedServer().start()
    registry = tl.Registry()
    _define(registry, server)
    ours_s: list[float] = []
    bare_s: list[float] = []
    with tempfile.TemporaryDirectory() as directory:
        rt = tl.Runtime(registry, Path(directory), secret_key="bench")
        try:
            await bare(rt, server)
            await ours(rt, server)
            for _ in range(repeats):
                bare_s.append(await bare(rt, server))
                ours_s.append(await ours(rt, server))
        finally:
            rt.close()
            server.stop()
    return statistics.median(ours_s), statistics.median(bare_s)


async def measure(chunks: int = 10_000, repeats: int = 5) -> Streaming:
    """Median of `repeats` alternating runs per side, after one warm-up each."""
    bodies = _responses(chunks)
    ours, bare = await _alternating(
        repeats,
        lambda rt, server: _ours(rt, server, bodies),
        lambda rt, server: _bare(server, bodies),
    )
    return Streaming(chunks, ours, bare)


LONG_KEY = "sk-ant-api03-" + "Ab9_" * 23 + "xyz"
"""108 characters, as long as an Anthropic key: the longest secret a live stream knows."""


@dataclass(frozen=True)
class FirstDelta:
    ours_ms: float
    bare_ms: float

    @property
    def added_ms(self) -> float:
        return self.ours_ms - self.bare_ms


def _short_answer(server: ScriptedServer) -> int:
    """Script a short answer whose 4-character words leave the server 20 ms apart; the index
    in `server.frame_times` its first word will have (the first frame only opens the
    message)."""
    server.reply(Reply(frames=chat_frames(chat_chunks("Hi! " * 12, size=4)), pace=0.02))
    return len(server.frame_times) + 1


async def _bare_first(server: ScriptedServer) -> float:
    client = openai.AsyncOpenAI(api_key=LONG_KEY, base_url=f"{server.url}/v1", max_retries=0)
    first = _short_answer(server)
    stream = await client.chat.completions.create(
        model="bench", messages=[{"role": "user", "content": "go"}], stream=True
    )
    got = None
    async for chunk in stream:
        if got is None and any(c.delta.content for c in chunk.choices):
            got = time.perf_counter()
    await client.close()
    assert got is not None
    return (got - server.frame_times[first]) * 1000


async def _ours_first(rt: tl.Runtime, server: ScriptedServer) -> float:
    thread = await rt.create_thread("p", secrets={"OPENAI_API_KEY": LONG_KEY})
    first = _short_answer(server)
    got = None
    async for event in thread.stream("go"):
        if got is None and event.type == "text_delta":
            got = time.perf_counter()
    assert got is not None
    return (got - server.frame_times[first]) * 1000


async def first_delta(repeats: int = 15) -> FirstDelta:
    """Median time from the server flushing an answer's first word to its arrival: as a
    threadlab text delta (a 108-character key registered as a secret) and as the bare SDK's
    chunk, alternating, after one warm-up each."""
    ours, bare = await _alternating(repeats, _ours_first, lambda rt, server: _bare_first(server))
    return FirstDelta(ours, bare)


def report_first_delta(result: FirstDelta) -> str:
    return "\n".join(
        [
            "| threadlab text delta (ms) | bare SDK chunk (ms) | added (ms) |",
            "|---|---|---|",
            f"| {result.ours_ms:.2f} | {result.bare_ms:.2f} | {result.added_ms:.2f} |",
        ]
    )


def report(result: Streaming) -> str:
    return "\n".join(
        [
            "| chunks | threadlab run (s) | bare SDK iteration (s) | ratio (ours/bare) |",
            "|---|---|---|---|",
            f"| {result.chunks:,} | {result.ours_s:.3f} | {result.bare_s:.3f} |"
            f" {result.ratio:.2f} |",
        ]
    )


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
    print()
    print(report_first_delta(asyncio.run(first_delta())))
