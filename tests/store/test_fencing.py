"""Fencing (`threadlab.store.FencingStore`) on both shipped stores: once another store object
takes a thread's lease over, every write the first one makes for its run is refused inside that
write's own transaction, and nothing of it is stored; queuing a message stays anyone's."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from threadlab.store import (
    FencingStore,
    FileRecord,
    LeaseLostError,
    RunRecord,
    SQLiteStore,
    Store,
    StoredEvent,
    StoredMessage,
    ThreadRecord,
    open_store,
)


def lease(run_id: str, thread_id: str = "thr_f") -> RunRecord:
    now = time.time()
    return RunRecord(run_id, thread_id, "running", 1, "host", now, now)


def owned(store: Store, run_id: str, thread_id: str = "thr_f") -> None:
    """Start run `run_id` through `store`, its writes to the thread fenced with its lease."""
    assert isinstance(store, FencingStore)
    with store.transaction():
        store.start_run(lease(run_id, thread_id))
        store.fence(thread_id, run_id)


def rows(store: Store, thread_id: str = "thr_f") -> tuple[int, int, str]:
    messages = len(store.list_messages(thread_id))
    events = len(list(store.iter_events(thread_id)))
    record = store.get_thread(thread_id)
    return messages, events, record.metadata if record else ""


@pytest.fixture
def two(store_spec: str) -> Iterator[tuple[Store, Store]]:
    first, second = open_store(store_spec), open_store(store_spec)
    first.add_thread(ThreadRecord("thr_f", None, "p", 1.0))
    yield first, second
    first.close()
    second.close()


def test_a_run_writes_while_it_holds_the_lease_and_each_epoch_is_new(
    two: tuple[Store, Store],
) -> None:
    owner, _ = two
    owned(owner, "run_a")
    owner.add_messages([StoredMessage("m1", "thr_f", 0, "{}")])
    owner.add_events([StoredEvent("thr_f", "custom", "{}")])
    owner.update_thread_metadata("thr_f", '{"name": "mine"}')
    owner.heartbeat("run_a", time.time())
    assert rows(owner) == (1, 1, '{"name": "mine"}')
    owner.finish_run("run_a", "completed", None, None, time.time())
    owned(owner, "run_b")
    (first,) = owner.running_runs("thr_f")
    assert (first.id, first.epoch) == ("run_b", 3)  # started, ended, started again


def test_every_write_of_a_run_taken_over_is_refused_and_stores_nothing(
    two: tuple[Store, Store],
) -> None:
    owner, other = two
    owned(owner, "run_a")
    owner.enqueue("thr_f", '{"content": "waiting"}')
    # Another process finds the lease stale: it ends the run (a repair) and runs the thread.
    other.finish_run("run_a", "interrupted", None, "owner gone", time.time())
    owned(other, "run_b")
    before = rows(other)
    refused: dict[str, Callable[[], object]] = {
        "a message": lambda: owner.add_messages([StoredMessage("m2", "thr_f", 0, "{}")]),
        "an event": lambda: owner.add_events([StoredEvent("thr_f", "custom", "{}")]),
        "metadata": lambda: owner.update_thread_metadata("thr_f", '{"name": "late"}'),
        "a variable": lambda: owner.set_env("thr_f", "A", "text", b"late"),
        "a file": lambda: owner.put_file("thr_f", FileRecord("/late.txt", 1, "d", 1.0)),
        "a deletion": lambda: owner.delete_file("thr_f", "/late.txt"),
        "the queue": lambda: owner.drain_queue("thr_f"),
        "its oldest message": lambda: owner.pop_queued("thr_f"),
        "a heartbeat": lambda: owner.heartbeat("run_a", time.time()),
        "its end": lambda: owner.finish_run("run_a", "completed", "late", None, time.time()),
        "a child": lambda: owner.add_thread(ThreadRecord("thr_child", "thr_f", "a", 1.0, "{}")),
        "its own message": lambda: fenced_enqueue(owner, "thr_f"),
    }
    for what, write in refused.items():
        with pytest.raises(LeaseLostError, match="taken over by another process") as caught:
            write()
        assert (caught.value.thread_id, caught.value.run_id) == ("thr_f", "run_a"), what
    assert rows(other) == before
    assert other.get_env("thr_f") == {}
    assert other.has_queued("thr_f")  # taking it was refused: it waits for the new run
    (running,) = other.running_runs("thr_f")
    assert running.id == "run_b"
    owner.enqueue("thr_f", '{"content": "for whoever runs it"}')  # queuing is anyone's
    other.heartbeat("run_b", time.time())  # the new owner goes on
    other.add_messages([StoredMessage("m3", "thr_f", 0, "{}")])


def fenced_enqueue(store: Store, thread_id: str) -> None:
    """What a run's own tool does to queue a message to its thread (`state.queue_message`)."""
    assert isinstance(store, FencingStore)
    with store.transaction():
        store.check_fence(thread_id)
        store.enqueue(thread_id, '{"content": "from the run taken over"}')


def test_a_refused_write_rolls_back_its_whole_transaction(two: tuple[Store, Store]) -> None:
    owner, other = two
    owner.add_thread(ThreadRecord("thr_g", None, "p", 1.0))
    owned(owner, "run_a")
    owned(other, "run_b")  # taken over without ending the first run: a newer epoch is enough
    with pytest.raises(LeaseLostError), owner.transaction():
        owner.add_messages([StoredMessage("m_other", "thr_g", 0, "{}")])  # another thread
        owner.add_messages([StoredMessage("m_late", "thr_f", 0, "{}")])
    assert owner.list_messages("thr_g") == []


def test_a_run_no_longer_fenced_writes_as_anyone(two: tuple[Store, Store]) -> None:
    owner, other = two
    owned(owner, "run_a")
    owned(other, "run_b")
    assert isinstance(owner, FencingStore)
    owner.unfence("run_a")  # its run is over here: what this process writes now is no run's
    owner.update_thread_metadata("thr_f", '{"name": "renamed"}')
    assert rows(other)[2] == '{"name": "renamed"}'


def test_a_version_3_store_is_migrated_and_its_running_runs_repaired(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    store.add_thread(ThreadRecord("thr_f", None, "p", 1.0))
    store.start_run(lease("run_old"))
    store.close()
    db = sqlite3.connect(tmp_path / "threads.sqlite3")
    db.execute("ALTER TABLE runs DROP COLUMN epoch")  # what version 3 wrote
    db.execute("DROP TABLE leases")
    db.execute("ALTER TABLE threads DROP COLUMN member")
    db.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    migrated = SQLiteStore(tmp_path)
    assert migrated.schema_version == 6
    (old,) = migrated.running_runs("thr_f")
    assert (old.id, old.epoch) == ("run_old", None)  # started before fencing: not fenced
    migrated.finish_run("run_old", "interrupted", None, "owner gone", 2.0)
    owned(migrated, "run_new")
    (new,) = migrated.running_runs("thr_f")
    assert new.epoch == 1
    migrated.close()


def test_on_postgres_a_takeover_waits_for_a_fenced_write_in_progress(postgres_url: str) -> None:
    owner, other = open_store(postgres_url), open_store(postgres_url)
    owner.add_thread(ThreadRecord("thr_f", None, "p", 1.0))
    owned(owner, "run_a")
    checked, taken = threading.Event(), threading.Event()

    def take_over() -> None:
        checked.wait(5)
        other.finish_run("run_a", "interrupted", None, "owner gone", time.time())
        taken.set()

    taker = threading.Thread(target=take_over)
    taker.start()
    with owner.transaction():
        owner.add_messages([StoredMessage("m1", "thr_f", 0, "{}")])  # checked: the row held
        checked.set()
        # The takeover's update of the lease row waits for this transaction to end.
        assert not taken.wait(0.5)
        owner.add_events([StoredEvent("thr_f", "custom", "{}")])
    taker.join(5)
    assert taken.is_set()
    assert rows(other)[:2] == (1, 1)  # committed while it held the lease: kept
    with pytest.raises(LeaseLostError):
        owner.add_messages([StoredMessage("m2", "thr_f", 0, "{}")])
    owner.close()
    other.close()
