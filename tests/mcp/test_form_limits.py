"""What a server's form may hold to be shown to a person: MCP's flat forms of strings,
numbers, booleans and choices, within what a person reads. Anything else is declined unshown
(the servers' side of it: tests/mcp/test_client_requests.py)."""

from __future__ import annotations

from typing import Any

import pytest

from threadlab.mcp_client import form_refusal

PLAIN = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "ada"},
        "size": {"type": "integer"},
        "ok": {"type": "boolean"},
        "tags": {"type": "array", "items": {"enum": ["a"]}},
    },
}


def test_a_flat_form_is_shown() -> None:
    assert form_refusal("Your preferences?", PLAIN) is None
    assert form_refusal("Nothing to fill in: allow?", {"type": "object", "properties": {}}) is None


@pytest.mark.parametrize(
    ("message", "schema", "why"),
    [
        ("x" * 4001, PLAIN, "its message is 4001 characters (at most 4000 are shown)"),
        ("?", {"type": "array"}, "its schema is not an object of fields"),
        ("?", {"type": "object", "properties": ["a"]}, "its schema is not an object of fields"),
        ("?", {"properties": {"deep": {"type": "object", "properties": {}}}},
         "field 'deep' is not a string, number, boolean or choice"),
        ("?", {"properties": {"raw": "string"}},
         "field 'raw' is not a string, number, boolean or choice"),
        ("?", {"properties": {"a": {"type": "string", "description": "d" * 1001}}},
         "field 'a' has a name or text over 1000 characters"),
        ("?", {"properties": {"n" * 2000: {"type": "string"}}},
         f"field {'n' * 80!r} has a name or text over 1000 characters"),
        ("?", {"properties": {"pick": {"type": "string", "enum": list(range(101))}}},
         "field 'pick' offers 101 choices (at most 100)"),
        ("?", {"properties": {f"f{i}": {"type": "string"} for i in range(51)}},
         "it has 51 fields (at most 50 are shown)"),
    ],
)  # fmt: skip
def test_what_no_person_is_shown(message: str, schema: dict[str, Any], why: str) -> None:
    assert form_refusal(message, schema) == why
