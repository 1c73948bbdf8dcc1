"""A thread waiting on a non-blocking child answers a message another process queues for it
while the child still works: at once when the store can tell it (PostgreSQL's NOTIFY), at the
next look at the queue otherwise (SQLite, or a notification nobody heard)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FunctionModel, call, text

pytestmark = pytest.mark.processes  # it starts a second Python process


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
    tl.define_agent("helper", side_a=tl.Side("work"), tool_description="Does work.",
                    expose_as_tool=True, registry=registry)  # fmt: skip

    def lead(messages: list[tl.Message], tools: Any) -> Any:
        last = messages[-1]
        if last.role == "user" and last.subagent_id:
            return text("got the report")
        if last.role == "user" and last.content == "ping":
            return text("pong")
        if last.role == "user":
            return call("subagent_create", {"agent": "helper", "name": "w", "message": "go"})
        return text("waiting for the helper")

    tl.define_prompt("lead", prompt="Lead.", model=FunctionModel(lead), registry=registry)
    tl.define_agent(
        "boss",
        side_a=tl.Side("lead", subagents=[tl.Subagent("helper", blocking=False)]),
        registry=registry,
    )


async def answer_while_the_child_holds(
    registry: tl.Registry, store_spec: str, poll_interval: float, send: Any = None
) -> None:
    """The lead is asked "ping" from another runtime while its child holds; it must answer
    within 2 s, and everything ends in order once the child is released."""
    release, started = asyncio.Event(), asyncio.Event()
    define(registry, release, started)
    here = tl.Runtime(registry, store_spec, secret_key="k", poll_interval=poll_interval)
    lead = await here.create_thread("boss")
    running = asyncio.ensure_future(lead.send("go"))
    await asyncio.wait_for(started.wait(), 10)

    # Another runtime, with its own connection to the store: "another process".
    elsewhere = tl.Runtime(registry, store_spec, secret_key="k")
    if send is None:
        queued = await elsewhere.thread(lead.id).send("ping")
        assert queued.status == "queued"
    else:
        send(elsewhere, lead.id)

    def answered() -> bool:
        return "pong" in [m.content for m in here.thread(lead.id).messages]

    for _ in range(100):  # up to 2 s: the child holds until released
        if answered():
            break
        await asyncio.sleep(0.02)
    assert answered()
    release.set()
    run = await asyncio.wait_for(running, 20)
    assert run.status == "completed"
    history = here.thread(lead.id).messages
    assert "ping" in [m.content for m in history if m.role == "user"]  # never lost
    assert history[-1].content == "got the report"
    here.close()
    elsewhere.close()


async def test_a_message_from_elsewhere_is_answered_while_the_child_still_works(
    registry: tl.Registry, store_spec: str
) -> None:
    if store_spec.startswith("postgresql://"):
        # A minute between looks: only the notification can answer it in time.
        await answer_while_the_child_holds(registry, store_spec, poll_interval=60)
    else:
        await answer_while_the_child_holds(registry, store_spec, poll_interval=0.1)


async def test_a_lost_notification_is_made_up_for_by_the_next_look(
    registry: tl.Registry, postgres_url: str
) -> None:
    def queue_silently(rt: tl.Runtime, thread_id: str) -> None:
        # The row a send would queue, committed without its NOTIFY: as if nobody listened.
        message = tl.Message(role="user", content="ping")
        rt.store._execute(  # type: ignore[attr-defined]
            "INSERT INTO queue (thread_id, data) VALUES (?, ?)",
            (thread_id, message.model_dump_json()),
        )

    await answer_while_the_child_holds(registry, postgres_url, 0.2, send=queue_silently)
