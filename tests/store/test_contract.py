"""The store contract (`threadlab.testing.StoreContract`) on SQLite and on a real PostgreSQL
server alike, and what only the shipped stores promise: URLs, schema versions and
migrations, wake-ups, thread locks."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

import threadlab as tl
from threadlab.store import (
    PostgresStore,
    RunRecord,
    Store,
    ThreadRecord,
    open_store,
)
from threadlab.testing import StoreContract


def a_store(spec: str) -> Store:
    return open_store(spec)


def test_a_url_no_store_understands_is_an_error_never_a_folder(tmp_path_factory: object) -> None:
    with pytest.raises(tl.StoreURLError, match=r"no store understands mysql:// URLs"):
        tl.Runtime(tl.Registry(), "mysql://localhost/db")
    with pytest.raises(ValueError, match="postgresql://"):
        open_store("sqlite://x")


def test_postgres_versions_migrations_and_wake_ups(postgres_url: str) -> None:
    import psycopg

    store = PostgresStore(postgres_url)
    assert store.schema_version == 6
    store.add_thread(ThreadRecord("thr_old", None, "p", 1.0))
    store.start_run(RunRecord("run_old", "thr_old", "running", 123, "host", 2.0, 2.0))
    store.close()
    with psycopg.connect(postgres_url, autocommit=True) as db:
        # What version 1 wrote: no owner_started column.
        db.execute("ALTER TABLE runs DROP COLUMN owner_started")
        db.execute("DROP TABLE env_log")
        db.execute("ALTER TABLE runs DROP COLUMN epoch")
        db.execute("DROP TABLE leases")
        db.execute("DROP INDEX threads_member")
        db.execute("ALTER TABLE threads DROP COLUMN member")
        db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    migrated = PostgresStore(postgres_url)
    assert migrated.schema_version == 6
    assert migrated.get_thread("thr_old") == ThreadRecord("thr_old", None, "p", 1.0)
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


def test_locking_a_thread_holds_other_lockers_of_that_thread_only(postgres_url: str) -> None:
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


class TestStoreContract(StoreContract):
    """The contract third-party stores run (`threadlab.testing.StoreContract`), on both
    shipped stores: a new store object per `open_store`, on one location per test."""

    @pytest.fixture(autouse=True)
    def _location(self, store_spec: str) -> None:
        self.spec = store_spec

    def open_store(self) -> Store:
        return open_store(self.spec)


class Forgetful(StoreContract):
    """A store that loses what an earlier store object wrote: the contract must fail it."""

    def __init__(self, tmp: str) -> None:
        self.tmp, self.opened = tmp, 0

    def open_store(self) -> Store:
        self.opened += 1
        return open_store(f"{self.tmp}/{self.opened}")


def test_the_contract_fails_a_store_that_loses_writes(tmp_path: Path) -> None:
    contract = Forgetful(str(tmp_path))
    with pytest.raises(AssertionError):
        contract.test_two_stores_on_one_location_see_each_others_writes()
    with pytest.raises((AssertionError, ValueError)):
        contract.test_a_new_runtime_on_the_same_store_sees_everything()
