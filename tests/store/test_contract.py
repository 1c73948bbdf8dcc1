"""The store contract, on SQLite and on a real PostgreSQL server alike: what a runtime writes
a new runtime reads back; transactions are all or nothing; stores on one database see each
other's writes; upserts replace; blobs are shared by content; schema versions are checked."""

from __future__ import annotations

import json
import threading

import pytest

import threadlab as tl
from threadlab.models import call, text
from threadlab.store import (
    FileRecord,
    PostgresStore,
    RunRecord,
    Store,
    StoredEvent,
    StoredMessage,
    ThreadRecord,
    open_store,
)


def a_store(spec: str) -> Store:
    return open_store(spec)


async def test_a_new_runtime_on_the_same_store_sees_everything(
    registry: tl.Registry, store_spec: str
) -> None:
    tl.define_tool("ok", description="x", execute=lambda s, a: "fine", registry=registry)
    model = tl.models.ScriptedModel([call("ok"), text("bye")])
    tl.define_prompt("p", prompt="x", tools=["ok"], registry=registry, model=model)
    first = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await first.create_thread("p", env={"REGION": "eu"}, secrets={"KEY": "s3cret-value"})
    await thread.send("hello")
    await thread.files.write("/a.txt", "content")
    messages, events = thread.messages, thread.events
    first.close()

    second = tl.Runtime(registry, store_spec, secret_key="k")
    (reopened,) = second.threads()
    assert reopened.id == thread.id
    assert reopened.messages == messages
    assert [e.model_dump() for e in reopened.events] == [e.model_dump() for e in events]
    assert await reopened.files.read("/a.txt") == b"content"
    assert second.store.get_env(thread.id)["REGION"] == ("text", b"eu")
    kind, sealed = second.store.get_env(thread.id)["KEY"]
    assert kind == "secret"
    assert sealed is not None
    assert b"s3cret-value" not in sealed  # encrypted at rest
    (summary,) = second.store.summarize_threads()
    assert (summary.messages, summary.children, summary.last_run_status) == (
        len(messages),
        0,
        "completed",
    )
    second.close()


def test_threads_are_listed_newest_first_and_children_in_order(store_spec: str) -> None:
    store = a_store(store_spec)
    for index, name in enumerate(["a", "b", "c"]):
        store.add_thread(ThreadRecord(f"thr_{name}", None, "p", 100.0 + index))
    store.add_thread(ThreadRecord("thr_tie", None, "p", 102.0))  # same time as c: added later
    for name in ["k2", "k1"]:
        store.add_thread(ThreadRecord(f"thr_{name}", "thr_a", "p", 50.0))
    assert [t.id for t in store.list_threads()][:4] == ["thr_tie", "thr_c", "thr_b", "thr_a"]
    assert [t.id for t in store.list_children("thr_a")] == ["thr_k2", "thr_k1"]
    assert [s.record.id for s in store.summarize_threads()] == [
        "thr_tie",
        "thr_c",
        "thr_b",
        "thr_a",
    ]
    store.close()


def test_a_failed_transaction_writes_nothing(store_spec: str) -> None:
    store = a_store(store_spec)
    with pytest.raises(RuntimeError), store.transaction():
        store.enqueue("t1", "a")
        store.add_thread(ThreadRecord("thr_x", None, "p", 1.0))
        raise RuntimeError("abort")
    assert store.drain_queue("t1") == []
    assert store.get_thread("thr_x") is None
    store.close()


def test_messages_are_counted_per_thread_as_listed(store_spec: str) -> None:
    one, two = a_store(store_spec), a_store(store_spec)
    assert one.count_messages("thr_m") == 0
    one.add_messages([StoredMessage(f"m{i}", "thr_m", i % 2, "{}") for i in range(3)])
    one.add_messages([StoredMessage("other", "thr_n", 0, "{}")])
    assert two.count_messages("thr_m") == len(two.list_messages("thr_m")) == 3
    assert two.count_messages("thr_n") == 1
    one.close()
    two.close()


def test_two_stores_on_one_database_see_each_others_writes(store_spec: str) -> None:
    one, two = a_store(store_spec), a_store(store_spec)
    one.enqueue("t", "from one")
    one.enqueue("t", "again")
    assert two.has_queued("t")
    assert two.drain_queue("t") == ["from one", "again"]
    assert one.drain_queue("t") == []
    one.close()
    two.close()


def test_upserts_replace_and_blobs_are_shared_by_content(store_spec: str) -> None:
    store = a_store(store_spec)
    store.set_env("t", "A", "text", b"1")
    store.set_env("t", "A", "secret", b"2")
    assert store.get_env("t") == {"A": ("secret", b"2")}
    store.put_blob("d1", b"\x00\xffbinary")
    store.put_blob("d1", b"\x00\xffbinary")
    assert store.get_blob("d1") == b"\x00\xffbinary"
    assert store.get_blob("nope") is None
    store.put_file("t", FileRecord("/a/b.txt", 3, "d1", 1.0))
    store.put_file("t", FileRecord("/a/b.txt", 9, "d1", 2.0))
    store.put_file("t", FileRecord("/a%c.txt", 1, "d1", 2.0))  # % must not confuse SQL
    store.put_file("t", FileRecord("/z.txt", 1, "d1", 3.0))
    assert store.get_file("t", "/a/b.txt") == FileRecord("/a/b.txt", 9, "d1", 2.0)
    assert [f.path for f in store.list_files("t", "/a")] == ["/a%c.txt", "/a/b.txt"]
    assert store.delete_file("t", "/z.txt")
    assert not store.delete_file("t", "/z.txt")
    store.close()


def test_leases_start_beat_and_finish(store_spec: str) -> None:
    store = a_store(store_spec)
    store.start_run(RunRecord("run_1", "t", "running", 42, "host", 1.0, 1.0, owner_started=0.5))
    store.heartbeat("run_1", 5.0)
    (lease,) = store.running_runs("t")
    assert (lease.heartbeat, lease.owner_started, lease.owner_pid) == (5.0, 0.5, 42)
    store.finish_run("run_1", "completed", "done", None, 6.0)
    assert store.running_runs("t") == []
    store.close()


def test_a_url_no_store_understands_is_an_error_never_a_folder(tmp_path_factory: object) -> None:
    with pytest.raises(tl.StoreURLError, match=r"no store understands mysql:// URLs"):
        tl.Runtime(tl.Registry(), "mysql://localhost/db")
    with pytest.raises(ValueError, match="postgresql://"):
        open_store("sqlite://x")


def test_postgres_versions_migrations_and_wake_ups(postgres_url: str) -> None:
    import psycopg

    store = PostgresStore(postgres_url)
    assert store.schema_version == 3
    store.add_thread(ThreadRecord("thr_old", None, "p", 1.0))
    store.start_run(RunRecord("run_old", "thr_old", "running", 123, "host", 2.0, 2.0))
    store.close()
    with psycopg.connect(postgres_url, autocommit=True) as db:
        # What version 1 wrote: no owner_started column.
        db.execute("ALTER TABLE runs DROP COLUMN owner_started")
        db.execute("DROP TABLE env_log")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    migrated = PostgresStore(postgres_url)
    assert migrated.schema_version == 3
    migrated.set_env("thr_old", "REGION", "text", b"eu")  # the env log is there
    assert migrated.get_env("thr_old", before=10**9) == {"REGION": ("text", b"eu")}
    (run,) = migrated.running_runs("thr_old")
    assert (run.id, run.owner_pid, run.owner_started) == ("run_old", 123, None)

    # Queuing a message notifies listeners, on commit.
    with psycopg.connect(postgres_url, autocommit=True) as listener:
        listener.execute("LISTEN threadlab_queue")
        migrated.enqueue("thr_old", json.dumps({"content": "hi"}))
        (note,) = list(listener.notifies(timeout=5, stop_after=1))
        assert (note.channel, note.payload) == ("threadlab_queue", "thr_old")
    migrated.close()

    with psycopg.connect(postgres_url, autocommit=True) as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(tl.StoreVersionError, match="upgrade threadlab"):
        PostgresStore(postgres_url)


def test_opening_a_current_store_waits_for_no_writer(store_spec: str) -> None:
    # A worker starting while others run: its store must open without touching the schema
    # (on PostgreSQL, re-running `CREATE INDEX IF NOT EXISTS` waited for, or deadlocked with,
    # the writers' transactions).
    first = a_store(store_spec)
    opened = threading.Event()

    def open_another() -> None:
        store = a_store(store_spec)
        opened.set()
        store.close()

    with first.transaction():
        first.add_thread(ThreadRecord("thr_busy", None, "p", 1.0))
        first.add_messages([StoredMessage("msg_busy", "thr_busy", 0, "{}")])
        opener = threading.Thread(target=open_another)
        opener.start()
        assert opened.wait(10), "opening the store waited for a writer's transaction"
    opener.join(10)
    assert [t.id for t in first.list_threads()] == ["thr_busy"]
    first.close()


def test_an_unreachable_postgres_is_a_clear_error() -> None:
    with pytest.raises(tl.ThreadlabError, match="cannot open the PostgreSQL store"):
        PostgresStore("postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")


async def test_a_queued_message_wakes_a_watcher_on_another_connection(postgres_url: str) -> None:
    import asyncio

    owner, sender = PostgresStore(postgres_url), PostgresStore(postgres_url)
    loop = asyncio.get_running_loop()
    woken: asyncio.Queue[str] = asyncio.Queue()

    def heard(thread_id: str) -> None:
        loop.call_soon_threadsafe(woken.put_nowait, thread_id)

    stop = owner.watch_queue(heard)
    await asyncio.to_thread(sender.enqueue, "thr_a", "{}")
    assert await asyncio.wait_for(woken.get(), 5) == "thr_a"
    stop()
    await asyncio.to_thread(sender.enqueue, "thr_b", "{}")
    await asyncio.sleep(0.5)
    assert woken.empty()  # stopped: told nothing more
    owner.close()
    sender.close()


def test_sqlite_cannot_be_told_so_a_watch_is_a_no_op(store_dir: object) -> None:
    store = open_store(str(store_dir))
    calls: list[str] = []
    stop = store.watch_queue(calls.append)
    store.enqueue("t", "{}")
    stop()
    assert calls == []
    store.close()


def test_two_drainers_never_get_the_same_message(store_spec: str) -> None:
    import threading

    one, two = a_store(store_spec), a_store(store_spec)
    sent = [f"m{i}" for i in range(200)]
    for message in sent:
        one.enqueue("t", message)
    got: list[list[str]] = [[], []]

    def drain(store: Store, into: list[str]) -> None:
        for _ in range(20):
            into.extend(store.drain_queue("t"))

    workers = [
        threading.Thread(target=drain, args=(s, g)) for s, g in zip((one, two), got, strict=True)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert sorted(got[0] + got[1]) == sorted(sent)  # each message once, none lost
    assert got[0] == sorted(got[0], key=sent.index)  # in the order they were queued
    one.close()
    two.close()


def test_locking_a_thread_holds_other_lockers_of_that_thread_only(postgres_url: str) -> None:
    import threading
    import time

    holder, waiter = PostgresStore(postgres_url), PostgresStore(postgres_url)
    entered = threading.Event()
    release = threading.Event()
    timings: dict[str, float] = {}

    def hold() -> None:
        with holder.transaction():
            holder.lock_thread("thr_a")
            entered.set()
            release.wait(5)
            timings["released"] = time.monotonic()

    thread = threading.Thread(target=hold)
    thread.start()
    entered.wait(5)
    with waiter.transaction():
        waiter.lock_thread("thr_b")  # another thread's lock: not held up
    timer = threading.Timer(0.3, release.set)
    timer.start()
    with waiter.transaction():
        waiter.lock_thread("thr_a")
        timings["acquired"] = time.monotonic()
    thread.join()
    assert timings["acquired"] >= timings["released"]
    holder.close()
    waiter.close()


def test_events_after_a_place_are_those_not_read_yet(store_spec: str) -> None:
    store = a_store(store_spec)
    with store.transaction():
        store.add_thread(ThreadRecord("thr_a", None, "p", created_at=1.0))
        store.add_thread(ThreadRecord("thr_b", None, "p", created_at=2.0))
        store.add_events([StoredEvent("thr_a", "custom", '{"n": 1}')])
        store.add_events([StoredEvent("thr_b", "custom", '{"n": 2}')])
        store.add_events([StoredEvent("thr_a", "custom", '{"n": 3}')])
    first = list(store.iter_events("thr_a"))
    assert [e.data for e in first] == ['{"n": 1}', '{"n": 3}']
    after = list(store.iter_events("thr_a", after=first[0].seq))
    assert [e.data for e in after] == ['{"n": 3}']
    assert list(store.iter_events("thr_a", after=first[-1].seq)) == []
    store.close()
