"""One bad row must not break listing: what can be read is listed, and the damage is reported
by thread id."""

from __future__ import annotations

import logging

import pytest

import threadlab as tl
from threadlab.models import text
from threadlab.store import StoredMessage
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
