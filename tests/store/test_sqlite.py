"""What only the SQLite store does: its file, WAL mode, schema versions and migrations in that
file, and how much it grows. The contract both stores keep is in test_contract.py."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

import threadlab as tl
from threadlab import SQLiteStore, StoreVersionError
from threadlab.models import call, text
from threadlab.store._sqlite import SCHEMA_VERSION


def test_reopening_an_unknown_thread_is_a_clear_error(rt: tl.Runtime) -> None:
    with pytest.raises(LookupError, match="no thread 'thr_missing'"):
        rt.thread("thr_missing")


def test_the_store_is_schema_versioned_and_refuses_a_newer_schema(store_dir: Path) -> None:
    store = SQLiteStore(store_dir)
    assert store.schema_version == SCHEMA_VERSION
    mode = store._db.execute("PRAGMA journal_mode").fetchone()[0]
    assert mode == "wal"
    store.close()
    db = sqlite3.connect(store_dir / "threads.sqlite3")
    db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION + 1,))
    db.commit()
    db.close()
    with pytest.raises(StoreVersionError, match="upgrade threadlab"):
        SQLiteStore(store_dir)


def test_a_version_1_store_is_migrated_in_place(tmp_path: Path) -> None:

    from threadlab.store import RunRecord, ThreadRecord

    store = SQLiteStore(tmp_path)
    store.add_thread(ThreadRecord("thr_old", None, "p", 1.0))
    store.start_run(RunRecord("run_old", "thr_old", "running", 123, "host", 2.0, 2.0))
    store.close()
    # Make it what version 1 wrote: no owner_started column, version 1.
    db = sqlite3.connect(tmp_path / "threads.sqlite3")
    db.execute("ALTER TABLE runs DROP COLUMN owner_started")
    db.execute("DROP TABLE env_log")
    db.execute("ALTER TABLE runs DROP COLUMN epoch")
    db.execute("DROP TABLE leases")
    db.execute("ALTER TABLE threads DROP COLUMN member")
    db.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    migrated = SQLiteStore(tmp_path)
    assert migrated.schema_version == SCHEMA_VERSION == 6
    assert migrated.get_thread("thr_old") == ThreadRecord("thr_old", None, "p", 1.0)
    migrated.set_env("thr_old", "REGION", "text", b"eu")  # the env log is there
    assert migrated.get_env("thr_old", before=10**9) == {"REGION": ("text", b"eu")}
    (run,) = migrated.running_runs("thr_old")
    assert (run.id, run.owner_pid, run.owner_started) == ("run_old", 123, None)
    migrated.close()


async def test_streamed_deltas_are_live_only_and_the_store_grows_by_what_replay_needs(
    registry: tl.Registry, store_dir: Path
) -> None:
    import sqlite3

    from threadlab.widgets import replay

    size = 200_000
    tl.define_tool(
        "write_file",
        description="Write.",
        execute=lambda s, a: f"{len(a['content'])} characters",
        args={
            "type": "object",
            "properties": {"description": {"type": "string"}, "content": {"type": "string"}},
        },
        progress_argument="description",
        registry=registry,
    )
    model = tl.models.ScriptedModel(
        [call("write_file", {"description": "big", "content": "x" * size}), text("ok")],
        chunk_size=16,
    )
    tl.define_prompt("p", prompt="x", model=model, tools=["write_file"], registry=registry)
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await rt.create_thread("p")

    def stored_bytes() -> int:
        db = sqlite3.connect(store_dir / "threads.sqlite3")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        return sum(p.stat().st_size for p in store_dir.iterdir() if p.is_file())

    before = stored_bytes()
    live = [e async for e in thread.stream("go")]
    grown = stored_bytes() - before
    assert sum(e.type == "tool_call_delta" for e in live) > size // 16  # streamed live...
    stored = thread.events
    assert not [e for e in stored if e.type in ("tool_call_delta", "text_delta")]  # ...not kept
    assert grown <= 1.5 * size + 64 * 1024
    state = replay(thread)  # what a reopened inspector shows is all there
    (card,) = state.cards.values()
    assert (card["status"], card["progress"]) == ("success", "big")
    rt.close()
