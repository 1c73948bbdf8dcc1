"""JupyterLab's Threads panel over a large SQLite store: 100,000 root threads of 10 messages
each (1,000,000 messages), each with a run. Times what the panel's list route reads
(`Runtime.browse`, then each thread as JSON): the first page, a page deep in the list (by its
cursor), a status filter, and searches of a rare word (in 1% of the threads), a common one (in
every thread) and two words; beside the anchor, the whole list in one query
(`Runtime.overview`, what `%threadlab threads` reads). Targets: a first page in 200 ms or
less, a search in 300 ms or less.

`.venv/bin/python -m benchmarks.threads_panel [threads] [messages each]`
"""

from __future__ import annotations

import dataclasses
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import threadlab as tl
from threadlab.lab_server._records import thread_json
from threadlab.store import RunRecord, SQLiteStore, StoredMessage, ThreadQuery, ThreadRecord

THREADS = 100_000
MESSAGES_EACH = 10
PAGE = 50
RARE_EVERY = 100
"""One thread in this many says the rare word."""

_WORDS = [f"{a}{b}" for a in ("ka", "lo", "mi", "nu", "pe", "ro", "su", "ti") for b in
          ("ban", "cor", "dil", "fen", "gor", "hul", "jin", "kes", "lum", "mor")]  # fmt: skip


@dataclass(frozen=True)
class PanelCost:
    threads: int
    messages: int
    build_s: float
    timings_ms: dict[str, float]
    """Median milliseconds of each read, by name."""
    found: dict[str, int]
    """How many threads each read's page held."""


def _messages(thread_id: str, n: int, rng: random.Random, rare: bool) -> list[StoredMessage]:
    rows: list[StoredMessage] = []
    for i in range(n):
        said = " ".join(rng.choice(_WORDS) for _ in range(12))
        if i == 0:
            said = f"please look at the report {'zanzibar ' if rare else ''}{said}"
        message: dict[str, object]
        if i % 3 == 1:
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": f"c{i}", "name": "write_file",
                                "arguments": {"path": f"/notes/{i}.md", "content": said}}],
                "usage": {"input_tokens": 900 + i, "output_tokens": 40},
                "cost_usd": 0.0012,
            }  # fmt: skip
        elif i % 3 == 2:
            message = {"role": "tool", "name": "write_file", "content": f"wrote {len(said)}"}
        else:
            message = {"role": "user" if i == 0 else "assistant", "content": said}
        data = json.dumps({"id": f"msg_{thread_id}_{i}", **message}, separators=(",", ":"))
        rows.append(StoredMessage(f"row_{thread_id}_{i}", thread_id, 0, data))
    return rows


def build(directory: Path, threads: int, messages_each: int) -> float:
    """Fill a store at `directory`; the seconds it took."""
    rng = random.Random(7)
    started = time.perf_counter()
    store = SQLiteStore(directory)
    batch = 1000
    for first in range(0, threads, batch):
        with store.transaction():
            rows: list[StoredMessage] = []
            for n in range(first, min(first + batch, threads)):
                thread_id = f"thr_{n:08d}"
                at = 1_700_000_000.0 + n
                origin = ("mcp", "eval:nightly", "work.ipynb", None)[n % 4]
                meta = json.dumps({"origin": origin} if origin else {}, separators=(",", ":"))
                store.add_thread(ThreadRecord(thread_id, None, "writer", at, meta))
                store.start_run(RunRecord(f"run_{n}", thread_id, "running", 1, "h", at, at))
                status = "failed" if n % 10 == 0 else "completed"
                store.finish_run(f"run_{n}", status, None, None, at + 3.0)
                rows += _messages(thread_id, messages_each, rng, n % RARE_EVERY == 0)
            store.add_messages(rows)
    store.close()
    return time.perf_counter() - started


def _median_ms(read: Callable[[], object], repeat: int = 7) -> float:
    read()  # warm: the first read of a process pays for opening and the page cache
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        read()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def measure(threads: int = THREADS, messages_each: int = MESSAGES_EACH) -> PanelCost:
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        build_s = build(directory, threads, messages_each)
        rt = tl.Runtime(tl.Registry(), directory)
        first, _ = rt.browse(ThreadQuery(limit=PAGE))
        _, after_200 = rt.browse(ThreadQuery(limit=200))
        assert after_200 is not None
        deep = dataclasses.replace(after_200, limit=PAGE)
        reads: dict[str, ThreadQuery] = {
            "first page": ThreadQuery(limit=PAGE),
            "page after 200": deep,
            "status failed": ThreadQuery(status="failed", limit=PAGE),
            "origin mcp": ThreadQuery(origin="mcp", limit=PAGE),
            "search rare word": ThreadQuery(text="zanzibar", limit=PAGE),
            "search common word": ThreadQuery(text="report", limit=PAGE),
            "search two words": ThreadQuery(text="zanzibar kaban", limit=PAGE),
        }
        timings: dict[str, float] = {}
        found: dict[str, int] = {}
        for label, query in reads.items():

            def read(query: ThreadQuery = query) -> list[dict[str, object]]:
                page, _ = rt.browse(query)
                return [thread_json(o) for o in page]

            timings[label] = _median_ms(read)
            found[label] = len(read())
        timings["overview (anchor)"] = _median_ms(rt.overview, repeat=3)
        found["overview (anchor)"] = len(first) and threads
        rt.close()
    return PanelCost(threads, threads * messages_each, build_s, timings, found)


def report(cost: PanelCost) -> str:
    lines = [
        f"{cost.threads:,} threads, {cost.messages:,} messages (built in {cost.build_s:.0f} s)",
        f"  {'read':<22}{'ms':>9}{'threads':>9}",
    ]
    for label, ms in cost.timings_ms.items():
        lines.append(f"  {label:<22}{ms:9.1f}{cost.found[label]:9,}")
    anchor = cost.timings_ms["overview (anchor)"]
    lines.append(f"  first page / overview: {cost.timings_ms['first page'] / anchor:.4f}")
    lines.append("  targets: first page 200 ms, search 300 ms")
    return "\n".join(lines)


if __name__ == "__main__":
    arguments = [int(a) for a in sys.argv[1:3]]
    print(report(measure(*arguments)))
