"""Listing threads a page at a time (`ThreadBrowser`), in the SQL SQLite and PostgreSQL share.

One query finds the page: root threads (or one thread's children) newest first, after a place
in that order (keyset paging: a page deep in the list costs what the first one does), filtered
by their last run's status and their origin, and by the words of a search, which each dialect
answers from its own full-text index (`_matching`). Two more read what the page shows of its
threads' runs and spending, for its threads only.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ._protocol import RunRecord, ThreadListing, ThreadQuery, ThreadRecord

__all__ = ["ORIGIN_SQL", "ThreadBrowsing"]

# Where a thread came from, read from its metadata's JSON (where a quote inside a value is
# escaped: a value cannot fake a key). The kernel records a notebook's path, an evaluation
# "eval:<name>", a served call "mcp"; a thread left to the engine says it runs there. A text
# match, not a JSON parse: a damaged row still lists. `tl.ThreadMeta.dumps` writes compact
# JSON; a writer that puts a space after the colon is read alike.
_META = """replace(t.metadata, '": "', '":"')"""
ORIGIN_SQL = f"""CASE
    WHEN {_META} LIKE '%"origin":"mcp"%' THEN 'mcp'
    WHEN {_META} LIKE '%"origin":"eval:%' THEN 'evaluation'
    WHEN {_META} LIKE '%"origin":"%' THEN 'notebook'
    WHEN {_META} LIKE '%"runs!_on":"engine"%' ESCAPE '!' THEN 'ray'
    ELSE 'script' END"""

_RUN = (
    "id, thread_id, status, owner_pid, owner_host, heartbeat, started_at, finished_at, text,"
    " error, owner_started, epoch"
)


class ThreadBrowsing:
    """`ThreadBrowser.browse_threads` for a SQL store (mixed into `SqlStore`)."""

    ORDER: str

    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[object, ...]]:
        raise NotImplementedError

    def _matching(self, words: Sequence[str]) -> tuple[str, list[object]]:
        """A query of the ids of the threads whose own messages hold every one of `words`
        (each as a prefix), and its parameters: the dialect's full-text index answers it."""
        raise NotImplementedError

    def _message_field(self, key: str) -> str:
        """A SQL expression of the top-level field `key` of message `m.data`, as text (None
        where the row cannot be read)."""
        raise NotImplementedError

    def browse_threads(self, query: ThreadQuery) -> list[ThreadListing]:
        words = search_words(query.text)
        if query.text.strip() and not words:
            return []  # punctuation alone: no word to look for, so nothing holds it
        rows = self._page(query, words)
        ids = [str(row[0]) for row in rows]
        runs = self._runs_of(ids)
        running = self._running_of(ids)
        spent = self._spending_of(ids)
        return [_listing(row, runs, running, spent) for row in rows]

    def _page(self, query: ThreadQuery, words: Sequence[str]) -> list[tuple[object, ...]]:
        found, searched = ("", []) if not words else _with_ancestors(*self._matching(words))
        where, params = self._where(query, bool(words))
        wanted, more = _wanted(query)
        return self._read(
            f"""
            {found}
            SELECT * FROM (
                SELECT t.id, t.parent_id, t.target, t.created_at, t.metadata, t.member,
                    t.{self.ORDER} AS place,
                    (SELECT r.status FROM runs r WHERE r.thread_id = t.id
                        ORDER BY r.started_at DESC LIMIT 1) AS last_status,
                    {ORIGIN_SQL} AS origin
                FROM threads t WHERE {where}
            ) listed WHERE {wanted}
            ORDER BY created_at DESC, place DESC LIMIT ?
            """,
            [*searched, *params, *more, max(query.limit, 0) + 1],
        )

    def _where(self, query: ThreadQuery, searched: bool) -> tuple[str, list[object]]:
        clauses: list[str] = []
        params: list[object] = []
        if query.parent_id is None:
            clauses.append("t.parent_id IS NULL")
        else:
            clauses.append("t.parent_id = ?")
            params.append(query.parent_id)
        if query.after is not None:
            # Row values: the index on (parent_id, created_at) answers it in both dialects.
            clauses.append(f"(t.created_at, t.{self.ORDER}) < (?, ?)")
            params += [float(query.after[0]), int(query.after[1])]
        if searched:
            # What a row shows finds it too: its target's name, or the start of its id.
            asked = query.text.strip()
            clauses.append(
                "(t.id IN (SELECT id FROM hit) OR t.id IN (SELECT id FROM up)"
                " OR lower(t.target) = lower(?) OR t.id LIKE ? ESCAPE '!')"
            )
            params += [asked, _escaped_like(asked) + "%"]
        return " AND ".join(clauses), params

    def _runs_of(self, ids: Sequence[str]) -> dict[str, tuple[float, float]]:
        """Each thread's last activity of its runs, and how long they ran together."""
        if not ids:
            return {}
        rows = self._read(
            "SELECT thread_id, MAX(COALESCE(finished_at, heartbeat)),"
            " SUM(COALESCE(finished_at, heartbeat) - started_at)"
            f" FROM runs WHERE thread_id IN ({_marks(ids)}) GROUP BY thread_id",
            ids,
        )
        return {str(r[0]): (_number(r[1]), max(_number(r[2]), 0.0)) for r in rows}

    def _running_of(self, ids: Sequence[str]) -> dict[str, RunRecord]:
        if not ids:
            return {}
        rows = self._read(
            f"SELECT {_RUN} FROM runs WHERE status = 'running' AND thread_id IN ({_marks(ids)})",
            ids,
        )
        return {str(row[1]): RunRecord(*row) for row in rows}  # type: ignore[arg-type]

    def _spending_of(self, ids: Sequence[str]) -> dict[str, tuple[dict[str, int], float | None]]:
        """What the model steps of each thread and its descendants reported: tokens by kind,
        and the cost (None when no step's cost is known)."""
        if not ids:
            return {}
        rows = self._read(
            f"""
            WITH RECURSIVE tree(root, id) AS (
                SELECT id, id FROM threads WHERE id IN ({_marks(ids)})
                UNION ALL
                SELECT tree.root, c.id FROM threads c JOIN tree ON c.parent_id = tree.id
            )
            SELECT tree.root, {self._message_field("usage")}, {self._message_field("cost_usd")}
            FROM tree JOIN messages m ON m.thread_id = tree.id
            """,
            ids,
        )
        spent: dict[str, tuple[dict[str, int], float | None]] = {}
        for root, usage, cost in rows:
            tokens, total = spent.get(str(root), ({}, None))
            for kind, count in _usage(usage).items():
                tokens[kind] = tokens.get(kind, 0) + count
            if cost is not None:
                total = (total or 0.0) + _number(cost)
            spent[str(root)] = (tokens, total)
        return spent


def _escaped_like(text: str) -> str:
    """`text` matched as itself in a LIKE pattern (escape character "!")."""
    return text.replace("!", "!!").replace("%", "!%").replace("_", "!_")


def search_words(text: str) -> list[str]:
    """The words of a search, as the full-text indexes split text: runs of letters and
    digits (an underscore splits, as both indexes do). Anything else is no word: the query is
    data, never syntax."""
    words: list[str] = []
    for chunk in text.split():
        words += [w for w in "".join(c if c.isalnum() else " " for c in chunk).split() if w]
    return words[:16]  # a pasted page is not a search: its first words are


def _wanted(query: ThreadQuery) -> tuple[str, list[object]]:
    clauses: list[str] = ["1 = 1"]
    params: list[object] = []
    if query.status == "never run":
        clauses.append("last_status IS NULL")
    elif query.status is not None:
        clauses.append("last_status = ?")
        params.append(query.status)
    if query.origin is not None:
        clauses.append("origin = ?")
        params.append(query.origin)
    return " AND ".join(clauses), params


def _with_ancestors(matching: str, params: list[object]) -> tuple[str, list[object]]:
    """The threads `matching` finds (`hit`), and the ancestors of those that are children
    (`up`): a word a subagent wrote lists the thread that made it. Found once: a page reads
    `hit` first, and walks `up` only for threads `hit` does not hold, so a common word costs
    no walk from every thread it is in."""
    return (
        f"""
        WITH RECURSIVE hit(id) AS MATERIALIZED ({matching}),
        up(id, parent_id) AS (
            SELECT c.id, c.parent_id FROM threads c
                WHERE c.parent_id IS NOT NULL AND c.id IN (SELECT id FROM hit)
            UNION
            SELECT p.id, p.parent_id FROM threads p JOIN up ON p.id = up.parent_id
        )""",
        params,
    )


def _listing(
    row: tuple[object, ...],
    runs: dict[str, tuple[float, float]],
    running: dict[str, RunRecord],
    spent: dict[str, tuple[dict[str, int], float | None]],
) -> ThreadListing:
    record = ThreadRecord(*row[:6])  # type: ignore[arg-type]
    last_activity, duration = runs.get(record.id, (record.created_at, 0.0))
    usage, cost = spent.get(record.id, ({}, None))
    return ThreadListing(
        record=record,
        place=(float(record.created_at), int(str(row[6]))),
        origin=str(row[8]),
        last_run_status=row[7] if isinstance(row[7], str) else None,
        running=running.get(record.id),
        updated_at=max(float(record.created_at), last_activity),
        duration_s=duration,
        usage=usage,
        cost_usd=cost,
    )


def _usage(raw: object) -> dict[str, int]:
    """A message's usage as stored (JSON text, or None): its integer counts."""
    if not isinstance(raw, str):
        return {}
    try:
        value = json.loads(raw)
    except ValueError:
        return {}
    if not isinstance(value, dict):
        return {}
    return {str(k): int(v) for k, v in value.items() if isinstance(v, int | float)}


def _number(value: object) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0


def _marks(values: Sequence[object]) -> str:
    return ", ".join("?" * len(values))
