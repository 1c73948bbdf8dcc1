"""Live text with secrets registered: only an end of the text that could begin a secret waits
for the next chunk, so an answer streams as it comes even with a 108-character key known; a
secret split across chunks, in any of its spellings, still never goes out whole."""

from __future__ import annotations

import pytest

from threadlab.threads import Redactor, StreamRedaction

KEY = "sk-ant-api03-" + "Ab9_" * 23 + "xyz"  # 108 characters, an Anthropic key's length


def redactor() -> Redactor:
    found = Redactor()
    found.add("ANTHROPIC_API_KEY", KEY)
    found.add("TOKEN", "tok-0123456789")
    return found


def test_ordinary_text_is_not_held_back() -> None:
    assert len(KEY) == 108
    stream = StreamRedaction(redactor())
    assert stream.feed("Hello") == "Hello"
    assert stream.feed(" there, friend.") == " there, friend."
    assert stream.flush() == ""


def test_only_an_end_that_could_begin_a_secret_waits() -> None:
    stream = StreamRedaction(redactor())
    assert stream.feed("the key: sk-an") == "the key: "
    assert stream.feed("swer is no key") == "sk-answer is no key"
    assert stream.feed(" and tok-01") == " and "
    assert stream.feed("2 then") == "tok-012 then"


@pytest.mark.parametrize("size", [1, 3, 7, 50])
@pytest.mark.parametrize("spelling", [KEY, KEY.replace("_", "\\u005f")], ids=["plain", "json"])
def test_a_secret_split_anywhere_never_goes_out(size: int, spelling: str) -> None:
    text = f"before {spelling} between tok-0123456789 after"
    found = redactor()
    if spelling != KEY:  # a JSON-escaped spelling is one of the registered ones too
        found.add("ESCAPED", spelling)
    stream = StreamRedaction(found)
    pieces = [text[i : i + size] for i in range(0, len(text), size)]
    shown = [stream.feed(piece) for piece in pieces] + [stream.flush()]
    whole = "".join(shown)
    assert KEY not in whole
    assert spelling not in whole
    assert "tok-0123456789" not in whole
    assert whole.startswith("before [secret:")
    assert whole.endswith(" between [secret:TOKEN] after")
    # What could not begin a secret went out at once.
    assert shown[0] == ("before " if size >= 7 else pieces[0])
