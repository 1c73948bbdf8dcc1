"""Text from a model, a tool or a user, written into Markdown so that it reads as the text it
is: none of it takes effect as markup (an exported thread, a narration)."""

from __future__ import annotations

import re

__all__ = ["escape_markdown", "fenced"]

_MARKDOWN_SPECIAL = re.compile(r"([!-/:-@\[-`{-~])")


def escape_markdown(text: str) -> str:
    """`text` as literal markdown: every ASCII punctuation character backslash-escaped, so no
    emphasis, link, image, HTML tag, entity or math in it takes effect."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text)


def fenced(text: str) -> str:
    """`text` in a fenced code block whose fence no backtick run inside can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text}\n{fence}"
