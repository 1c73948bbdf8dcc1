"""Widget traffic of a long run: 5,000 text deltas and 200 tool calls streamed into one live
view. Counts the messages the view's comm sends (state updates and live patches), the most sent
in any one second against the configured cap (ThreadlabMagics.update_rate), and the bytes they
carry — with live patches, and with a whole trace at every update (how views updated before),
on the same run."""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from dataclasses import dataclass
from typing import Any

import comm
from comm.base_comm import BaseComm

import threadlab as tl
from threadlab.widgets import LiveRun


class _CountingComm(BaseComm):
    times: list[float] = []  # noqa: RUF012 - one shared log per benchmark run
    bytes: list[int] = []  # noqa: RUF012

    def publish_msg(self, msg_type: str, data: Any = None, *args: Any, **keys: Any) -> None:
        if msg_type != "comm_msg" or not isinstance(data, dict):
            return
        if data.get("method") in ("update", "custom"):
            _CountingComm.times.append(time.monotonic())
            _CountingComm.bytes.append(len(json.dumps(data, default=str)))


@dataclass(frozen=True)
class Traffic:
    events: int
    text_deltas: int
    tool_calls: int
    updates: int
    seconds: float
    max_per_second: int
    cap: float
    sent_bytes: int


async def measure(
    rate: float = 15.0,
    calls: int = 200,
    words: int = 25,
    patches: bool = True,
    step_seconds: float = 0.005,
) -> Traffic:
    registry = tl.Registry()
    tl.define_tool("noop", description="x", execute=lambda s, a: "ok", registry=registry)

    async def decide(messages: Any, tools: Any) -> Any:
        await asyncio.sleep(step_seconds)  # a model that takes its time, like a real one
        done = sum(1 for m in messages if m.role == "tool")
        if done < calls:
            return tl.models.step(tl.models.call("noop"), text="w" * words)
        return tl.models.text("w" * words)

    tl.define_prompt(
        "p",
        prompt="x",
        tools=["noop"],
        registry=registry,
        model=tl.models.FunctionModel(decide, chunk_size=1),
    )
    original = comm.create_comm
    comm.create_comm = lambda **kw: _CountingComm(**kw)
    _CountingComm.times = []
    _CountingComm.bytes = []
    try:
        with tempfile.TemporaryDirectory() as directory:
            rt = tl.Runtime(registry, directory, secret_key="bench", max_steps=calls + 5)
            thread = await rt.create_thread("p")
            live = LiveRun(rt, thread, rate)
            live.view.patches = patches
            started = time.monotonic()
            await live.run("go")
            seconds = time.monotonic() - started
            seen = live.seen  # deltas are live only: count what the view saw
            rt.close()
    finally:
        comm.create_comm = original
    times = _CountingComm.times
    busiest = max((sum(1 for t in times if s <= t < s + 1.0) for s in times), default=0)
    return Traffic(
        events=seen.total(),
        text_deltas=seen["text_delta"],
        tool_calls=seen["tool_call_finished"],
        updates=len(times),
        seconds=seconds,
        max_per_second=busiest,
        cap=rate,
        sent_bytes=sum(_CountingComm.bytes),
    )


def report(t: Traffic, whole: Traffic | None = None) -> str:
    rows = [
        "| updates | events | text deltas | tool calls | run (s) | messages sent | most in 1 s"
        " | cap/s | bytes sent | bytes/s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, traffic in (("live patches", t), ("whole trace each time", whole)):
        if traffic is not None:
            rows.append(
                f"| {name} | {traffic.events} | {traffic.text_deltas} | {traffic.tool_calls} |"
                f" {traffic.seconds:.1f} | {traffic.updates} | {traffic.max_per_second} |"
                f" {traffic.cap:g} | {traffic.sent_bytes:,} |"
                f" {traffic.sent_bytes / traffic.seconds:,.0f} |"
            )
    if whole is not None:
        rows.append(f"\nbytes, whole traces / patches: {whole.sent_bytes / t.sent_bytes:.1f}x")
    return "\n".join(rows)


async def compare(step_seconds: float = 0.005) -> str:
    """Both ways on the same workload, patches first."""
    return report(
        await measure(patches=True, step_seconds=step_seconds),
        await measure(patches=False, step_seconds=step_seconds),
    )


async def main() -> str:
    fast = await compare()
    paced = await compare(step_seconds=0.05)
    return f"model step 5 ms:\n\n{fast}\n\nmodel step 50 ms:\n\n{paced}"


if __name__ == "__main__":
    print(asyncio.run(main()))
