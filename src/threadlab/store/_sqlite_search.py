"""SQLite's full-text index of messages: an FTS5 table of each message's words, kept by
triggers as messages are written, changed and removed, and the query a search's words make.

The index holds no copy of the text (a contentless table): only what finds a message's row.
What a message says, for the index, is what a person would search: its content, its tool's
name, and each call's tool and arguments, as stored (secrets already redacted).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["SEARCH_MIGRATION", "fts_query", "searched_text"]


def searched_text(row: str) -> str:
    """A SQL expression of the words of the message whose JSON is `row`. A row that is not
    JSON (damaged) is indexed as it is: json_extract would fail the write."""
    calls = (
        "(SELECT group_concat(coalesce(json_extract(c.value, '$.name'), '') || ' ' ||"
        f" coalesce(json_extract(c.value, '$.arguments'), ''), ' ')"
        f" FROM json_each({row}, '$.tool_calls') c)"
    )
    return (
        f"CASE WHEN json_valid({row}) THEN"
        f" coalesce(json_extract({row}, '$.content'), '') || ' ' ||"
        f" coalesce(json_extract({row}, '$.name'), '') || ' ' || coalesce({calls}, '')"
        f" ELSE {row} END"
    )


# A contentless table forgets a row only when told the words it was indexed with: the
# triggers that remove or change a message give its old words again, computed the same way.
# Made anew, then filled: a store brought back to an older version by hand keeps the index it
# had, which filled again would count each message twice.
SEARCH_MIGRATION: tuple[str, ...] = (
    "CREATE INDEX IF NOT EXISTS threads_listed ON threads(parent_id, created_at)",
    "DROP TRIGGER IF EXISTS messages_search_added",
    "DROP TRIGGER IF EXISTS messages_search_removed",
    "DROP TRIGGER IF EXISTS messages_search_changed",
    "DROP TABLE IF EXISTS messages_search",
    "CREATE VIRTUAL TABLE IF NOT EXISTS messages_search USING fts5(body, content='',"
    " tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER IF NOT EXISTS messages_search_added AFTER INSERT ON messages BEGIN"
    f" INSERT INTO messages_search (rowid, body) VALUES (new.seq, {searched_text('new.data')});"
    " END",
    "CREATE TRIGGER IF NOT EXISTS messages_search_removed AFTER DELETE ON messages BEGIN"
    " INSERT INTO messages_search (messages_search, rowid, body)"
    f" VALUES ('delete', old.seq, {searched_text('old.data')}); END",
    "CREATE TRIGGER IF NOT EXISTS messages_search_changed AFTER UPDATE OF data ON messages BEGIN"
    " INSERT INTO messages_search (messages_search, rowid, body)"
    f" VALUES ('delete', old.seq, {searched_text('old.data')});"
    f" INSERT INTO messages_search (rowid, body) VALUES (new.seq, {searched_text('new.data')});"
    " END",
    f"INSERT INTO messages_search (rowid, body) SELECT seq, {searched_text('data')} FROM messages",
)


def fts_query(words: Sequence[str]) -> str:
    """An FTS5 query that finds every one of `words`, each as a prefix. Each is quoted (a
    quote inside doubled): FTS5's operators and column filters in a search are words."""
    return " ".join('"{}"*'.format(word.replace('"', '""')) for word in words)
