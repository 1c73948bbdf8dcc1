"""The forms a tool may ask its caller's person to fill in (`state.elicit`), as MCP's
elicitation defines them: an object of flat fields — text (with a format, a length, or a
choice of values), numbers, booleans, and several choices of a list —, each with an optional
default. A schema beyond that is refused before anyone is asked, and an answer is checked
against its schema (defaults filled in first) before the tool sees it."""

from __future__ import annotations

import datetime
import re
from collections.abc import Mapping
from typing import Any

from .._errors import ElicitationError

__all__ = ["check_answer", "check_form", "with_defaults"]

_TOP_KEYS = frozenset({"$schema", "type", "properties", "required"})
_COMMON = frozenset({"type", "title", "description", "default"})
_KEYS = {
    "string": _COMMON | {"minLength", "maxLength", "format", "enum", "enumNames", "oneOf"},
    "number": _COMMON | {"minimum", "maximum"},
    "integer": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "array": _COMMON | {"minItems", "maxItems", "items"},
}
_FORMATS = frozenset({"email", "uri", "date", "date-time"})
_EMAIL = re.compile(r"[^@\s]+@[^@\s]+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S*")


def check_form(schema: Any) -> dict[str, Any]:
    """`schema` as a plain dict when MCP's forms can carry it; else `ElicitationError` naming
    what cannot be asked and what can."""
    if not isinstance(schema, Mapping) or schema.get("type") != "object":
        raise ElicitationError(
            'a form\'s schema is a JSON Schema object ({"type": "object", "properties": {...}}),'
            f" got {_shown(schema)}"
        )
    extra = sorted(str(k) for k in schema if k not in _TOP_KEYS)
    if extra:
        raise ElicitationError(
            f"a form's schema has only type, properties and required; {_listed(extra)} cannot be"
            " asked"
        )
    fields = schema.get("properties", {})
    if not isinstance(fields, Mapping):
        raise ElicitationError(f"a form's properties are an object of fields, got {_shown(fields)}")
    for name, spec in fields.items():
        _check_field(str(name), spec)
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise ElicitationError(
            f"a form's required is a list of field names, got {_shown(required)}"
        )
    unknown = [r for r in required if r not in fields]
    if unknown:
        raise ElicitationError(f"the form requires {_listed(unknown)}, which it does not have")
    form: dict[str, Any] = _plain(schema)
    return form


def _check_field(name: str, spec: Any) -> None:
    kind = spec.get("type") if isinstance(spec, Mapping) else None
    if kind not in _KEYS:
        raise ElicitationError(
            f"field {name!r} cannot be asked in a form: a field is a string, number, integer,"
            f" boolean, or an array of choices (got {_shown(spec)}); nested objects and"
            " references are not part of MCP's forms"
        )
    assert isinstance(spec, Mapping)
    extra = sorted(str(k) for k in spec if k not in _KEYS[kind])
    if extra:
        allowed = ", ".join(sorted(_KEYS[kind] - {"type"}))
        raise ElicitationError(
            f"field {name!r}: {_listed(extra)} is not part of MCP's forms (a {kind} field may"
            f" have {allowed})"
        )
    if kind == "string":
        _check_choices(name, spec)
        if "format" in spec and spec["format"] not in _FORMATS:
            raise ElicitationError(f"field {name!r}: format is one of {_listed(sorted(_FORMATS))},"
                                   f" got {_shown(spec['format'])}")  # fmt: skip
    if kind == "array":
        items = spec.get("items")
        if not isinstance(items, Mapping) or not (
            (items.get("type") == "string" and set(items) == {"type", "enum"})
            or set(items) == {"anyOf"}
            or (set(items) == {"type", "anyOf"} and items.get("type") == "string")
        ):
            raise ElicitationError(
                f"field {name!r}: an array field is several choices of a list — items"
                ' {"type": "string", "enum": [...]} or {"anyOf": [{"const": ..., "title": ...}]}'
            )
        _check_choices(name, items)
    if "default" in spec:
        problem = _value_problem(spec, spec["default"])
        if problem is not None:
            raise ElicitationError(f"field {name!r}: its default {problem}")


def _check_choices(name: str, spec: Mapping[str, Any]) -> None:
    enum = spec.get("enum")
    if enum is not None and not (enum and all(isinstance(v, str) for v in enum)):
        raise ElicitationError(f"field {name!r}: enum is a list of strings, got {_shown(enum)}")
    names = spec.get("enumNames")
    if names is not None and (
        enum is None or not isinstance(names, list) or len(names) != len(enum)
    ):
        raise ElicitationError(f"field {name!r}: enumNames names each value of enum, in order")
    for key in ("oneOf", "anyOf"):
        titled = spec.get(key)
        if titled is None:
            continue
        if not titled or not all(
            isinstance(o, Mapping) and set(o) == {"const", "title"} and isinstance(o["const"], str)
            and isinstance(o["title"], str) for o in titled
        ):  # fmt: skip
            raise ElicitationError(f"field {name!r}: {key} is a list of"
                                   ' {"const": value, "title": label} choices')  # fmt: skip


def with_defaults(schema: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, Any]:
    """The answer, with each field it leaves out that the schema gives a default for filled
    with that default (SEP-1034: the asker gets what the person saw)."""
    content = dict(answer)
    for name, spec in (schema.get("properties") or {}).items():
        if name not in content and isinstance(spec, Mapping) and "default" in spec:
            content[name] = spec["default"]
    return content


def check_answer(schema: Mapping[str, Any], answer: Any) -> dict[str, Any]:
    """The answer to a form checked by `check_form`, defaults filled in; `ElicitationError`
    naming each field that does not fit."""
    if not isinstance(answer, Mapping):
        raise ElicitationError(
            f"the answer to the form is not an object of fields: {_shown(answer)}"
        )
    content = with_defaults(schema, answer)
    fields: Mapping[str, Any] = schema.get("properties", {})
    problems = [f"{name!r} is not a field of the form" for name in content if name not in fields]
    problems += [f"{name!r} is required" for name in schema.get("required", [])
                 if name not in content]  # fmt: skip
    for name, value in content.items():
        problem = _value_problem(fields[name], value) if name in fields else None
        if problem is not None:
            problems.append(f"{name!r} {problem}")
    if problems:
        raise ElicitationError("the answer does not fit the form: " + "; ".join(problems))
    return content


def _value_problem(spec: Mapping[str, Any], value: Any) -> str | None:
    """What is wrong with `value` for the field `spec`, or None."""
    kind = spec["type"]
    if kind == "boolean":
        return None if isinstance(value, bool) else f"is a boolean, got {_shown(value)}"
    if kind in ("number", "integer"):
        return _number_problem(spec, value)
    if kind == "array":
        items = spec["items"]
        if not isinstance(value, list):
            return f"is a list of choices, got {_shown(value)}"
        wrong = [v for v in value if v not in _choices(items)]
        if wrong:
            return f"offers no choice {_shown(wrong[0])}"
        if len(value) < spec.get("minItems", 0) or len(value) > spec.get("maxItems", len(value)):
            return f"takes {spec.get('minItems', 0)} to {spec.get('maxItems', 'any number of')}" \
                f" choices, got {len(value)}"  # fmt: skip
        return None
    if not isinstance(value, str):
        return f"is text, got {_shown(value)}"
    choices = _choices(spec)
    if choices and value not in choices:
        return f"is one of {_listed(choices)}, got {_shown(value)}"
    if len(value) < spec.get("minLength", 0) or len(value) > spec.get("maxLength", len(value)):
        return f"has {spec.get('minLength', 0)} to {spec.get('maxLength', 'any number of')}" \
            f" characters, got {len(value)}"  # fmt: skip
    if "format" in spec and not _formatted(spec["format"], value):
        return (
            f"is a{'n' if spec['format'] == 'email' else ''} {spec['format']}, got {_shown(value)}"
        )
    return None


def _number_problem(spec: Mapping[str, Any], value: Any) -> str | None:
    integral = isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    if isinstance(value, bool) or not isinstance(value, int | float):
        return f"is a number, got {_shown(value)}"
    if spec["type"] == "integer" and not integral:
        return f"is a whole number, got {_shown(value)}"
    if value < spec.get("minimum", value) or value > spec.get("maximum", value):
        return f"is from {spec.get('minimum', '-∞')} to {spec.get('maximum', '∞')}, got {value}"
    return None


def _choices(spec: Mapping[str, Any]) -> list[str]:
    titled = spec.get("oneOf") or spec.get("anyOf") or []
    return [*spec.get("enum", []), *(choice["const"] for choice in titled)]


def _formatted(form: str, value: str) -> bool:
    try:
        if form == "date":
            datetime.date.fromisoformat(value)
        elif form == "date-time":
            datetime.datetime.fromisoformat(value)
    except ValueError:
        return False
    if form == "email":
        return _EMAIL.fullmatch(value) is not None
    if form == "uri":
        return _URI.fullmatch(value) is not None
    return True


def _plain(value: Any) -> Any:
    """A JSON value as plain dicts and lists (a schema may come as any mapping)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _listed(names: list[str]) -> str:
    return ", ".join(repr(n) for n in names)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
