"""PostgreSQL's full-text index of messages: a GIN index over the words of each message, and
the query a search's words make.

The index is on an expression (no column to keep up to date): what a message says, for the
index, is what a person would search — its content, its tool's name, and each call's tool and
arguments, as stored (secrets already redacted) — in the "simple" configuration (words as
written, lowercased: no language's stemming, no stop words).
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["MATCHING", "SEARCH_MIGRATION", "tsquery"]

# IMMUTABLE, as an index's expression must be: it reads only its argument. A message's JSON may
# hold a NUL (`\u0000`), which no PostgreSQL text can: it is read as a space; and a row that
# cannot be read as JSON gives no words, rather than refuse the message being written.
_TEXT_FUNCTION = """
CREATE OR REPLACE FUNCTION threadlab_message_text(data TEXT) RETURNS TEXT
LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    d jsonb;
BEGIN
    d := replace(data, '\\u0000', ' ')::jsonb;
    RETURN coalesce(d ->> 'content', '') || ' ' || coalesce(d ->> 'name', '') || ' ' ||
        coalesce((SELECT string_agg(coalesce(c ->> 'name', '') || ' ' ||
                                    coalesce(c ->> 'arguments', ''), ' ')
                  FROM jsonb_array_elements(CASE WHEN jsonb_typeof(d -> 'tool_calls') = 'array'
                                                 THEN d -> 'tool_calls' ELSE '[]'::jsonb END) c),
                 '');
EXCEPTION WHEN others THEN
    RETURN '';
END
$$"""

_WORDS = "to_tsvector('simple'::regconfig, threadlab_message_text({}))"

SEARCH_MIGRATION: tuple[str, ...] = (
    _TEXT_FUNCTION,
    f"CREATE INDEX IF NOT EXISTS messages_search ON messages USING GIN ({_WORDS.format('data')})",
)

MATCHING = (
    f"SELECT m.thread_id FROM messages m WHERE {_WORDS.format('m.data')}"
    " @@ to_tsquery('simple'::regconfig, ?)"
)
"""The threads whose messages hold a `tsquery`: the expression is the index's, word for word,
so the planner uses it."""


def tsquery(words: Sequence[str]) -> str:
    """A tsquery that finds every one of `words` (letters and digits only), each as a prefix,
    each quoted as a lexeme: none is read as an operator."""
    return " & ".join("'{}':*".format(word.replace("'", "''").replace("\\", "")) for word in words)
