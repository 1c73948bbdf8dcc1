from __future__ import annotations

import json

import pytest

from threadlab.execution import ArgumentScanner


def feed_all(scanner: ArgumentScanner, text: str, size: int) -> list[int]:
    """Feed in `size` slices; return the indexes of chunks where feed() said True."""
    fired = []
    for i, start in enumerate(range(0, len(text), size)):
        if scanner.feed(text[start : start + size]):
            fired.append(i)
    return fired


@pytest.mark.parametrize("size", [1, 2, 3, 7, 16, 1000])
def test_fires_once_in_the_chunk_holding_the_closing_quote(size: int) -> None:
    text = json.dumps({"description": "writing a.html", "content": "x" * 100})
    scanner = ArgumentScanner("description")
    fired = feed_all(scanner, text, size)
    close = text.index('"', text.index("writing"))
    assert fired == [close // size]
    assert scanner.value == "writing a.html"


def test_ignores_the_same_key_nested_deeper_and_inside_strings() -> None:
    text = json.dumps(
        {
            "meta": {"description": "nested"},
            "content": 'a "description": "fake"',
            "list": [{"description": "in list"}],
            "description": "real",
        }
    )
    scanner = ArgumentScanner("description")
    feed_all(scanner, text, 5)
    assert scanner.value == "real"


def test_a_target_after_a_large_argument_is_still_found() -> None:
    text = json.dumps({"content": "\\" * 1000 + '"' * 1000 + "y" * 10_000, "description": "late"})
    scanner = ArgumentScanner("description")
    assert feed_all(scanner, text, 16)
    assert scanner.value == "late"


def test_escapes_split_between_chunks_are_decoded() -> None:
    value = 'tab\there "quote" back\\slash \u00e9 \U0001f600'
    text = json.dumps({"description": value})
    scanner = ArgumentScanner("description")
    feed_all(scanner, text, 1)
    assert scanner.value == value


@pytest.mark.parametrize(
    ("text", "expected_fire"),
    [
        ('{"description": null, "x": 1}', True),
        ('{"description": 12, "x": 1}', True),
        ('{"description": {"a": "b"}, "x": 1}', True),
        ('{"description": null}', True),
    ],
)
def test_a_non_string_value_completes_with_none(text: str, expected_fire: bool) -> None:
    scanner = ArgumentScanner("description")
    assert bool(feed_all(scanner, text, 3)) is expected_fire
    assert scanner.value is None


@pytest.mark.parametrize("text", ['{"path": "/a"}', "not json at all", '["description", "x"]', ""])
def test_never_fires_when_the_argument_is_absent_or_the_json_is_malformed(text: str) -> None:
    scanner = ArgumentScanner("description")
    assert feed_all(scanner, text, 4) == []
    assert not scanner.done


def test_nothing_is_scanned_after_firing() -> None:
    scanner = ArgumentScanner("description")
    assert scanner.feed('{"description": "a"')
    assert not scanner.feed(', "description": "b"}')
    assert scanner.value == "a"
