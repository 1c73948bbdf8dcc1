"""Tools with their own UI (MCP Apps) as threadlab calls them: the server's page is kept with
the call that shows it (and said when it cannot be read), a tool only apps may call is not
offered to the model, and the app's own tool calls run through `tl.mcp.call_for_app` —
recorded with the call, redacted, and refused where the tool needs a decision or is not the
app's server's. A tool of this process with a UI keeps its page the same way."""

from __future__ import annotations

import json
import sqlite3
import sys
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import ScriptedModel, call, text
from threadlab.widgets import replay

pytestmark = pytest.mark.processes  # the tests' own MCP server, over stdio

SERVER = str(Path(__file__).with_name("apps_server.py"))
SECRET = "sk-app-0123456789abcdef"


def apps_registry(*steps: Any, approval: Any = None) -> tl.Registry:
    registry = tl.Registry()
    tl.define_mcp_server("apps", command=sys.executable, args=[SERVER], approval=approval,
                         registry=registry)  # fmt: skip

    async def noted(state: tl.ThreadState, args: dict[str, Any]) -> str:
        return f"noted with {await state.env('KEY')}"

    tl.define_tool("note", description="Note.", execute=noted, registry=registry,
                   variables=[tl.Variable("KEY", type="secret")])  # fmt: skip
    tl.define_prompt("p", prompt="x", tools=["mcp:apps", "note"], registry=registry,
                     model=ScriptedModel([*steps, text("done")]))  # fmt: skip
    return registry


def app_events(thread: tl.Thread, kind: str) -> list[tl.CustomEvent]:
    return [e for e in thread.events if isinstance(e, tl.CustomEvent) and e.event_type == kind]


def call_of(event: tl.CustomEvent) -> str:
    assert event.tool_call_id is not None
    return event.tool_call_id


async def test_a_servers_page_is_kept_with_the_call_and_an_app_only_tool_is_not_offered(
    store_dir: Path,
) -> None:
    registry = apps_registry(
        call("board", {"title": "scores"}), call("lost", {}), call("board", {"title": "again"})
    )
    rt = tl.Runtime(registry, store_dir)
    thread = await rt.create_thread("p")
    await thread.send("show the board")
    offered = {t.name for t in registry.tools() if t.mcp_server == "apps"}
    assert offered == {"board", "lost", "wipe"}  # "bump" is for its app only
    shown, lost, again = app_events(thread, tl.mcp.APP_EVENT)
    assert again.data["html"] == shown.data["html"]
    assert shown.data["uri"] == "ui://apps/board.html"
    assert '<button id="bump">' in shown.data["html"]
    assert shown.data["csp"] == {
        "connectDomains": ["*"],
        "resourceDomains": ["https://cdn.example"],
    }
    assert lost.data["uri"] == "ui://apps/lost.html"
    assert "could not read ui://apps/lost.html" in lost.data["error"]
    results = [m for m in thread.messages if m.role == "tool"]
    assert [m.tool_status for m in results] == ["success"] * 3  # the calls ran anyway
    # The card holds the app, not its event list; the saved view draws it again. Its page is
    # held once in the trace, however many calls show it.
    snapshot = replay(thread).snapshot()
    card = snapshot["cards"][shown.tool_call_id]
    assert card["app"]["uri"] == "ui://apps/board.html"
    assert "html" not in card["app"]
    assert snapshot["apps"] == {card["app"]["page"]: shown.data["html"]}  # once, for two calls
    assert all(e["type"] != tl.mcp.APP_EVENT for e in card["events"])
    await rt.aclose()


async def test_an_apps_tool_call_runs_is_recorded_with_the_call_and_answers_the_app(
    store_dir: Path,
) -> None:
    rt = tl.Runtime(apps_registry(call("board", {"title": "scores"})), store_dir,
                    secret_key="k")  # fmt: skip
    thread = await rt.create_thread("p", secrets={"KEY": SECRET})
    await thread.send("show the board")
    (shown,) = app_events(thread, tl.mcp.APP_EVENT)
    answered = await tl.mcp.call_for_app(rt, thread.id, call_of(shown), "bump", {"by": 2})
    assert answered["structuredContent"] == {"count": 2}
    assert answered["isError"] is False
    again = await tl.mcp.call_for_app(rt, thread.id, call_of(shown), "bump", {"by": 3})
    assert again["structuredContent"] == {"count": 5}  # the server's own state, as it keeps it
    # A value the thread keeps secret, sent by the app, is stored as the secret's name.
    await tl.mcp.call_for_app(rt, thread.id, call_of(shown), "board", {"title": SECRET})
    recorded = [e.data for e in app_events(thread, tl.mcp.APP_CALL_EVENT)]
    assert [(r["name"], r["status"]) for r in recorded] == [
        ("bump", "success"), ("bump", "success"), ("board", "success")]  # fmt: skip
    assert recorded[0]["arguments"] == {"by": 2}
    assert json.loads(recorded[1]["result"]) == {"count": 5}
    assert recorded[2]["arguments"] == {"title": "[secret:KEY]"}
    assert SECRET not in json.dumps(recorded)
    for path in store_dir.rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    await rt.aclose()


async def test_an_apps_call_is_refused_where_it_should_not_run(store_dir: Path) -> None:
    rt = tl.Runtime(apps_registry(call("board", {"title": "t"}), call("note", {})), store_dir,
                    secret_key="k")  # fmt: skip
    thread = await rt.create_thread("p", secrets={"KEY": SECRET})
    await thread.send("go")
    (shown,) = app_events(thread, tl.mcp.APP_EVENT)
    note_call = next(m.tool_call_id or "" for m in thread.messages if m.role == "tool"
                     and m.tool_call_id != shown.tool_call_id)  # fmt: skip
    refusals: list[tuple[str, str, str, dict[str, Any], str]] = [
        (thread.id, call_of(shown), "nope", {}, "offers its apps no tool 'nope'"),
        (thread.id, call_of(shown), "wipe", {}, "offers its apps no tool 'wipe'"),  # model's
        (thread.id, call_of(shown), "bump", {"by": 1, "pad": "x" * 70_000}, "over the 65,536"),
        (thread.id, call_of(shown), "bump", {"by": "two"}, "invalid arguments"),
        (thread.id, "call_elsewhere", "bump", {"by": 1}, "has no call 'call_elsewhere'"),
        (thread.id, note_call, "bump", {"by": 1}, "tool 'note' has no app"),
    ]
    for thread_id, call_id, name, arguments, said in refusals:
        with pytest.raises(tl.ThreadlabError, match=said):
            await tl.mcp.call_for_app(rt, thread_id, call_id, name, arguments)
    assert app_events(thread, tl.mcp.APP_CALL_EVENT) == []  # nothing ran, nothing recorded
    await rt.aclose()


async def test_an_apps_call_of_a_tool_that_needs_a_decision_fails_closed(
    store_dir: Path,
) -> None:
    rt = tl.Runtime(apps_registry(call("board", {"title": "t"}), approval="always"), store_dir)
    thread = await rt.create_thread("p")
    await thread.send("go")
    (request,) = thread.pending
    await thread.approve(request.tool_call_id)
    await thread.resume()
    (shown,) = app_events(thread, tl.mcp.APP_EVENT)
    with pytest.raises(tl.ThreadlabError, match="needs a decision before it runs"):
        await tl.mcp.call_for_app(rt, thread.id, call_of(shown), "bump", {"by": 1})
    assert app_events(thread, tl.mcp.APP_CALL_EVENT) == []
    await rt.aclose()


async def test_a_tool_of_this_process_with_a_ui_keeps_its_page_with_each_call(
    store_dir: Path,
) -> None:
    registry = tl.Registry()

    @tl.tool(registry=registry, ui="<p>the chart</p>")
    def chart(state: tl.ThreadState, values: list[int]) -> int:
        """Chart values."""
        return sum(values)

    tl.define_prompt("p", prompt="x", tools=["chart"], registry=registry, model=ScriptedModel(
        [call("chart", {"values": [1, 2]}), text("done")]))  # fmt: skip
    rt = tl.Runtime(registry, store_dir)
    thread = await rt.create_thread("p")
    await thread.send("chart it")
    (shown,) = app_events(thread, tl.mcp.APP_EVENT)
    assert shown.data == {"uri": "ui://threadlab/chart", "html": "<p>the chart</p>", "csp": {}}
    with pytest.raises(tl.ThreadlabError, match="a tool defined in this process"):
        await tl.mcp.call_for_app(rt, thread.id, call_of(shown), "chart", {"values": []})
    # An OpenTelemetry span of the call names the app, without its page.
    from threadlab.otel import thread_spans

    (tool_span,) = [s for s in thread_spans(thread, include_content=True)
                    if s.name == "execute_tool chart"]  # fmt: skip
    (app_event,) = [e for e in tool_span.events if e.name == tl.mcp.APP_EVENT]
    assert app_event.attributes is not None
    assert json.loads(str(app_event.attributes["threadlab.data"])) == {
        "uri": "ui://threadlab/chart", "csp": {}}  # fmt: skip
    await rt.aclose()


async def test_an_apps_call_is_refused_where_its_call_id_repeats_or_the_thread_waits(
    store_dir: Path,
) -> None:
    """A model repeats a call id across two tools: the second call is stored with an id of
    its own, so an app's call names one of them. A history stored before ids were made unique
    (two calls of one id) cannot tell which app asks, so nothing runs. A thread paused for a
    decision runs no app call either."""
    registry = apps_registry(call("board", {"title": "t"}, id="dup"), call("lost", {}, id="dup"))
    rt = tl.Runtime(registry, store_dir)
    thread = await rt.create_thread("p")
    await thread.send("go")
    assert [c.id for m in thread.messages for c in m.tool_calls] == ["dup", "dup_2"]
    with sqlite3.connect(store_dir / "threads.sqlite3") as db:  # as an older version stored it
        db.execute("UPDATE messages SET data = replace(data, '\"dup_2\"', '\"dup\"')")
    stored = tl.Runtime(registry, store_dir)
    with pytest.raises(tl.ThreadlabError, match="has 2 calls 'dup': not run"):
        await tl.mcp.call_for_app(stored, thread.id, "dup", "bump", {"by": 1})
    await stored.aclose()
    gated = tl.Runtime(apps_registry(call("board", {"title": "t"}), call("board", {"title": "u"}),
                                     approval="always"), store_dir)  # fmt: skip
    waiting = await gated.create_thread("p")
    await waiting.send("go")
    (first,) = waiting.pending
    await waiting.approve(first.tool_call_id)
    await waiting.resume()  # the first ran; the second waits for its decision
    (shown,) = app_events(waiting, tl.mcp.APP_EVENT)
    assert waiting.status == "waiting"
    with pytest.raises(tl.ThreadlabError, match="waits"):
        await tl.mcp.call_for_app(gated, waiting.id, call_of(shown), "bump", {"by": 1})
    assert app_events(thread, tl.mcp.APP_CALL_EVENT) == []
    assert app_events(waiting, tl.mcp.APP_CALL_EVENT) == []
    await rt.aclose()
    await gated.aclose()
