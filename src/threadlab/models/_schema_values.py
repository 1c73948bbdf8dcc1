"""Plausible, valid argument values generated from a JSON Schema, for the offline model.

Values come from the schema itself first (const, default, examples, enum), then from the
user's message and the property's name: a number takes the next number the message gives (so
"What is 2 + 3?" calls `add(a=2, b=3)`), a `path` gets a file path, `content` a small document,
`query` the user's words. The point is that an example notebook on the offline model looks like
a real run.
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any

__all__ = ["generate_arguments", "progress_phrase"]

_NUMBERS_READ = 64  # of a message, at most: the numbers a person types in a request
_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w])")
_EXAMPLE_IN_TEXT = re.compile(r"e\.g\.?,?\s*[\"'“]([^\"'”]{1,80})[\"'”]")
_GERUNDS = {
    "write": "writing",
    "read": "reading",
    "search": "searching",
    "fetch": "fetching",
    "get": "getting",
    "create": "creating",
    "make": "making",
    "run": "running",
    "delete": "deleting",
    "update": "updating",
    "list": "listing",
    "save": "saving",
    "send": "sending",
    "find": "finding",
    "add": "adding",
    "fix": "fixing",
    "build": "building",
    "edit": "editing",
    "lookup": "looking up",
    "compute": "computing",
    "calculate": "calculating",
}


def generate_arguments(
    schema: dict[str, Any], user_text: str, progress_argument: str | None, tool_name: str
) -> dict[str, Any]:
    """Arguments for every declared property, in the schema's order."""
    generator = _Generator(schema, user_text)
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    values: dict[str, Any] = {}
    for name, prop in props.items():
        if name != progress_argument:
            values[name] = generator.value(prop, name, values)
    if progress_argument and progress_argument in props:
        values[progress_argument] = progress_phrase(
            props[progress_argument], tool_name, values, user_text
        )
    return {name: values[name] for name in props if name in values}


def progress_phrase(
    prop: dict[str, Any], tool_name: str, values: dict[str, Any], user_text: str
) -> str:
    """A short description of the call, like "writing index.html"."""
    examples = prop.get("examples")
    if isinstance(examples, list) and examples and isinstance(examples[0], str):
        return examples[0]
    match = _EXAMPLE_IN_TEXT.search(str(prop.get("description", "")))
    if match:
        return match.group(1)
    verb = tool_name.split("_")[0].lower()
    phrase = _GERUNDS.get(verb, f"running {tool_name}")
    target = next(
        (
            str(v).rsplit("/", 1)[-1]
            for k, v in values.items()
            if isinstance(v, str) and any(w in k.lower() for w in ("path", "file", "name", "url"))
        ),
        None,
    )
    if target is None:
        target = " ".join(user_text.split()[:4]) if user_text else ""
    return f"{phrase} {target}".strip()


class _Generator:
    def __init__(self, root: dict[str, Any], user_text: str) -> None:
        self._root = root
        self._user_text = user_text.strip() or "hello"
        # Read as far as the arguments need, and no further than its first numbers: a long
        # message costs nothing more.
        found = itertools.islice(_NUMBER_IN_TEXT.finditer(user_text), _NUMBERS_READ)
        self._numbers = (float(m[0]) for m in found)

    def value(self, schema: Any, name: str, siblings: dict[str, Any], depth: int = 0) -> Any:
        if not isinstance(schema, dict) or depth > 8:
            return None
        if "$ref" in schema:
            return self.value(self._resolve(schema["$ref"]), name, siblings, depth + 1)
        for key in ("const", "default"):
            if key in schema:
                return schema[key]
        examples = schema.get("examples")
        if isinstance(examples, list) and examples:
            return examples[0]
        if isinstance(schema.get("enum"), list) and schema["enum"]:
            return schema["enum"][0]
        for key in ("anyOf", "oneOf", "allOf"):
            options = schema.get(key)
            if isinstance(options, list) and options:
                chosen = next((o for o in options if o.get("type") != "null"), options[0])
                return self.value(chosen, name, siblings, depth + 1)
        json_type = schema.get("type")
        if isinstance(json_type, list):
            json_type = next((k for k in json_type if k != "null"), "null")
        if json_type == "object" or (json_type is None and "properties" in schema):
            props = schema.get("properties", {})
            out: dict[str, Any] = {}
            for key, prop in props.items():
                out[key] = self.value(prop, key, out, depth + 1)
            return out
        if json_type == "array":
            count = max(1, int(schema.get("minItems", 1)))
            if schema.get("maxItems") == 0:
                return []
            return [self.value(schema.get("items", {}), name, siblings, depth + 1)] * count
        if json_type == "integer":
            given = self._next_number(schema, whole=True)
            return int(given if given is not None else _number(schema, 1))
        if json_type == "number":
            given = self._next_number(schema, whole=False)
            return float(given if given is not None else _number(schema, 1))
        if json_type == "boolean":
            return True
        if json_type == "null":
            return None
        return _fit(self._string(schema, name.lower(), siblings), schema)

    def _next_number(self, schema: dict[str, Any], *, whole: bool) -> float | None:
        """The message's first number not yet read that the schema admits (finite, whole if
        need be, within its bounds), so the next property gets one after it; None when none
        is left."""
        for number in self._numbers:
            fits = math.isfinite(number) and (not whole or number.is_integer())
            if fits and _number(schema, number) == number:  # digits past a float's range: inf
                return number
        return None

    def _resolve(self, ref: str) -> Any:
        node: Any = self._root
        for part in ref.lstrip("#/").split("/"):
            node = node.get(part, {}) if isinstance(node, dict) else {}
        return node

    def _string(self, schema: dict[str, Any], name: str, siblings: dict[str, Any]) -> str:
        fmt = schema.get("format")
        if fmt == "date":
            return "2026-01-01"
        if fmt == "date-time":
            return "2026-01-01T00:00:00Z"
        if fmt == "email":
            return "someone@example.com"
        if fmt in ("uri", "url") or "url" in name:
            return "https://example.com/"
        if "path" in name or "file" in name:
            return "/index.html"
        if name in ("content", "body", "html", "code", "data"):
            path = next((str(v) for k, v in siblings.items() if "path" in k or "file" in k), "")
            return _document(self._user_text, html=path.endswith(".html"))
        if any(
            w in name for w in ("query", "question", "prompt", "message", "topic", "input", "text")
        ):
            return self._user_text[:200]
        if "name" in name or "title" in name:
            return "example"
        return self._user_text[:80]


def _number(schema: dict[str, Any], fallback: float) -> float:
    value = fallback
    if "minimum" in schema:
        value = max(value, schema["minimum"])
    if "exclusiveMinimum" in schema:
        value = max(value, schema["exclusiveMinimum"] + 1)
    if "maximum" in schema:
        value = min(value, schema["maximum"])
    return value


def _fit(text: str, schema: dict[str, Any]) -> str:
    low = int(schema.get("minLength", 0))
    high = schema.get("maxLength")
    if len(text) < low:
        text = text + "x" * (low - len(text))
    if isinstance(high, int):
        text = text[:high]
    return text


def _document(topic: str, *, html: bool) -> str:
    line = " ".join(topic.split())[:120]
    if not html:
        return f"{line}\n\n" + "This text was written by the offline model. " * 4
    items = "\n".join(f"      <li>Point {i} about {line}</li>" for i in range(1, 6))
    return (
        "<!doctype html>\n<html>\n  <head><title>"
        + line
        + "</title></head>\n  <body>\n    <h1>"
        + line
        + "</h1>\n    <ul>\n"
        + items
        + "\n    </ul>\n  </body>\n</html>\n"
    )
