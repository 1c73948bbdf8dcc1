"""SQLite checkpoints run off the writer's path: the store's own commits never copy the log
into the database file (that is what made one step in a thousand take milliseconds); every
CHECKPOINT_EVERY commits a background checkpoint does."""

from __future__ import annotations

import time
from pathlib import Path

from threadlab.store import SQLiteStore
from threadlab.store._sqlite import CHECKPOINT_EVERY


def test_commits_leave_checkpoints_to_the_background(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    database = store.path
    size = database.stat().st_size
    commits = store._commits
    payload = "x" * 3000  # a page or so per commit: the log grows visibly
    while store._commits < CHECKPOINT_EVERY - 1:
        store.enqueue("thr_1", payload)
    assert store._commits > commits
    assert database.stat().st_size == size  # the log holds them all: no commit checkpointed
    store.enqueue("thr_1", payload)  # the hundredth: a checkpoint is handed to the background
    for _ in range(500):
        if not store._checkpointing.is_set():
            break
        time.sleep(0.01)
    assert database.stat().st_size > size + 50 * 3000  # copied into the database file
    assert len(store.drain_queue("thr_1")) == CHECKPOINT_EVERY - commits  # nothing lost
    store.close()
