"""The quick check of common argument schemas never accepts what jsonschema rejects, and does
accept the plain valid cases (or it would save nothing); a schema it takes is a valid one, so
defining a tool with it does not import jsonschema (seconds, with a notebook server's
optional format packages)."""

from __future__ import annotations

import itertools
import random
import subprocess
import sys
from typing import Any

import jsonschema
import pytest

from threadlab.definitions._schema import plain_check

VALUES: list[Any] = [
    "", "x", 0, 1, -7, 2**70, 1.0, 1.5, float("nan"), True, False, None,
    [], [1], {}, {"a": 1},
]  # fmt: skip
TYPES = ["string", "integer", "number", "boolean", "null", "array", "object"]
NOT_COVERED: list[Any] = [
    {"type": "integer", "minimum": 3},
    {"enum": [1, 2]},
    {"type": "string", "format": "email"},
    {"type": "array", "items": {"type": "string"}},
]


def property_schemas() -> list[Any]:
    schemas: list[Any] = [True, {}, {"description": "d"}]
    schemas += [{"type": t} for t in TYPES]
    schemas += [{"type": list(pair)} for pair in itertools.combinations(TYPES, 2)]
    return schemas + NOT_COVERED


def test_it_agrees_with_jsonschema_whenever_it_says_valid() -> None:
    rng = random.Random(7)
    props = property_schemas()
    checked = accepted = 0
    for _ in range(400):
        names = rng.sample(["a", "b", "c"], rng.randint(0, 3))
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {n: rng.choice(props) for n in names},
        }
        if rng.random() < 0.5:
            schema["required"] = rng.sample(names, rng.randint(0, len(names)))
        if rng.random() < 0.5:
            schema["additionalProperties"] = rng.random() < 0.5
        check = plain_check(schema)
        validator = jsonschema.Draft202012Validator(schema)
        for _ in range(30):
            keys = rng.sample(["a", "b", "c", "d"], rng.randint(0, 4))
            value = {n: rng.choice(VALUES) for n in keys}
            valid = validator.is_valid(value)
            if check is not None:
                checked += 1
                if check(value):
                    accepted += 1
                    assert valid, (schema, value)
    assert checked > 5000
    assert accepted > 1000


def test_it_stays_out_of_schemas_it_does_not_cover() -> None:
    for prop in NOT_COVERED:
        assert plain_check({"type": "object", "properties": {"n": prop}}) is None
    assert plain_check({"type": "object", "$defs": {}, "properties": {}}) is None
    assert plain_check({"type": "object", "additionalProperties": {"type": "string"}}) is None
    draft4 = {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}
    assert plain_check(draft4) is None


def test_it_accepts_the_plain_valid_case() -> None:
    check = plain_check(
        {
            "type": "object",
            "properties": {"path": {"type": "string"}, "n": {"type": "integer"}},
            "required": ["path"],
            "additionalProperties": False,
        }
    )
    assert check is not None
    assert check({"path": "/a", "n": 3})
    assert not check({"n": 3})  # missing: jsonschema says why
    assert not check({"path": "/a", "n": True})  # a bool is no integer
    assert not check({"path": "/a", "extra": 1})


MALFORMED: list[dict[str, Any]] = [
    {"title": 3}, {"description": ["d"]}, {"$comment": None}, {"examples": "x"},
    {"type": None}, {"type": []}, {"type": ["string", "string"]}, {"type": "text"},
]  # fmt: skip


def test_a_schema_it_takes_is_a_valid_schema() -> None:
    rng = random.Random(11)
    props = [*property_schemas(), *MALFORMED]
    taken = 0
    for _ in range(600):
        names = rng.sample(["a", "b", "c"], rng.randint(0, 3))
        schema: dict[str, Any] = {
            "type": "object",
            "properties": {n: rng.choice(props) for n in names},
        }
        if rng.random() < 0.5:
            schema["required"] = rng.choices(names or ["a"], k=rng.randint(0, 3))
        if rng.random() < 0.3:
            schema.update(rng.choice([*MALFORMED[:4], {"title": "t"}, {"examples": [{}]}]))
        if rng.random() < 0.3:
            schema["additionalProperties"] = rng.choice([True, False, "no"])
        if plain_check(schema) is not None:
            taken += 1
            jsonschema.Draft202012Validator.check_schema(schema)
    assert taken > 100


@pytest.mark.processes  # it starts another Python process
def test_defining_a_tool_with_a_plain_schema_does_not_import_jsonschema() -> None:
    script = """
import sys
import pytest

import threadlab as tl
registry = tl.Registry()
args = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
tl.define_tool("t", description="T.", execute=lambda s, a: "ok", args=args, registry=registry)
assert "jsonschema" not in sys.modules, "imported for a plain schema"
bad = {"type": "object", "properties": {"n": {"type": "integer", "minimum": "three"}}}
try:
    tl.define_tool("u", description="U.", execute=lambda s, a: "ok", args=bad, registry=registry)
except tl.DefinitionError as exc:
    print(exc)
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout  # fmt: skip
    assert "tool 'u': args is not a valid JSON Schema" in out
