"""A server's form in a card: with a notebook's `CardElicitor`, an MCP server that asks the
user something mid-call shows its form in the card of the live view on screen, and the call
goes on with the person's answer; with no view on screen the question is declined. The
server: the tests' own over stdio (`ask` asks for preferences with defaults)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import ScriptedModel, call, text
from threadlab.widgets import CardElicitor, LiveRun, ThreadView

from ..mcp.conftest import stdio_server
from .fake_comm import install

pytestmark = pytest.mark.processes  # the MCP server runs in its own process


@pytest.fixture
def form_rt(registry: tl.Registry, store_dir: Any) -> Any:
    command, *args = stdio_server()
    tl.define_mcp_server("local", command=command, args=args, tools=["ask"], registry=registry)
    model = ScriptedModel([call("ask", {}, id="c1"), text("done")])
    tl.define_prompt("p", prompt="x", tools=["mcp:local"], model=model, registry=registry)
    runtime = tl.Runtime(registry, store_dir, elicitor=CardElicitor())
    yield runtime
    runtime.close()


async def until_asked(view: ThreadView, call_id: str) -> dict[str, Any]:
    for _ in range(1000):
        card = view.state.cards.get(call_id)
        if card and (card.get("elicitation") or {}).get("state") == "asked":
            return dict(card["elicitation"])
        await asyncio.sleep(0.01)
    raise AssertionError(f"{call_id} never asked: {view.state.cards.get(call_id)}")


def answer(view: ThreadView, thread_id: str, call_id: str, **sent: Any) -> None:
    """What the form's buttons send."""
    view._on_message(view, {"op": "elicit", "thread": thread_id, "call": call_id, **sent}, [])


def said(thread: tl.Thread) -> str:
    (result,) = [m.content or "" for m in thread.messages if m.role == "tool"]
    return str(json.loads(result)["result"])


async def test_the_form_waits_in_the_card_and_the_call_goes_on_with_the_answer(
    form_rt: tl.Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    thread = await form_rt.create_thread("p")
    live = LiveRun(form_rt, thread, rate=50)
    live.view._on_message(live.view, {"op": "ready"}, [])  # the front end drew it
    running = asyncio.create_task(live.run("go"))
    asked = await until_asked(live.view, "c1")
    assert (asked["server"], asked["message"]) == ("local", "Your preferences?")
    assert asked["schema"]["properties"]["colour"]["default"] == "green"
    # A made-up answer for another call, or for a thread the view does not show: nothing.
    answer(live.view, thread.id, "c9", action="accept", content={"confirm": True})
    answer(live.view, "thr_other", "c1", action="accept", content={"confirm": True})
    await asyncio.sleep(0.2)
    assert not running.done()
    answer(live.view, thread.id, "c1", action="accept", content={"confirm": True, "size": 9})
    run = await asyncio.wait_for(running, 60)
    assert run.status == "completed"
    assert said(thread) == "colour=green size=9 confirm=True"
    card = live.view.state.cards["c1"]
    assert card["elicitation"]["state"] == "answered"
    assert card["elicitation"]["action"] == "accept"


async def test_declined_in_the_card_or_with_no_view_on_screen(
    form_rt: tl.Runtime, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    thread = await form_rt.create_thread("p")
    live = LiveRun(form_rt, thread, rate=50)
    live.view._on_message(live.view, {"op": "ready"}, [])
    running = asyncio.create_task(live.run("go"))
    await until_asked(live.view, "c1")
    answer(live.view, thread.id, "c1", action="decline")
    await asyncio.wait_for(running, 60)
    assert said(thread) == "the user chose to decline"
    model = ScriptedModel([call("ask", {}, id="c1"), text("done")])
    tl.define_prompt("q", prompt="x", tools=["mcp:local"], model=model, registry=form_rt.registry)
    unseen = await form_rt.create_thread("q")  # run with no view: nobody to ask
    form_rt.elicitor.ready_s = 0.1  # type: ignore[union-attr]
    await unseen.send("go")
    assert said(unseen) == "the user chose to decline"


async def test_a_gated_servers_sampling_request_waits_in_the_card(
    registry: tl.Registry, store_dir: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    command, *args = stdio_server()
    tl.define_mcp_server("local", command=command, args=args, tools=["summarise"],
                         approval="always", sampling_model="offline",
                         registry=registry)  # fmt: skip
    model = ScriptedModel([call("summarise", {"text": "tea"}, id="c1"), text("done")])
    tl.define_prompt("p", prompt="x", tools=["mcp:local"], model=model, registry=registry)
    rt = tl.Runtime(registry, store_dir, approver=lambda request: True, elicitor=CardElicitor())
    try:
        thread = await rt.create_thread("p")
        live = LiveRun(rt, thread, rate=50)
        live.view._on_message(live.view, {"op": "ready"}, [])
        running = asyncio.create_task(live.run("go"))
        asked = await until_asked(live.view, "c1")
        assert asked["message"].startswith("may the model offline answer this")
        assert "tea" in asked["message"]
        answer(live.view, thread.id, "c1", action="accept", content={})
        assert (await asyncio.wait_for(running, 60)).status == "completed"
        assert said(thread).startswith("summary by offline:")
        card = live.view.state.cards["c1"]
        assert card["elicitation"]["state"] == "answered"  # the form gave way
    finally:
        rt.close()


async def test_a_tools_own_form_waits_in_its_card_and_the_tool_gets_the_answer(
    registry: tl.Registry, store_dir: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)

    @tl.tool(registry=registry)
    async def trip(state: tl.ThreadState) -> str:
        """Plan a trip, asking where to."""
        form = {"type": "object", "properties": {"city": {"type": "string", "default": "Oslo"}}}
        return json.dumps(await state.elicit("Where to?", form))

    model = ScriptedModel([call("trip", {}, id="c1"), text("done")])
    tl.define_prompt("p", prompt="x", tools=["trip"], model=model, registry=registry)
    rt = tl.Runtime(registry, store_dir, elicitor=CardElicitor())
    try:
        thread = await rt.create_thread("p")
        live = LiveRun(rt, thread, rate=50)
        live.view._on_message(live.view, {"op": "ready"}, [])
        running = asyncio.create_task(live.run("go"))
        asked = await until_asked(live.view, "c1")
        assert (asked["tool"], asked["message"]) == ("trip", "Where to?")
        answer(live.view, thread.id, "c1", action="accept", content={"city": "Rome"})
        assert (await asyncio.wait_for(running, 60)).status == "completed"
        (result,) = [m.content for m in thread.messages if m.role == "tool"]
        assert result == '{"city": "Rome"}'
        assert live.view.state.cards["c1"]["elicitation"]["state"] == "answered"
    finally:
        rt.close()
