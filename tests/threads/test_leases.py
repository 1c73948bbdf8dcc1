"""Run leases: which runs this process holds is kept per store location."""

from __future__ import annotations

from pathlib import Path

import pytest

import threadlab as tl
from threadlab.threads import RunLeases


def test_a_run_held_through_one_store_object_is_live_through_another_of_the_same_file(
    tmp_path: Path,
) -> None:
    first, second = tl.SQLiteStore(tmp_path / "a"), tl.SQLiteStore(tmp_path / "a")
    elsewhere = tl.SQLiteStore(tmp_path / "b")
    try:
        assert first.location == second.location != elsewhere.location
        holder = RunLeases(first)
        with first.transaction():
            holder.take("run_1", "thr_1")
        (lease,) = RunLeases(second).running("thr_1")
        assert RunLeases(second).is_live(lease)
        # The same lease, copied into another store, is not this process's run there.
        elsewhere.start_run(lease)
        assert not RunLeases(elsewhere).is_live(lease)
        holder.release("run_1")
        assert not RunLeases(second).is_live(lease)  # abandoned: a Runtime would repair it
        holder.finish("run_1", "completed", "done", None)
        assert RunLeases(second).running("thr_1") == []
    finally:
        for store in (first, second, elsewhere):
            store.close()


def test_a_store_without_a_location_keeps_its_own_runs(tmp_path: Path) -> None:
    class Unplaced(tl.SQLiteStore):
        """A third-party store that does not say where its data lives."""

        def __getattribute__(self, name: str) -> object:
            if name == "location":
                raise AttributeError(name)
            return super().__getattribute__(name)

    store = Unplaced(tmp_path)
    try:
        leases = RunLeases(store)
        with store.transaction():
            leases.take("run_2", "thr_2")
        (lease,) = leases.running("thr_2")
        assert leases.is_live(lease)
        other = tl.SQLiteStore(tmp_path / "other")
        assert not RunLeases(other).is_live(lease)
        other.close()
    finally:
        leases.release("run_2")
        store.close()


def test_a_postgres_stores_location_names_the_database_without_its_password(
    postgres_url: str,
) -> None:
    pytest.importorskip("psycopg")
    with_password = postgres_url.replace("postgres@", "postgres:hunter2-pw-9931@", 1)
    assert with_password != postgres_url
    first, second = tl.PostgresStore(with_password), tl.PostgresStore(postgres_url)
    try:
        assert "hunter2-pw-9931" not in first.location
        assert first.location == second.location  # one database, whichever URL opened it
        holder = RunLeases(first)
        with first.transaction():
            holder.take("run_pg", "thr_pg")
        (lease,) = RunLeases(second).running("thr_pg")
        assert RunLeases(second).is_live(lease)
        holder.release("run_pg")
    finally:
        first.close()
        second.close()
