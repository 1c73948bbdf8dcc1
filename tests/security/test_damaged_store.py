"""One bad row must not break listing: what can be read is listed, and the damage is reported
by thread id."""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import text
from threadlab.store import SQLiteStore, StoredEvent, StoredMessage
from threadlab.widgets import ThreadListView

from ..helpers import scripted_prompt
from ..widgets.fake_comm import install


async def test_damaged_rows_are_left_out_and_reported(
    rt: tl.Runtime, registry: tl.Registry, caplog: pytest.LogCaptureFixture
) -> None:
    scripted_prompt(registry, [text("one"), text("two"), text("three")])
    good = await rt.create_thread("p")
    await good.send("hello")
    bad_messages = await rt.create_thread("p")
    await bad_messages.send("hello")
    bad_meta = await rt.create_thread("p")
    await bad_meta.send("hello")
    rt.store.add_messages([StoredMessage("msg_broken", bad_messages.id, 0, "{not json")])
    rt.store.update_thread_metadata(bad_meta.id, "[1, 2")
    fresh = tl.Runtime(registry, rt.store)  # reads everything from the store again
    with caplog.at_level(logging.WARNING, logger="threadlab.store"):
        listed = {t.id: t for t in fresh.threads()}
        assert set(listed) == {good.id, bad_messages.id, bad_meta.id}
        assert [m.role for m in listed[bad_messages.id].messages] == ["user", "assistant"]
        assert listed[bad_messages.id].damage == [
            "message msg_broken cannot be read and is left out"
        ]
        assert listed[bad_meta.id].agent == "p"
        assert listed[bad_meta.id].damage == ["its metadata cannot be read; defaults are used"]
        assert listed[good.id].damage == []
    assert f"thread {bad_messages.id} is damaged" in caplog.text
    assert f"thread {bad_meta.id} is damaged" in caplog.text


async def test_the_thread_list_lists_and_opens_a_damaged_thread(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)  # a comm that records, instead of a kernel's
    scripted_prompt(registry, [text("one")])
    thread = await rt.create_thread("p")
    await thread.send("hello")
    rt.store.add_messages([StoredMessage("msg_broken", thread.id, 0, "{not json")])
    view = ThreadListView(tl.Runtime(registry, rt.store))
    (row,) = view.rows
    assert (row["id"], row["status"]) == (thread.id, "completed")
    opened = view.open_thread(thread.id)  # and it opens, showing what can be read
    assert [m["role"] for m in opened.messages[thread.id]] == ["user", "assistant"]


@pytest.mark.parametrize("loop", ["itself", "its child"])
async def test_a_thread_whose_parents_form_a_loop_is_a_store_error_and_the_rest_lists(
    registry: tl.Registry, store_dir: Path, loop: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    install(monkeypatch)
    scripted_prompt(registry, [text("one"), text("two"), text("three")])
    rt = tl.Runtime(registry, store_dir)
    looped, child, good = [await rt.create_thread("p") for _ in range(3)]
    for thread in (looped, good):
        await thread.send("hello")
    path = rt.store.path  # type: ignore[attr-defined]
    rt.close()
    parent_of_looped = looped.id if loop == "itself" else child.id
    with sqlite3.connect(path) as db:  # damaged rows: a loop of parents
        db.execute("UPDATE threads SET parent_id = ? WHERE id = ?", (parent_of_looped, looped.id))
        db.execute("UPDATE threads SET parent_id = ? WHERE id = ?", (looped.id, child.id))
    fresh = tl.Runtime(registry, store_dir)
    with pytest.raises(tl.StoreError, match="its parents form a loop") as raised:
        fresh.thread(looped.id)
    assert f"thread {looped.id!r} cannot be opened" in str(raised.value)
    assert [t.id for t in fresh.threads()] == [good.id]  # the rest lists, and opens
    assert [row["id"] for row in ThreadListView(fresh).rows] == [good.id]
    fresh.close()


def test_a_file_that_is_no_store_is_a_store_error_naming_it(
    registry: tl.Registry, store_dir: Path
) -> None:
    store_dir.mkdir(parents=True)
    (store_dir / "threads.sqlite3").write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(tl.StoreError, match="is not a threadlab store or its header is dam"):
        tl.Runtime(registry, store_dir)
    with pytest.raises(tl.StoreError) as raised:
        tl.Runtime(registry, store_dir)
    assert str((store_dir / "threads.sqlite3").resolve()) in str(raised.value)
    assert "move the file aside" in str(raised.value)


async def test_a_damaged_page_is_a_store_error_not_a_sqlite_one(
    registry: tl.Registry, store_dir: Path
) -> None:
    scripted_prompt(registry, [text(f"answer {n} " + "x" * 3000) for n in range(40)])
    rt = tl.Runtime(registry, store_dir)
    thread = await rt.create_thread("p")
    for n in range(20):
        await thread.send(f"message {n} " + "y" * 3000)
    rt.close()  # the last connection checkpoints: the rows are in the file itself
    path = store_dir / "threads.sqlite3"
    data = bytearray(path.read_bytes())
    assert len(data) > 16 * 4096
    data[4 * 4096 : 12 * 4096] = b"\xa5" * (8 * 4096)  # pages 5-12: the tables' own pages
    path.write_bytes(bytes(data))
    with pytest.raises(tl.StoreError, match="is damaged") as raised:
        again = tl.Runtime(registry, store_dir)
        opened = again.thread(thread.id)
        _ = opened.messages
        await opened.send("one more")
    assert not isinstance(raised.value, sqlite3.Error)
    assert str(path.resolve()) in str(raised.value)


async def test_a_full_disk_is_a_store_error_and_loses_what_was_stored(
    registry: tl.Registry, store_dir: Path
) -> None:
    scripted_prompt(registry, [text("first"), text("second " + "z" * 20_000), text("third")])
    rt = tl.Runtime(registry, store_dir)
    thread = await rt.create_thread("p")
    await thread.send("hello")
    store = rt.store
    assert isinstance(store, SQLiteStore)
    (pages,) = store._db.execute("PRAGMA page_count").fetchone()
    store._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite's own "disk is full"
    with pytest.raises(tl.StoreError, match="is full: free some space"):
        await thread.send("a long answer, please")
    store._db.execute("PRAGMA max_page_count = 1073741823")
    again = tl.Runtime(registry, store_dir).thread(thread.id)
    assert [m.content for m in again.messages][:2] == ["hello", "first"]  # nothing lost
    rt.close()


async def test_a_damaged_row_leaves_the_other_steps_and_spans(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # Steps and traces read the rows steps are made of: one that cannot be read is left out,
    # the others are read as they were.
    scripted_prompt(registry, [text("one"), text("two")])
    thread = await rt.create_thread("p")
    await thread.send("hello")
    before = [(s.kind, s.id, s.status) for s in thread.steps()]
    rt.store.add_events([StoredEvent(thread.id, "message_created", "{not json")])
    rt.store.add_events([StoredEvent(thread.id, "tool_call_started", '{"type": "nope"}')])
    rt.store.add_messages([StoredMessage("msg_broken", thread.id, 0, "{not json")])
    fresh = tl.Runtime(registry, rt.store).thread(thread.id)
    assert [(s.kind, s.id, s.status) for s in fresh.steps()] == before
    await fresh.send("again")  # and the thread goes on
    assert [s.kind for s in fresh.steps()] == ["model", "model"]
    pytest.importorskip("opentelemetry.sdk", reason="the otel extra")
    from threadlab.otel import thread_spans

    names = [span.name for span in thread_spans(fresh)]
    assert names.count("chat scripted") == 2


@pytest.mark.parametrize(
    ("assistant", "finished", "at"),
    [
        ({}, {"traceback": "\n"}, None),  # a traceback with no line
        ({"request": {"after": None, "tools": [{"description": "no name"}]}}, {}, None),
        ({"request": {"after": None, "tools": [], "parameters": {"stop": 5}}}, {}, None),
        ({"request": {"after": "SELF", "tools": []}}, {}, None),  # a request after itself
        ({}, {}, 1e300),  # a time past any date
        ({}, {"duration_ms": -1e305}, None),
    ],
)
async def test_a_damaged_step_is_read_explained_and_traced_without_an_error(
    rt: tl.Runtime,
    registry: tl.Registry,
    assistant: dict[str, Any],
    finished: dict[str, Any],
    at: float | None,
) -> None:
    # Rows a damaged (or hostile) store holds: every reader of the history reads on (a request
    # that names itself as the step before it looped, growing, until memory ran out).
    pytest.importorskip("opentelemetry.sdk", reason="the otel extra")
    from threadlab.otel import thread_spans

    scripted_prompt(registry, [text("one")])
    thread = await rt.create_thread("p")
    await thread.send("hello")
    when = at if at is not None else time.time()
    base = {"thread_id": thread.id, "at": when}
    request = assistant.get("request")
    if request is not None and request["after"] == "SELF":
        assistant = {"request": {**request, "after": "msg_damaged_a"}}
    rt.store.add_messages([
        StoredMessage("msg_damaged_a", thread.id, 0, json.dumps(
            {"id": "msg_damaged_a", "role": "assistant", **assistant,
             "tool_calls": [{"id": "z1", "name": "note", "arguments": {}}]})),
        StoredMessage("msg_damaged_t", thread.id, 0, json.dumps(
            {"id": "msg_damaged_t", "role": "tool", "tool_call_id": "z1", "content": "boom",
             "tool_status": "error"})),
    ])  # fmt: skip
    rt.store.add_events([
        StoredEvent(thread.id, kind, json.dumps({**base, "type": kind, **fields}))
        for kind, fields in [
            ("thread_status", {"status": "running"}),
            ("message_created", {"message_id": "msg_damaged_a", "role": "assistant"}),
            ("tool_call_finished", {"tool_call_id": "z1", "name": "note", "status": "error",
                                    "duration_ms": 1.0, **finished}),
            ("message_created", {"message_id": "msg_damaged_t", "role": "tool"}),
            ("run_finished", {"run_id": "run_damaged", "status": "completed"}),
        ]
    ])  # fmt: skip
    fresh = tl.Runtime(registry, rt.store).thread(thread.id)
    assert [s.kind for s in fresh.steps()][-2:] == ["model", "tool_call"]
    assert "boom" in tl.explain(fresh)
    for content in (False, True):
        names = [span.name for span in thread_spans(fresh, include_content=content)]
        assert "execute_tool note" in names
