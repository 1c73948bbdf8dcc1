"""A thread waiting on a non-blocking child answers a message another process queues for it
at once when the store can tell it (PostgreSQL's NOTIFY): it does not wait for the child to
finish first. SQLite cannot tell it; there the message waits for the child and is read in one
turn with the child's report."""

from __future__ import annotations

import asyncio
from typing import Any

import threadlab as tl
from threadlab.models import FunctionModel, call, text


def define(registry: tl.Registry, release: asyncio.Event, started: asyncio.Event) -> None:
    async def hold(state: tl.ThreadState, args: Any) -> str:
        started.set()
        await release.wait()
        return "held"

    tl.define_tool("hold", description="Hold.", execute=hold, registry=registry)

    def work(messages: list[tl.Message], tools: Any) -> Any:
        return text("work done") if messages[-1].role == "tool" else call("hold")

    tl.define_prompt("work", prompt="Work.", model=FunctionModel(work), tools=["hold"],
                     registry=registry)  # fmt: skip
    tl.define_agent("worker", side_a=tl.Side("work"), tool_description="Does work.",
                    expose_as_tool=True, registry=registry)  # fmt: skip

    def lead(messages: list[tl.Message], tools: Any) -> Any:
        last = messages[-1]
        if last.role == "user" and last.subagent_id:
            return text("got the report")
        if last.role == "user" and last.content == "ping":
            return text("pong")
        if last.role == "user":
            return call("subagent_create", {"agent": "worker", "name": "w", "message": "go"})
        return text("waiting for the worker")

    tl.define_prompt("lead", prompt="Lead.", model=FunctionModel(lead), registry=registry)
    tl.define_agent(
        "boss",
        side_a=tl.Side("lead", subagents=[tl.Subagent("worker", blocking=False)]),
        registry=registry,
    )


async def test_a_message_from_elsewhere_is_answered_while_the_child_still_works(
    registry: tl.Registry, store_spec: str
) -> None:
    release, started = asyncio.Event(), asyncio.Event()
    define(registry, release, started)
    here = tl.Runtime(registry, store_spec, secret_key="k")
    lead = await here.create_thread("boss")
    running = asyncio.ensure_future(lead.send("go"))
    await asyncio.wait_for(started.wait(), 10)

    # Another runtime, with its own connection to the store: "another process".
    elsewhere = tl.Runtime(registry, store_spec, secret_key="k")
    queued = await elsewhere.thread(lead.id).send("ping")
    assert queued.status == "queued"

    def answered() -> bool:
        return "pong" in [m.content for m in here.thread(lead.id).messages]

    for _ in range(100):  # up to 2 s: the child holds until released
        if answered():
            break
        await asyncio.sleep(0.02)
    if store_spec.startswith("postgresql://"):
        assert answered()  # woken by the notification, while the child still holds
    else:
        assert not answered()  # SQLite: answered once the child is done
    release.set()
    run = await asyncio.wait_for(running, 20)
    assert run.status == "completed"
    history = here.thread(lead.id).messages
    assert "ping" in [m.content for m in history if m.role == "user"]  # never lost
    assert history[-1].content == "got the report"
    here.close()
    elsewhere.close()
