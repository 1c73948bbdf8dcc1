"""Views: state built from events, throttled updates through a (recording) comm, static HTML."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, step, text
from threadlab.widgets import LiveRun, StaticView, ThreadListView, ThreadView, replay, static_html
from threadlab.widgets._view_state import CARD_EVENTS

from ..helpers import desks
from .fake_comm import cards_sent, customs_of, install, updates

SECRET = "sk-very-secret-0042"


def define(registry: tl.Registry, model: Any) -> None:
    async def write_file(state: tl.ThreadState, args: dict[str, Any]) -> str:
        state.emit("saved", {"path": args["path"]})
        await state.write_file(args["path"], args["content"])
        return f"key {await state.env('API_KEY')} wrote {args['path']}"

    schema = {
        "type": "object",
        "properties": {
            "description": {"type": "string"},
            "path": {"type": "string"},
            "content": {"type": "string"},
        },
    }
    tl.define_tool(
        "write_file",
        description="W.",
        args=schema,
        execute=write_file,
        progress_argument="description",
        registry=registry,
        variables=[tl.Variable("API_KEY", type="secret")],
    )
    tl.define_prompt("p", prompt="x", tools=["write_file"], model=model, registry=registry)


def write(i: int) -> Any:
    return call(
        "write_file",
        {
            "description": f"writing page{i}.html",
            "path": f"/page{i}.html",
            "content": "<p>" + "x" * 200 + "</p>",
        },
    )


async def test_a_live_run_fills_cards_files_and_the_final_text(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("all done")]))
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    live = LiveRun(rt, thread, rate=20)
    finished = await live.run("build")
    assert finished.status == "completed"
    trace = live.view.trace
    (card,) = trace["cards"].values()
    assert card["name"] == "write_file"
    assert card["progress"] == "writing page1.html"
    assert card["status"] == "success"
    assert card["result"] == "key [secret:API_KEY] wrote /page1.html"
    assert [(e["type"], e["data"]) for e in card["events"]] == [("saved", {"path": "/page1.html"})]
    assert isinstance(card["events"][0]["at"], float)  # when: progress bars tell a rate
    stored = thread.files.stat_sync("/page1.html")
    assert stored is not None  # listed with the digest of the content it holds now
    assert trace["files"][thread.id] == [
        {"path": "/page1.html", "size": 207, "digest": stored.digest}]  # fmt: skip
    assert trace["run"] == {
        "status": "completed", "text": "all done", "error": None, "usage": None,
        "cost_usd": 0.0,  # an offline model costs nothing
        "stop_reason": "completed", "run_id": finished.run_id,
    }  # fmt: skip
    # What reached the front end never holds the secret.
    assert updates(sent)
    assert SECRET not in json.dumps([data for _, _, data in sent], default=str)


async def test_a_thread_run_again_shows_the_files_its_earlier_runs_wrote(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("one"), write(2), text("two")]))
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    await LiveRun(rt, thread, rate=20).run("first page")
    again = LiveRun(rt, thread, rate=20)  # the same thread, a cell run again
    listed = again.view.trace["files"][thread.id]
    assert [(f["path"], f["size"]) for f in listed] == [("/page1.html", 207)]
    await again.run("second page")
    assert [f["path"] for f in again.view.trace["files"][thread.id]] == [
        "/page1.html", "/page2.html"]  # fmt: skip


async def test_the_card_shows_progress_before_the_tool_finishes(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    release = asyncio.Event()

    async def wait(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await release.wait()
        return "done"

    schema = {"type": "object", "properties": {"description": {"type": "string"}}}
    tl.define_tool(
        "slow",
        description="x",
        args=schema,
        execute=wait,
        progress_argument="description",
        registry=registry,
    )
    tl.define_prompt(
        "p",
        prompt="x",
        tools=["slow"],
        registry=registry,
        model=tl.models.ScriptedModel([call("slow", {"description": "thinking hard"}), text("ok")]),
    )
    thread = await rt.create_thread("p")
    live = LiveRun(rt, thread, rate=50)
    task = asyncio.create_task(live.run("go"))
    for _ in range(200):
        await asyncio.sleep(0.01)
        if any(
            c["progress"] == "thinking hard" and c["status"] == "running" for c in cards_sent(sent)
        ):
            break
    else:
        pytest.fail("no update showed the running card with its progress")
    release.set()
    await task


async def test_updates_are_throttled_whatever_the_event_rate(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)

    async def decide(messages: Any, tools: Any) -> Any:
        await asyncio.sleep(0.002)
        done = sum(1 for m in messages if m.role == "tool")
        return write(done) if done < 40 else text("done " * 100)

    define(registry, tl.models.FunctionModel(decide, chunk_size=2))
    thread = await rt.create_thread("p", secrets={"API_KEY": "key-of-eight"})
    live = LiveRun(rt, thread, rate=10)
    await live.run("go")
    events = live.seen.total()
    sent_updates = [(at, state) for at, state in updates(sent) if "trace" in state]
    assert events > 5000
    # At most one update per interval (plus the final one), measured on the comm itself.
    times = [at for at, _ in sent_updates]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert sum(g < live.throttle.interval * 0.9 for g in gaps) <= 1
    assert len(sent_updates) < events / 50


async def test_replay_rebuilds_the_same_trace_from_the_store(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    define(registry, tl.models.ScriptedModel([step(write(1), write(2)), text("done")]))
    thread = await rt.create_thread("p")
    live = LiveRun(rt, thread, rate=20)
    await live.run("go")
    reopened = tl.Runtime(registry, rt.store).thread(thread.id)
    replayed = replay(reopened).snapshot()
    assert replayed["cards"] == live.view.trace["cards"]
    assert replayed["files"] == live.view.trace["files"]
    assert replayed["run"] == live.view.trace["run"]


async def test_static_html_is_script_free_and_uses_details(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("<script>alert(1)</script> done")]))
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    live = LiveRun(rt, thread, rate=20)
    await live.run("go")
    bundle = StaticView(thread)._repr_mimebundle_()
    html = bundle["text/html"]
    assert "<script" not in html
    assert "&lt;script&gt;" in html
    assert re.search(
        r"<details[^>]*><summary>✓ <b>write_file</b> <code>/page1.html</code> — writing page1.html",
        html,
    )
    assert SECRET not in html
    assert "[success] write_file — writing page1.html" in bundle["text/plain"]


async def test_a_cells_static_view_shows_its_own_run_of_the_thread(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A thread run in two cells: each cell keeps its own run, as its live view showed it
    # (the run before is in the cell above), drawn from the thread's steps.
    install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("first done"), write(2),
                                              text("second done")]))  # fmt: skip
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    first = LiveRun(rt, thread, rate=20)
    await first.run("one")
    text_one, html_one = first.view.static_texts()  # as the cell's output keeps it
    second = LiveRun(rt, thread, rate=20)
    await second.run("two")
    text_two, html_two = second.view.static_texts()
    # Drawn again after the thread went on (a view is redrawn when shown again), the first
    # cell's view still says what its own run did, ended with and left.
    assert first.view.static_texts() == (text_one, html_one)
    assert "first done" in html_one
    assert "page1.html" in html_one
    assert "second done" not in html_one
    assert "page2.html" not in html_one
    assert "second done" in html_two
    assert "page2.html" in html_two
    assert "first done" not in html_two
    assert "writing page1.html" not in html_two
    assert "writing page1.html" in text_one
    assert "writing page1.html" not in text_two
    # The whole thread, reopened, shows both runs.
    reopened = ThreadView(rt, replay(thread)).static_html()
    assert "first done" in reopened
    assert "second done" in reopened


async def test_a_repeated_call_id_keeps_each_calls_own_card_in_the_static_view(
    registry: tl.Registry, store_dir: Path
) -> None:
    # A history stored before each call had an id of its own repeats the model's ids: each
    # call is still a step of its own, and the static view draws each with its own
    # arguments, result and events.
    def echo(state: tl.ThreadState, args: dict[str, Any]) -> str:
        state.emit("heard", {"said": args["text"]})
        return f"echo {args['text']}"

    said = {"type": "object", "properties": {"text": {"type": "string"}}}
    tl.define_tool("echo", description="Echo.", execute=echo, args=said, registry=registry)
    steps = [call("echo", {"text": "first"}, id="c1"), call("echo", {"text": "second"}, id="c1")]
    model = tl.models.ScriptedModel([*steps, text("done")])
    tl.define_prompt("p", prompt="Echo.", model=model, tools=["echo"], registry=registry)
    rt = tl.Runtime(registry, store_dir)
    thread = await rt.create_thread("p")
    await thread.send("go")
    rt.close()
    with sqlite3.connect(store_dir / "threads.sqlite3") as db:  # as an older version stored it
        for table in ("messages", "events"):
            db.execute(f"UPDATE {table} SET data = replace(data, '\"c1_2\"', '\"c1\"')")
    rt = tl.Runtime(registry, store_dir)
    thread = rt.thread(thread.id)
    assert [c.id for m in thread.messages for c in m.tool_calls] == ["c1", "c1"]
    page = static_html(thread)
    assert page.count('data-status="success"') == 2
    assert page.index("echo first") < page.index("echo second")
    assert page.count("said: first") == page.count("said: second") == 1
    rt.close()


async def test_views_answer_fetch_and_preview_requests(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("done")]))
    thread = await rt.create_thread("p")
    await thread.send("go")
    await thread.files.write("/img.png", b"\x89PNG\r\n\x1a\n")
    view = ThreadView(rt, replay(thread))
    call_id = next(iter(view.trace["cards"]))
    view._on_message(view, {"op": "fetch_result", "thread": thread.id, "call": call_id}, [])
    view._on_message(view, {"op": "preview", "thread": thread.id, "path": "/page1.html"}, [])
    view._on_message(view, {"op": "preview", "thread": thread.id, "path": "/img.png"}, [])
    view._on_message(view, {"op": "preview", "thread": thread.id, "path": "../x"}, [])
    customs = customs_of(sent)
    assert customs[0]["text"].startswith("key None wrote /page1.html")
    assert customs[1]["text"].startswith("<p>xxx")
    assert customs[2]["image"].startswith("data:image/png;base64,")
    assert "is relative" in customs[3]["error"]


async def test_a_finished_calls_folded_arguments_are_sent_whole_when_asked_for(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("done"), write(2), text("done")]))
    thread, other = await rt.create_thread("p"), await rt.create_thread("p")
    await thread.send("go")
    await other.send("go")
    view = ThreadView(rt, replay(thread))
    (card,) = view.trace["cards"].values()
    assert card["args_folded"]  # 207 characters of content: folded in the synced state
    assert "more characters" in card["args"]
    view._on_message(view, {"op": "fetch_arguments", "thread": thread.id, "call": card["id"]}, [])
    other_call = next(m.tool_call_id for m in other.messages if m.role == "tool")
    view._on_message(view, {"op": "fetch_arguments", "thread": other.id, "call": other_call}, [])
    whole, refused = customs_of(sent)
    assert whole["op"] == "arguments"
    assert json.loads(whole["text"])["content"] == "<p>" + "x" * 200 + "</p>"
    assert refused["text"] == "that thread is not in this view"


async def test_views_answer_only_for_the_threads_they_show(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("done"), write(2), text("done")]))
    shown, other = await rt.create_thread("p"), await rt.create_thread("p")
    await shown.send("go")
    await other.send("go")
    other_call = next(m.tool_call_id for m in other.messages if m.role == "tool")
    views = [ThreadView(rt, replay(shown)), ThreadListView(rt)]
    for view in views:
        view._on_message(view, {"op": "fetch_result", "thread": other.id, "call": other_call}, [])
        view._on_message(view, {"op": "preview", "thread": other.id, "path": "/page2.html"}, [])
    customs = customs_of(sent)
    assert len(customs) == 4
    refusal = "that thread is not in this view"
    assert [(c["op"], c.get("error") or c.get("text")) for c in customs] == [
        ("result", refusal),
        ("preview", refusal),
    ] * 2
    assert not any("page2" in str(c.get("text", "")) for c in customs if c["op"] == "preview")
    listing = views[1]
    assert isinstance(listing, ThreadListView)
    listing.open_thread(other.id)  # once opened below the list, its files can be previewed
    listing._on_message(listing, {"op": "preview", "thread": other.id, "path": "/page2.html"}, [])
    customs = customs_of(sent)
    assert "error" not in customs[-1]


async def test_the_thread_list_opens_a_thread(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("done")]))
    thread = await rt.create_thread("p")
    await thread.send("go")
    listing = ThreadListView(rt)
    assert [r["id"] for r in listing.rows] == [thread.id]
    listing._on_message(listing, {"op": "open", "thread": thread.id}, [])
    assert listing.opened["root"] == thread.id
    assert thread.id in repr(listing)


async def test_the_thread_list_shows_each_threads_last_run_newest_first(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    from threadlab.store import RunRecord

    install(monkeypatch)

    def fail(messages: Any, tools: Any) -> Any:
        raise RuntimeError("model down")

    tl.define_prompt(
        "ok", prompt="x", model=tl.models.ScriptedModel([text("hi")]), registry=registry
    )
    tl.define_prompt("bad", prompt="x", model=tl.models.FunctionModel(fail), registry=registry)
    completed = await rt.create_thread("ok")
    await completed.send("go")
    failed = await rt.create_thread("bad")
    await failed.send("go")
    orphaned = await rt.create_thread("ok")
    rt.store.start_run(RunRecord("run_gone", orphaned.id, "running", 999_999_999, "gone", 0, 0))
    never = await rt.create_thread("ok")
    rows = ThreadListView(rt).rows
    assert [(r["id"], r["status"], r["messages"]) for r in rows] == [
        (never.id, "never run", 0),
        (orphaned.id, "interrupted", 0),
        (failed.id, "failed", 1),
        (completed.id, "completed", 2),
    ]


async def test_fork_from_here_in_a_view_runs_the_branch_there(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("done"), text("branch done")]))
    thread = await rt.create_thread("p")
    await thread.send("go")
    view = ThreadView(rt, replay(thread))
    call_id = next(iter(view.trace["cards"]))
    # Arguments the tool's schema refuses: the API's error goes back to the view.
    view._on_message(
        view, {"op": "fork", "thread": thread.id, "at": call_id, "arguments": {"path": 3}}, []
    )
    assert view._forking is not None
    await view._forking
    customs = customs_of(sent)
    assert customs[-1]["op"] == "fork_error"
    assert "invalid arguments for tool 'write_file'" in customs[-1]["error"]
    assert thread.branches == []
    # A different result: the branch is made, shown and run in this view.
    view._on_message(view, {"op": "fork", "thread": thread.id, "at": call_id, "result": "X"}, [])
    await view._forking
    (branch,) = thread.branches
    assert view.state.root_id == branch.id
    assert view.selected == branch.id
    assert not view.live
    assert view.trace["run"]["status"] == "completed"
    assert branch.messages[-1].content == "branch done"
    nodes = {t["id"]: t for t in view.trace["threads"]}
    assert nodes[thread.id]["relation"] == "origin"  # the tree shows where it came from
    assert nodes[branch.id]["parent"] == thread.id
    # Selecting the origin shows it, with the branch under it.
    view._on_message(view, {"op": "select", "thread": thread.id}, [])
    assert view.state.root_id == thread.id
    nodes = {t["id"]: t for t in view.trace["threads"]}
    assert (nodes[branch.id]["relation"], nodes[branch.id]["parent"]) == ("branch", thread.id)
    # A thread the view does not show cannot be forked through it.
    other = await rt.create_thread("p")
    view._on_message(view, {"op": "fork", "thread": other.id, "at": call_id, "result": "X"}, [])
    assert other.branches == []


async def test_a_branch_that_cannot_run_here_says_why_in_the_view(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("done")]))
    thread = await rt.create_thread("p")
    await thread.send("go")
    elsewhere = tl.Runtime(tl.Registry(), rt.store)  # a kernel that lost its definitions
    view = ThreadView(elsewhere, replay(elsewhere.thread(thread.id)))
    call_id = next(iter(view.trace["cards"]))
    view._on_message(view, {"op": "fork", "thread": thread.id, "at": call_id, "result": "X"}, [])
    assert view._forking is not None
    await view._forking  # no exception escapes into the kernel's loop
    assert not view.live
    # Said in the fork's form, and no branch left behind that could not run.
    error = customs_of(sent)[-1]
    assert error["op"] == "fork_error"
    assert "a branch cannot run in this kernel: unknown target 'p'" in error["error"]
    assert "run the cells that define them first" in error["error"]
    assert thread.branches == []
    assert view.state.root_id == thread.id


async def test_a_fork_needs_every_agent_the_thread_was_handed_to(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A branch answers as the agent at its cut, which may be one handed over from since.
    sent = install(monkeypatch)
    front = tl.models.ScriptedModel([call("billing", {"message": "invoice"})])
    desks(registry, front, tl.models.ScriptedModel([text("billing here")]))
    thread = await rt.create_thread("support")
    await thread.send("my invoice")
    elsewhere = tl.Registry()  # a kernel where billing is not defined
    tl.define_prompt("front_desk", prompt="Front.", registry=elsewhere,
                     model=tl.models.ScriptedModel([text("front")]))  # fmt: skip
    tl.define_agent("support", side_a="front_desk", registry=elsewhere)
    other = tl.Runtime(elsewhere, rt.store)
    view = ThreadView(other, replay(other.thread(thread.id)))
    last = thread.messages[-1].id
    view._on_message(view, {"op": "fork", "thread": thread.id, "at": last}, [])
    assert view._forking is not None
    await view._forking
    error = customs_of(sent)[-1]
    assert error["op"] == "fork_error"
    assert "unknown target 'billing'" in error["error"]
    assert thread.branches == []


async def test_a_steps_request_is_sent_when_asked_for(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("done")]))
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    await thread.send("go")
    view = ThreadView(rt, replay(thread))
    step = next(m for m in thread.messages if m.tool_calls)
    assert "request" not in json.dumps(view.trace)  # never part of the synced state
    view._on_message(view, {"op": "fetch_request", "thread": thread.id, "message": step.id}, [])
    reply = customs_of(sent)[-1]
    assert reply["op"] == "request"
    assert reply["message"] == step.id
    assert reply["text"].splitlines() == [
        "system: x",
        "user: go",
        "tools: write_file (tool_choice auto, parallel calls no)",
    ]
    other = await rt.create_thread("p")
    view._on_message(view, {"op": "fetch_request", "thread": other.id, "message": step.id}, [])
    assert customs_of(sent)[-1] == {
        "op": "request",
        "message": step.id,
        "text": "that thread is not in this view",
    }


async def test_a_failed_calls_closed_card_says_why(rt: tl.Runtime, registry: tl.Registry) -> None:
    def lookup(state: tl.ThreadState, args: dict[str, Any]) -> str:
        raise KeyError(args["key"])

    tl.define_tool("lookup", description="Look up.", execute=lookup,
                   args={"type": "object", "properties": {"key": {"type": "string"}}},
                   registry=registry)  # fmt: skip
    model = tl.models.ScriptedModel([call("lookup", {"key": "nope"}), text("sorry")])
    tl.define_prompt("p", prompt="x", tools=["lookup"], model=model, registry=registry)
    thread = await rt.create_thread("p")
    await thread.send("go")
    page = static_html(thread)
    summary = re.search(r"<summary>(.*?)</summary>", page)
    assert summary is not None
    assert "KeyError: &#x27;nope&#x27;" in summary.group(1)


async def test_what_the_notebook_keeps_of_a_view_reads_without_its_kernel(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    from threadlab.widgets._views import VIEW_MIME, WIDGET_MIME

    install(monkeypatch)
    define(registry, tl.models.ScriptedModel([write(1), text("done")]))
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    live = LiveRun(rt, thread, rate=20)
    streaming = live.view._repr_mimebundle_()[0]
    # While the run streams, front ends without threadlab's extension get the widget.
    assert streaming[WIDGET_MIME]["model_id"] == live.view.model_id
    await live.run("go")
    finished = live.view._repr_mimebundle_()[0]
    assert WIDGET_MIME not in finished  # nothing a reopened notebook would look up
    saved = finished[VIEW_MIME]
    assert saved["model_id"] == live.view.model_id
    assert saved["state"]["view"] == "inspector"
    assert saved["state"]["key"] == live.view.key != ""
    assert saved["state"]["trace"]["run"]["status"] == "completed"
    assert saved["state"]["trace"]["cards"] == live.view.trace["cards"]
    assert "threadlab-static" in finished["text/html"]
    assert SECRET not in json.dumps(finished)
    listing = ThreadListView(rt)._repr_mimebundle_()[0]
    assert WIDGET_MIME not in listing
    assert [r["id"] for r in listing[VIEW_MIME]["state"]["rows"]] == [thread.id]
    assert thread.id in listing["text/html"]


async def test_the_list_marks_a_branch_with_the_thread_it_came_from(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    model = tl.models.ScriptedModel([text("one"), text("two")])
    tl.define_prompt("p", prompt="x", model=model, registry=registry)
    thread = await rt.create_thread("p")
    await thread.send("hi")
    branch = await thread.fork(thread.messages[0].id)
    listed = ThreadListView(rt)
    assert {r["id"]: r["forked_from"] for r in listed.rows} == {
        thread.id: None, branch.id: thread.id
    }  # fmt: skip
    assert f"{branch.id}  p  never run  1 messages  (branch of {thread.id})" in repr(listed)
    assert f"branch of <code>{thread.id}</code>" in listed.static_html()


async def test_the_list_shows_notebooks_from_here_and_keeps_their_full_path(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    install(monkeypatch)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")  # the kernel's folder: the notebook's own
    define(registry, tl.models.ScriptedModel([text("ok")]))
    here = str(tmp_path / "work" / "tea.ipynb")
    elsewhere = str(tmp_path / "other" / "coffee.ipynb")
    for origin in (here, elsewhere, "relative.ipynb", "mcp"):
        await rt.create_thread("p", origin=origin)
    rows = ThreadListView(rt).rows
    shown = {r["origin"]: r["notebook"] for r in rows}
    assert shown == {
        here: "tea.ipynb",
        elsewhere: "../other/coffee.ipynb",
        "relative.ipynb": "relative.ipynb",
        "mcp": "an MCP client",
    }
    assert "../other/coffee.ipynb" in ThreadListView(rt).static_html()
    # A notebook's list: its own threads, and the calls MCP clients made of served tools.
    assert sorted(r["origin"] for r in ThreadListView(rt, origin=here).rows) == [here, "mcp"]


async def test_a_card_keeps_its_latest_events_and_counts_the_rest(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A call told thousands of things (live only, as an MCP server's progress is, or stored)
    does not grow its card, nor the notebook saved with it, by as many."""
    install(monkeypatch)

    def chatty(state: tl.ThreadState, args: Any) -> str:
        for n in range(1_000):
            state.emit("tick", {"n": n}, stored=n % 2 == 0)
        state.emit("progress", {"step": 1_000, "of": 1_000})
        return "told"

    tl.define_tool("chatty", description="x", execute=chatty, registry=registry)
    model = tl.models.ScriptedModel([call("chatty", {}, id="c1"), text("ok")])
    tl.define_prompt("p", prompt="x", tools=["chatty"], model=model, registry=registry)
    thread = await rt.create_thread("p")
    live = LiveRun(rt, thread, rate=50)
    await live.run("go")
    card = live.view.state.cards["c1"]
    assert len(card["events"]) == CARD_EVENTS
    assert card["events_dropped"] == 1_001 - CARD_EVENTS  # heard live: every tick
    assert card["events"][-1] == {"type": "progress", "data": {"step": 1_000, "of": 1_000},
                                  "at": card["events"][-1]["at"]}  # fmt: skip
    assert card["events"][0]["data"] == {"n": 1_001 - CARD_EVENTS}
    reopened = replay(thread).cards["c1"]  # stored: every other tick, and the progress
    assert len(reopened["events"]) == CARD_EVENTS
    assert reopened["events_dropped"] == 501 - CARD_EVENTS
    assert f"… {501 - CARD_EVENTS} earlier events not kept" in static_html(thread)
