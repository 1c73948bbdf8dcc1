"""Listing a store's threads a page at a time (`ThreadBrowser.browse_threads`), on SQLite and a
real PostgreSQL alike: newest first, keyset pages, filters by status and origin, and a search
of the words of messages as stored, where the words asked are always data."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from itertools import count
from pathlib import Path

import pytest

import threadlab as tl
from threadlab.store import (
    RunRecord,
    SQLiteStore,
    StoredMessage,
    ThreadBrowser,
    ThreadListing,
    ThreadQuery,
    ThreadRecord,
    open_store,
)

_ids = count()

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

HOSTILE = [
    '" OR 1=1 --',
    "NEAR(",
    "*",
    '"unbalanced',
    "'; DROP TABLE threads; --",
    "body:apples",
    "a:* & !b | (",
    "%_\\",
    "\x00",
    "AND OR NOT",
    "x" * 5000,
]


@pytest.fixture
def store(store_spec: str) -> Iterator[tl.Store]:
    opened = open_store(store_spec)
    yield opened
    opened.close()


def browser(store: tl.Store) -> ThreadBrowser:
    assert isinstance(store, ThreadBrowser)
    return store


def add_thread(
    store: tl.Store,
    at: float,
    *,
    parent: str | None = None,
    meta: str = "{}",
    says: str = "",
    thread_id: str | None = None,
) -> str:
    thread_id = thread_id or f"thr_{next(_ids):06d}"
    store.add_thread(ThreadRecord(thread_id, parent, "helper", at, meta))
    if says:
        add_message(store, thread_id, {"role": "user", "content": says})
    return thread_id


def add_message(store: tl.Store, thread_id: str, message: dict[str, object]) -> None:
    message_id = f"msg_{next(_ids):06d}"
    data = json.dumps({"id": message_id, **message})
    store.add_messages([StoredMessage(f"row_{message_id}", thread_id, 0, data)])


def ids(listings: list[ThreadListing]) -> list[str]:
    return [listing.record.id for listing in listings]


def test_root_threads_are_listed_newest_first_with_one_more_than_a_page(store: tl.Store) -> None:
    made = [add_thread(store, float(at)) for at in (1, 3, 2)]
    add_thread(store, 4.0, parent=made[0])  # a child: reached from its parent, not listed
    listed = browser(store).browse_threads(ThreadQuery(limit=2))
    assert ids(listed) == [made[1], made[2], made[0]]


def test_pages_follow_each_other_without_gaps_or_repeats_among_equal_times(
    store: tl.Store,
) -> None:
    made = [add_thread(store, 5.0) for _ in range(5)] + [add_thread(store, 1.0)]
    seen: list[str] = []
    query = ThreadQuery(limit=2)
    while True:
        listed = browser(store).browse_threads(query)
        seen += ids(listed[:2])
        if len(listed) <= 2:
            break
        query = ThreadQuery(limit=2, after=listed[1].place)
    assert seen == [*reversed(made[:5]), made[5]]


def test_children_of_a_thread_are_listed_when_asked_for(store: tl.Store) -> None:
    parent = add_thread(store, 1.0)
    children = [add_thread(store, at, parent=parent) for at in (2.0, 3.0)]
    listed = browser(store).browse_threads(ThreadQuery(parent_id=parent))
    assert ids(listed) == children[::-1]


def test_the_status_filter_reads_the_last_run(store: tl.Store) -> None:
    failed, completed, never = (add_thread(store, float(at)) for at in (1, 2, 3))
    for run, thread, status, at in (
        ("run_a", failed, "completed", 10.0),
        ("run_b", failed, "failed", 20.0),
        ("run_c", completed, "completed", 10.0),
    ):
        store.start_run(RunRecord(run, thread, "running", 1, "host", at, at))
        store.finish_run(run, status, None, None, at + 2.5)
    b = browser(store)
    assert ids(b.browse_threads(ThreadQuery(status="failed"))) == [failed]
    assert ids(b.browse_threads(ThreadQuery(status="completed"))) == [completed]
    assert ids(b.browse_threads(ThreadQuery(status="never run"))) == [never]
    (listing,) = b.browse_threads(ThreadQuery(status="failed"))
    assert (listing.last_run_status, listing.duration_s, listing.updated_at) == (
        "failed",
        5.0,
        22.5,
    )


def test_origins_are_told_apart_from_what_threads_record(store: tl.Store) -> None:
    made = {
        "notebook": add_thread(store, 1.0, meta='{"origin":"work/a.ipynb"}'),
        "evaluation": add_thread(store, 2.0, meta='{"origin":"eval:first"}'),
        "mcp": add_thread(store, 3.0, meta='{"origin":"mcp"}'),
        "ray": add_thread(store, 4.0, meta='{"runs_on":"engine"}'),
        "script": add_thread(store, 5.0),
    }
    b = browser(store)
    for origin, thread_id in made.items():
        (listing,) = b.browse_threads(ThreadQuery(origin=origin))
        assert (listing.record.id, listing.origin) == (thread_id, origin)


def test_a_damaged_metadata_row_is_listed_as_a_script(store: tl.Store) -> None:
    thread_id = add_thread(store, 1.0, meta="{not json")
    (listing,) = browser(store).browse_threads(ThreadQuery())
    assert (listing.record.id, listing.origin) == (thread_id, "script")


def test_usage_and_cost_add_up_over_the_thread_and_its_descendants(store: tl.Store) -> None:
    root = add_thread(store, 1.0)
    child = add_thread(store, 2.0, parent=root)
    for thread_id, tokens, cost in ((root, 10, 0.25), (root, 5, None), (child, 7, 0.5)):
        add_message(
            store,
            thread_id,
            {
                "role": "assistant",
                "content": "ok",
                "usage": {"input_tokens": tokens},
                "cost_usd": cost,
            },
        )
    (listing,) = browser(store).browse_threads(ThreadQuery())
    assert (listing.usage, listing.cost_usd) == ({"input_tokens": 22}, 0.75)


def test_a_thread_with_no_known_cost_has_none(store: tl.Store) -> None:
    add_thread(store, 1.0, says="hello")
    (listing,) = browser(store).browse_threads(ThreadQuery())
    assert (listing.usage, listing.cost_usd) == ({}, None)


def test_a_search_finds_every_word_as_a_prefix(store: tl.Store) -> None:
    apples = add_thread(store, 1.0, says="Seven green apples, please")
    add_thread(store, 2.0, says="pears only")
    b = browser(store)
    assert ids(b.browse_threads(ThreadQuery(text="apple"))) == [apples]
    assert ids(b.browse_threads(ThreadQuery(text="GREEN apples"))) == [apples]
    assert ids(b.browse_threads(ThreadQuery(text="green pears"))) == []


def test_a_search_finds_what_a_row_shows_its_target_and_the_start_of_its_id(
    store: tl.Store,
) -> None:
    planned = add_thread(store, 1.0, says="nothing of that name", thread_id="thr_5cc0ffee")
    store.add_thread(ThreadRecord("thr_planner1", None, "Planner", 2.0, "{}"))
    b = browser(store)
    assert ids(b.browse_threads(ThreadQuery(text="planner"))) == ["thr_planner1"]
    assert ids(b.browse_threads(ThreadQuery(text="thr_5cc"))) == [planned]
    assert ids(b.browse_threads(ThreadQuery(text="thr%5cc"))) == []  # a pattern is text


def test_a_search_reads_tool_names_and_call_arguments(store: tl.Store) -> None:
    caller = add_thread(store, 1.0)
    add_message(
        store,
        caller,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "c1", "name": "lookup_invoice", "arguments": {"number": "INV77"}}
            ],
        },
    )
    answered = add_thread(store, 2.0)
    add_message(store, answered, {"role": "tool", "content": "done", "name": "send_mail"})
    b = browser(store)
    assert ids(b.browse_threads(ThreadQuery(text="lookup_invoice"))) == [caller]
    assert ids(b.browse_threads(ThreadQuery(text="inv77"))) == [caller]
    assert ids(b.browse_threads(ThreadQuery(text="send_mail"))) == [answered]


def test_a_word_in_a_descendant_lists_its_root(store: tl.Store) -> None:
    root = add_thread(store, 1.0)
    child = add_thread(store, 2.0, parent=root)
    add_thread(store, 3.0, parent=child, says="deep zebra")
    assert ids(browser(store).browse_threads(ThreadQuery(text="zebra"))) == [root]


def test_a_search_combines_with_filters_and_pages(store: tl.Store) -> None:
    made = [add_thread(store, float(at), says="common word") for at in range(5)]
    add_thread(store, 9.0, says="other", meta='{"origin":"mcp"}')
    b = browser(store)
    first = b.browse_threads(ThreadQuery(text="common", limit=2))
    second = b.browse_threads(ThreadQuery(text="common", limit=2, after=first[1].place))
    assert ids(first[:2]) + ids(second[:2]) == made[::-1][:4]
    assert b.browse_threads(ThreadQuery(text="common", origin="mcp")) == []


def test_a_changed_message_is_searched_by_its_new_words(store: tl.Store) -> None:
    thread_id = add_thread(store, 1.0)
    add_message(store, thread_id, {"role": "user", "content": "before"})
    (row,) = store.list_messages(thread_id)
    store.update_message(row.id, json.dumps({"id": "m", "role": "user", "content": "after"}))
    b = browser(store)
    assert ids(b.browse_threads(ThreadQuery(text="after"))) == [thread_id]
    assert b.browse_threads(ThreadQuery(text="before")) == []


@pytest.mark.parametrize("text", HOSTILE)
def test_a_hostile_search_is_data_never_syntax(store: tl.Store, text: str) -> None:
    kept = add_thread(store, 1.0, says='he said " OR 1=1 -- and NEAR( it')
    listed = browser(store).browse_threads(ThreadQuery(text=text))
    assert ids(listed) in ([], [kept])
    assert store.get_thread(kept) is not None


def test_words_found_are_words_of_the_query_only(store: tl.Store) -> None:
    kept = add_thread(store, 1.0, says='he said " OR 1=1 -- and NEAR( it')
    add_thread(store, 2.0, says="nothing alike")
    assert ids(browser(store).browse_threads(ThreadQuery(text='" OR 1=1 --'))) == [kept]


async def test_a_secret_is_never_found_nor_listed(store_spec: str, registry: tl.Registry) -> None:
    from tests.helpers import scripted_prompt

    secret = "hunter2-zq81"
    scripted_prompt(registry, [tl.models.call("echo", {"text": f"use {secret}"}), "done"],
                    tools=["echo"])  # fmt: skip
    tl.define_tool(
        "echo", description="Echo.", execute=lambda s, a: a["text"], args=TEXT, registry=registry
    )
    rt = tl.Runtime(registry, store_spec, secret_key="test-key")
    thread = await rt.create_thread("p", secrets={"API_KEY": secret})
    await thread.send(f"my key is {secret}")
    assert isinstance(rt.store, ThreadBrowser)
    for text in (secret, "hunter2", "zq81"):
        assert rt.store.browse_threads(ThreadQuery(text=text)) == []
    (listing,) = rt.store.browse_threads(ThreadQuery(text="key"))
    assert secret not in repr(listing)
    rt.close()


def test_an_old_store_gets_its_messages_indexed_when_migrated(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    thread_id = add_thread(store, 1.0, says="written before the index")
    store.close()
    db = sqlite3.connect(tmp_path / "threads.sqlite3")
    for trigger in ("added", "removed", "changed"):
        db.execute(f"DROP TRIGGER messages_search_{trigger}")
    db.execute("DROP TABLE messages_search")
    db.execute("DROP INDEX threads_listed")
    db.execute("UPDATE meta SET value = '5' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    migrated = SQLiteStore(tmp_path)
    assert migrated.schema_version == 6
    assert ids(migrated.browse_threads(ThreadQuery(text="index"))) == [thread_id]
    migrated.close()
