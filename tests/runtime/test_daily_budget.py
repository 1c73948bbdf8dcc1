"""A member's daily budget (`tl.Budget(max_tokens_per_day=)`, or a class store's
`--tokens-per-day`): what a member's model steps spend in a day is kept by the store, every
process together, and a run whose member reached it stops before its next model step, naming
the budget."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import text
from threadlab.store import init_class

from ..store.test_class import as_role, roles

SPENDS = '''
import threadlab as tl
from threadlab.models import ScriptedModel, text


class Spends(ScriptedModel):
    """Answers as scripted, and says it used 60 tokens a step."""

    async def stream(self, request):  # type: ignore[no-untyped-def]
        async for chunk in super().stream(request):
            if not isinstance(chunk, tl.models.FinishChunk):
                yield chunk
        yield tl.models.FinishChunk(usage={"input_tokens": 50, "output_tokens": 10})
'''
namespace: dict[str, Any] = {}
exec(SPENDS, namespace)
Spends = namespace["Spends"]


def chatty(registry: tl.Registry) -> None:
    tl.define_prompt("p", prompt="x", model=Spends([text("hi")] * 20), registry=registry)


@pytest.mark.processes  # a second process on the store
async def test_a_members_day_is_counted_across_processes(
    registry: tl.Registry, tmp_path: Path
) -> None:
    store = tmp_path / "store"
    other = tmp_path / "other_process.py"
    other.write_text(
        SPENDS
        + textwrap.dedent(f"""
        import asyncio
        tl.define_prompt("p", prompt="x", model=Spends([text("hi")] * 20))

        async def main() -> None:
            rt = tl.Runtime(store={str(store)!r}, user="ann",
                            budget=tl.Budget(max_tokens_per_day=150))
            thread = await rt.create_thread("p")
            for _ in range(2):
                print((await thread.send("hi")).status)
            rt.close()

        asyncio.run(main())
    """)
    )
    ran = subprocess.run([sys.executable, str(other)], capture_output=True, text=True,
                         timeout=120)  # fmt: skip
    assert ran.stdout.split() == ["completed", "completed"], ran.stderr  # 120 tokens today

    chatty(registry)
    budget = tl.Budget(max_tokens_per_day=150)
    rt = tl.Runtime(registry, store, user="ann", budget=budget)
    thread = await rt.create_thread("p")
    assert (await thread.send("hi")).status == "completed"  # 120 < 150: one more step
    stopped = await thread.send("hi")
    assert (stopped.status, stopped.stop_reason) == ("stopped", "stopped: budget")
    assert stopped.error == "ann reached the daily budget of 150 tokens (180 used today, UTC)"
    bob = tl.Runtime(registry, store, user="bob", budget=budget)
    assert (await (await bob.create_thread("p")).send("hi")).status == "completed"  # his own
    for each in (rt, bob):
        each.close()


@pytest.mark.processes  # a PostgreSQL server
async def test_a_class_allowance_holds_for_every_student_and_cannot_be_undone(
    postgres_url: str, registry: tl.Registry
) -> None:
    import psycopg

    teacher, ann, _ = roles(postgres_url)
    init_class(postgres_url, instructor=teacher, students=[ann], tokens_per_day=100)
    chatty(registry)
    rt = tl.Runtime(registry, as_role(postgres_url, ann))  # no budget of its own
    thread = await rt.create_thread("p")
    assert (await thread.send("hi")).status == "completed"
    assert (await thread.send("hi")).status == "completed"  # 60 < 100
    stopped = await thread.send("hi")
    assert stopped.stop_reason == "stopped: budget"
    assert stopped.error == f"{ann} reached the daily budget of 100 tokens (120 used today, UTC)"
    with psycopg.connect(as_role(postgres_url, ann), autocommit=True) as db:
        for statement in ("DELETE FROM usage", "UPDATE usage SET tokens = 0"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                db.execute(statement)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            db.execute("INSERT INTO usage (member, at, tokens) VALUES ('someone_else', 0, -1000)")
    rt.close()


def test_no_daily_limit_keeps_no_account(registry: tl.Registry, tmp_path: Path) -> None:
    """Without a daily limit a model step writes nothing more than it did."""
    import asyncio
    import sqlite3

    chatty(registry)

    async def main() -> None:
        rt = tl.Runtime(registry, tmp_path, user="ann")
        await (await rt.create_thread("p")).send("hi")
        rt.close()

    asyncio.run(main())
    with sqlite3.connect(tmp_path / "threads.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM usage").fetchone() == (0,)


async def test_a_tools_own_model_calls_are_the_members_too(
    registry: tl.Registry, tmp_path: Path
) -> None:
    """`state.sample` (answered by the thread's model) spends from the member's day, and is
    refused once the day is spent."""

    class Counted(tl.models.FunctionModel):
        async def stream(self, request):  # type: ignore[no-untyped-def]
            async for chunk in super().stream(request):
                if not isinstance(chunk, tl.models.FinishChunk):
                    yield chunk
            yield tl.models.FinishChunk(usage={"input_tokens": 50, "output_tokens": 10})

    def decide(messages: Any, tools: Any) -> Any:
        if messages[-1].role == "user" and messages[-1].content == "go":
            return tl.models.call("ask", {})
        return text("an answer")

    async def ask(state: tl.ThreadState, args: dict[str, Any]) -> str:
        replies = []
        for _ in range(3):
            try:
                replies.append((await state.sample([tl.Message(role="user", content="?")])).text)
            except tl.SamplingError as exc:
                replies.append(f"refused: {exc}")
        return " | ".join(replies)

    tl.define_tool("ask", description="Ask the model.", execute=ask, registry=registry)
    tl.define_prompt("p", prompt="x", tools=["ask"], model=Counted(decide), registry=registry)
    rt = tl.Runtime(registry, tmp_path, user="ann", budget=tl.Budget(max_tokens_per_day=150))
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    result = next(m.content for m in thread.messages if m.role == "tool") or ""
    said = result.split(" | ")
    assert said[:2] == ["an answer", "an answer"]  # 60 (the step) + 60 + 60 = 180 > 150
    assert said[2].startswith("refused: ")
    assert "daily budget of 150 tokens" in said[2]
    assert run.stop_reason == "stopped: budget"  # the step after the call is not sent
    assert rt.store.usage_since("ann", 0) == (180, 0.0)  # type: ignore[attr-defined]
    rt.close()
