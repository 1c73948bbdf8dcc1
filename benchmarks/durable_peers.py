"""Per tool call beside the peers that also persist every step: LangGraph with its SQLite
checkpointer and the OpenAI Agents SDK with its `SQLiteSession`, on the same workload — runs
of 10 calls of a no-op tool taking one integer argument, then a text answer, each run a new
conversation (a thread, a LangGraph thread id, a session id) in one SQLite file — with the
same file settings on every side (WAL, `synchronous=NORMAL`). threadlab's model streams each
call's arguments in 8-character chunks; the peers' models hand each call over whole (neither
persists a stream). Time per call and the file's bytes per call (database and WAL, after a
checkpoint), the three sides alternating, best of `repeats`."""

from __future__ import annotations

import asyncio
import sqlite3
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .overhead import threadlab_runs

ARGUMENTS = {"n": 12345}


@dataclass(frozen=True)
class PeerCost:
    side: str
    calls: int
    seconds: float
    bytes: int

    @property
    def ms_per_call(self) -> float:
        return self.seconds * 1000 / self.calls

    @property
    def bytes_per_call(self) -> float:
        return self.bytes / self.calls


def _folded_size(database: Path) -> int:
    """The database file's size once its WAL is folded in (what the conversation keeps)."""
    with sqlite3.connect(database) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return sum(p.stat().st_size for p in database.parent.glob(database.name + "*"))


async def threadlab_side(runs: int, calls: int) -> PeerCost:
    with tempfile.TemporaryDirectory() as folder:
        seconds = await threadlab_runs(runs, calls, realistic=True, store=folder)
        size = _folded_size(Path(folder) / "threads.sqlite3")
    return PeerCost("threadlab", runs * calls, seconds, size)


def langgraph_side(runs: int, calls: int) -> PeerCost:
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.graph import START, MessagesState, StateGraph
    from langgraph.prebuilt import ToolNode, tools_condition

    executed = [0]

    @tool
    def noop(n: int) -> str:
        """Do nothing."""
        executed[0] += 1
        return "ok"

    def model(state: MessagesState) -> dict[str, Any]:
        done = sum(1 for m in state["messages"] if m.type == "tool")
        if done >= calls:
            return {"messages": [AIMessage("done")]}
        call = {"name": "noop", "args": dict(ARGUMENTS), "id": f"call_{done}"}
        return {"messages": [AIMessage("", tool_calls=[call])]}

    graph = StateGraph(MessagesState)
    graph.add_node("model", model)
    graph.add_node("tools", ToolNode([noop]))
    graph.add_edge(START, "model")
    graph.add_conditional_edges("model", tools_condition)
    graph.add_edge("tools", "model")
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "langgraph.sqlite3"
        connection = sqlite3.connect(database, check_same_thread=False)
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=NORMAL")
        app = graph.compile(checkpointer=SqliteSaver(connection))
        started = time.perf_counter()
        for run in range(runs):
            config: Any = {"configurable": {"thread_id": f"run-{run}"},
                           "recursion_limit": 4 * calls}  # fmt: skip
            started_with: Any = {"messages": [("user", "go")]}
            final = app.invoke(started_with, config)
            assert final["messages"][-1].content == "done"
        seconds = time.perf_counter() - started
        connection.close()
        size = _folded_size(database)
    assert executed[0] == runs * calls
    return PeerCost("LangGraph + SqliteSaver", runs * calls, seconds, size)


async def agents_sdk_side(runs: int, calls: int) -> PeerCost:
    from agents import Agent, Runner, function_tool, set_tracing_disabled
    from agents.items import ModelResponse
    from agents.memory import SQLiteSession
    from agents.models.interface import Model
    from agents.usage import Usage
    from openai.types.responses import (
        ResponseFunctionToolCall,
        ResponseOutputMessage,
        ResponseOutputText,
    )

    set_tracing_disabled(True)  # no trace export: the other sides send none either
    executed = [0]

    @function_tool
    def noop(n: int) -> str:
        """Do nothing."""
        executed[0] += 1
        return "ok"

    class Scripted(Model):
        async def get_response(self, system_instructions: Any, input: Any, *args: Any,
                               **kwargs: Any) -> ModelResponse:  # fmt: skip
            done = sum(1 for i in input if isinstance(i, dict)
                       and i.get("type") == "function_call_output")  # fmt: skip
            output: Any
            if done >= calls:
                text = ResponseOutputText(type="output_text", text="done", annotations=[])
                output = ResponseOutputMessage(id=f"msg_{done}", type="message", role="assistant",
                                               status="completed", content=[text])  # fmt: skip
            else:
                output = ResponseFunctionToolCall(
                    type="function_call", id=f"fc_{done}", call_id=f"call_{done}", name="noop",
                    arguments='{"n": 12345}', status="completed",
                )  # fmt: skip
            return ModelResponse(output=[output], usage=Usage(), response_id=None)

        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise NotImplementedError("the benchmark runs the model whole")

    class Session(SQLiteSession):
        """The SDK's session with the file settings the other sides use."""

        def _get_connection(self) -> sqlite3.Connection:
            connection = super()._get_connection()
            connection.execute("PRAGMA synchronous=NORMAL")
            return connection

    agent = Agent(name="bench", instructions="Benchmark.", tools=[noop], model=Scripted())
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "agents.sqlite3"
        started = time.perf_counter()
        for run in range(runs):
            session = Session(f"run-{run}", database)
            result = await Runner.run(agent, "go", session=session, max_turns=calls + 5)
            assert result.final_output == "done"
            session.close()
        seconds = time.perf_counter() - started
        size = _folded_size(database)
    assert executed[0] == runs * calls
    return PeerCost("OpenAI Agents SDK + SQLiteSession", runs * calls, seconds, size)


async def measure(runs: int = 20, calls: int = 10, repeats: int = 3) -> list[PeerCost]:
    """Best time of `repeats` per side, the sides alternating, after a warm-up run each."""
    await threadlab_side(1, 2)
    langgraph_side(1, 2)
    await agents_sdk_side(1, 2)
    best: dict[str, PeerCost] = {}
    for _ in range(repeats):
        for cost in (await threadlab_side(runs, calls), langgraph_side(runs, calls),
                     await agents_sdk_side(runs, calls)):  # fmt: skip
            if cost.side not in best or cost.seconds < best[cost.side].seconds:
                best[cost.side] = cost
    return list(best.values())


def report(costs: list[PeerCost]) -> str:
    ours = next(c for c in costs if c.side == "threadlab")
    faster_peer = min((c for c in costs if c is not ours), key=lambda c: c.ms_per_call)
    lines = [
        "| side | ms per call | bytes per call | time ratio (threadlab / side) |",
        "|---|---|---|---|",
    ]
    for c in costs:
        lines.append(f"| {c.side} | {c.ms_per_call:.3f} | {c.bytes_per_call:,.0f} |"
                     f" {ours.ms_per_call / c.ms_per_call:.3f} |")  # fmt: skip
    lines.append("")
    lines.append(f"threadlab per call: {ours.ms_per_call / faster_peer.ms_per_call:.3f}x the"
                 f" faster durable peer ({faster_peer.side}); target 0.05x")  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(asyncio.run(measure())))
