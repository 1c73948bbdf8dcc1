"""The store contract as a pytest test class: a store passes it when a runtime's writes are
read back by a new runtime, transactions are all or nothing, two store objects on one
location see each other's writes, upserts replace, blobs are shared by content, leases start,
beat and finish, queues hand each message out once, and events are read from a place on."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import threadlab as tl
from threadlab.store import (
    FileRecord,
    MessageCounter,
    RunRecord,
    Store,
    StoredEvent,
    StoredMessage,
    ThreadRecord,
)

__all__ = ["StoreContract"]


class StoreContract:
    """Subclass it in a test module and say how to open your store; pytest runs each check
    against it. `open_store` must give a new store object on the same data each time it is
    called within one test (two of them stand for two processes), and empty data in each
    test.

    Examples:
        ```python
        from threadlab.testing import StoreContract

        class TestMyStore(StoreContract):
            def setup_method(self):
                self.url = f"mystore://{tempfile.mkdtemp()}"

            def open_store(self):
                return MyStore(self.url)
        ```
    """

    def open_store(self) -> Store:
        """A new store object on this test's data."""
        raise NotImplementedError("a StoreContract subclass says how to open its store")

    @contextmanager
    def _opened(self, count: int = 1) -> Iterator[list[Store]]:
        stores = [self.open_store() for _ in range(count)]
        try:
            yield stores
        finally:
            for store in stores:
                store.close()

    def test_a_new_runtime_on_the_same_store_sees_everything(self) -> None:
        asyncio.run(self._written_then_read_back())

    async def _written_then_read_back(self) -> None:
        registry = tl.Registry()
        tl.define_tool("ok", description="x", execute=lambda s, a: "fine", registry=registry)
        model = tl.models.ScriptedModel([tl.models.call("ok"), tl.models.text("bye")])
        tl.define_prompt("p", prompt="x", tools=["ok"], registry=registry, model=model)
        first = tl.Runtime(registry, self.open_store(), secret_key="k")
        thread = await first.create_thread(
            "p", env={"REGION": "eu"}, secrets={"KEY": "s3cret-value"}
        )
        await thread.send("hello")
        await thread.files.write("/a.txt", "content")
        messages, events = thread.messages, thread.events
        first.close()

        second = tl.Runtime(registry, self.open_store(), secret_key="k")
        try:
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
        finally:
            second.close()

    def test_threads_are_listed_newest_first_and_children_in_order(self) -> None:
        with self._opened() as (store,):
            for index, name in enumerate(["a", "b", "c"]):
                store.add_thread(ThreadRecord(f"thr_{name}", None, "p", 100.0 + index))
            store.add_thread(ThreadRecord("thr_tie", None, "p", 102.0))  # as c's, added later
            for name in ["k2", "k1"]:
                store.add_thread(ThreadRecord(f"thr_{name}", "thr_a", "p", 50.0))
            newest = ["thr_tie", "thr_c", "thr_b", "thr_a"]
            assert [t.id for t in store.list_threads()][:4] == newest
            assert [t.id for t in store.list_children("thr_a")] == ["thr_k2", "thr_k1"]
            assert [s.record.id for s in store.summarize_threads()] == newest

    def test_a_failed_transaction_writes_nothing(self) -> None:
        with self._opened() as (store,):
            try:
                with store.transaction():
                    store.enqueue("t1", "a")
                    store.add_thread(ThreadRecord("thr_x", None, "p", 1.0))
                    raise _Abort
            except _Abort:
                pass
            assert store.drain_queue("t1") == []
            assert store.get_thread("thr_x") is None

    def test_messages_are_counted_per_thread_as_listed(self) -> None:
        with self._opened(2) as (one, two):
            one.add_messages([StoredMessage(f"m{i}", "thr_m", i % 2, "{}") for i in range(3)])
            one.add_messages([StoredMessage("other", "thr_n", 0, "{}")])
            assert len(two.list_messages("thr_m")) == 3
            if isinstance(two, MessageCounter):  # a capability a store may lack
                assert two.count_messages("thr_m") == 3
                assert two.count_messages("thr_n") == 1
                assert two.count_messages("thr_none") == 0

    def test_messages_after_a_row_are_those_added_since(self) -> None:
        with self._opened(2) as (one, two):
            one.add_messages([StoredMessage(f"m{i}", "thr_m", 0, "{}") for i in range(2)])
            one.add_messages([StoredMessage("other", "thr_n", 0, "{}")])
            one.add_messages([StoredMessage("m2", "thr_m", 1, "{}")])
            assert [m.id for m in two.list_messages("thr_m", after="m0")] == ["m1", "m2"]
            assert two.list_messages("thr_m", after="m2") == []
            assert [m.id for m in two.list_messages("thr_n", after=None)] == ["other"]

    def test_two_stores_on_one_location_see_each_others_writes(self) -> None:
        with self._opened(2) as (one, two):
            one.enqueue("t", "from one")
            one.enqueue("t", "again")
            assert two.has_queued("t")
            assert two.drain_queue("t") == ["from one", "again"]
            assert one.drain_queue("t") == []

    def test_upserts_replace_and_blobs_are_shared_by_content(self) -> None:
        with self._opened() as (store,):
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

    def test_leases_start_beat_and_finish(self) -> None:
        with self._opened() as (store,):
            lease = RunRecord("run_1", "t", "running", 42, "host", 1.0, 1.0, owner_started=0.5)
            store.start_run(lease)
            store.heartbeat("run_1", 5.0)
            (held,) = store.running_runs("t")
            assert (held.heartbeat, held.owner_started, held.owner_pid) == (5.0, 0.5, 42)
            store.finish_run("run_1", "completed", "done", None, 6.0)
            assert store.running_runs("t") == []

    def test_opening_the_store_waits_for_no_writer(self) -> None:
        # A worker starting while others run: its store must open without waiting for the
        # writers' transactions (or deadlocking with them).
        opened = threading.Event()

        def open_another() -> None:
            self.open_store().close()
            opened.set()

        with self._opened() as (first,):
            with first.transaction():
                first.add_thread(ThreadRecord("thr_busy", None, "p", 1.0))
                first.add_messages([StoredMessage("msg_busy", "thr_busy", 0, "{}")])
                opener = threading.Thread(target=open_another)
                opener.start()
                assert opened.wait(10), "opening the store waited for a writer's transaction"
            opener.join(10)
            assert [t.id for t in first.list_threads()] == ["thr_busy"]

    def test_two_drainers_never_get_the_same_message(self) -> None:
        with self._opened(2) as stores:
            sent = [f"m{i}" for i in range(200)]
            for message in sent:
                stores[0].enqueue("t", message)
            got: list[list[str]] = [[], []]

            def drain(store: Store, into: list[str]) -> None:
                for _ in range(20):
                    into.extend(store.drain_queue("t"))

            workers = [
                threading.Thread(target=drain, args=(s, g))
                for s, g in zip(stores, got, strict=True)
            ]
            for worker in workers:
                worker.start()
            for worker in workers:
                worker.join()
            assert sorted(got[0] + got[1]) == sorted(sent)  # each message once, none lost
            assert got[0] == sorted(got[0], key=sent.index)  # in the order they were queued

    def test_events_after_a_place_are_those_not_read_yet(self) -> None:
        with self._opened() as (store,):
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


class _Abort(Exception):
    """Raised inside a transaction to roll it back."""
