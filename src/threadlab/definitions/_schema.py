"""Argument schemas: declaring them (pydantic model, JSON Schema or none), validating model
output against them, and shaping what is sent to a model."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError

from .._errors import DefinitionError

if TYPE_CHECKING:
    import jsonschema

__all__ = ["ArgsSchema", "format_path", "plain_check"]

_NO_ARGS: dict[str, Any] = {"type": "object", "properties": {}, "additionalProperties": False}


def format_path(parts: tuple[Any, ...] | list[Any]) -> str:
    """`("files", 2, "name")` -> `files[2].name`; the empty path is the arguments themselves."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out or "(arguments)"


class ArgsSchema:
    """The declared arguments of a tool, validated the way they were declared."""

    def __init__(
        self,
        what: str,
        declared: type[BaseModel] | dict[str, Any] | None,
        *,
        trusted: bool = False,
    ) -> None:
        """`trusted`: a schema of threadlab's own, known to be valid: not checked, and the
        jsonschema machinery (slow to import) is loaded only when a value needs it."""
        self.what = what
        self.model: type[BaseModel] | None = None
        self._declared: dict[str, Any] | None = None
        self._validator: jsonschema.protocols.Validator | None = None
        self._plainly_valid: Callable[[dict[str, Any]], bool] | None = None
        if declared is None:
            self.json_schema: dict[str, Any] = dict(_NO_ARGS)
        elif isinstance(declared, type) and issubclass(declared, BaseModel):
            self.model = declared
            self.json_schema = declared.model_json_schema()
        elif isinstance(declared, dict):
            if declared.get("type") != "object":
                raise DefinitionError(
                    f'{what}: args schema must be a JSON Schema with "type": "object"'
                    f" (got type {declared.get('type')!r})"
                )
            self.json_schema = dict(declared)
            self._declared = declared
            self._plainly_valid = plain_check(declared)
            if not trusted and self._plainly_valid is None:
                # A schema that is not valid: said now. One of the common shape is known to be
                # valid, which spares importing jsonschema (seconds) on a tool's definition.
                self._jsonschema_validator()
        else:
            raise DefinitionError(
                f"{what}: args must be a pydantic BaseModel subclass, a JSON Schema dict or None"
                f" (got {type(declared).__name__})"
            )

    def __repr__(self) -> str:
        properties = self.json_schema.get("properties") or {}
        return f"ArgsSchema({', '.join(properties) or 'no arguments'})"

    def _jsonschema_validator(self) -> jsonschema.protocols.Validator:
        # jsonschema is imported here, when first needed: with the optional format packages a
        # notebook server installs, its import costs seconds.
        import jsonschema

        if self._validator is None:
            declared = self._declared or {}
            validator_cls = jsonschema.validators.validator_for(
                declared, default=jsonschema.Draft202012Validator
            )
            try:
                validator_cls.check_schema(declared)
            except jsonschema.SchemaError as exc:
                raise DefinitionError(
                    f"{self.what}: args is not a valid JSON Schema: {exc.message}"
                ) from None
            self._validator = validator_cls(declared)
        return self._validator

    @property
    def properties(self) -> dict[str, Any]:
        props = self.json_schema.get("properties", {})
        return props if isinstance(props, dict) else {}

    def is_string_property(self, name: str) -> bool:
        """True when `name` is a declared property whose value is a string (nullable counts)."""
        prop = self.properties.get(name)
        if not isinstance(prop, dict):
            return False
        return _is_stringish(prop)

    def validate(self, value: Any) -> tuple[Any, list[str]]:
        """Validate parsed arguments. Returns (the value `execute` receives, problems)."""
        if not isinstance(value, dict):
            return None, [f"(arguments): expected a JSON object, got {_describe_json_value(value)}"]
        if self.model is not None:
            try:
                return self.model.model_validate(value), []
            except ValidationError as exc:
                return None, [
                    f"{format_path(tuple(err['loc']))}: {err['msg']}" for err in exc.errors()
                ]
        if self._declared is not None:
            if self._plainly_valid is not None and self._plainly_valid(value):
                return value, []
            validator = self._jsonschema_validator()
            errors = sorted(validator.iter_errors(value), key=lambda e: list(e.path))
            if errors:
                return None, [f"{format_path(list(e.path))}: {e.message}" for e in errors]
            return value, []
        extra = sorted(value)
        if extra:
            return None, [f"{name}: this tool takes no arguments" for name in extra]
        return {}, []

    def for_model(self, progress_argument: str | None) -> dict[str, Any]:
        """The schema sent to a model, with the progress argument moved first so it streams
        (and completes) before any large argument."""
        schema = dict(self.json_schema)
        props = self.properties
        if progress_argument and progress_argument in props:
            ordered = {progress_argument: props[progress_argument]}
            ordered.update((k, v) for k, v in props.items() if k != progress_argument)
            schema["properties"] = ordered
            required = schema.get("required")
            if isinstance(required, list) and progress_argument in required:
                schema["required"] = [progress_argument] + [
                    r for r in required if r != progress_argument
                ]
        return schema


def _is_stringish(prop: dict[str, Any]) -> bool:
    json_type = prop.get("type")
    if json_type == "string":
        return True
    if isinstance(json_type, list):
        return "string" in json_type and set(json_type) <= {"string", "null"}
    for key in ("anyOf", "oneOf"):
        options = prop.get(key)
        if isinstance(options, list) and options:
            types = {o.get("type") for o in options if isinstance(o, dict)}
            if "string" in types and types <= {"string", "null"}:
                return True
    return False


def _describe_json_value(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


# The common shape of a tool's arguments, checked without the jsonschema machinery (which costs
# more than the rest of a small call's validation): an object of properties whose schemas say
# only their JSON type. Anything else in a schema leaves it to jsonschema entirely.
_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: type(v) is int,  # not bool; 1.0 is left to jsonschema's draft rules
    "number": lambda v: type(v) in (int, float),
    "boolean": lambda v: type(v) is bool,
    "null": lambda v: v is None,
    "array": lambda v: type(v) is list,
    "object": lambda v: type(v) is dict,
}
# What each annotation must be for the schema to be valid (`default` may be anything).
_ANNOTATION_TYPES: dict[str, type | None] = {
    "title": str,
    "description": str,
    "$comment": str,
    "examples": list,
    "default": None,
}
_ANNOTATIONS = frozenset(_ANNOTATION_TYPES)


def _annotations_valid(schema: dict[str, Any]) -> bool:
    for key, kind in _ANNOTATION_TYPES.items():
        if kind is not None and key in schema and not isinstance(schema[key], kind):
            return False
    return True


def plain_check(schema: dict[str, Any]) -> Callable[[dict[str, Any]], bool] | None:
    """For a schema of that common shape, a check that says True only for values jsonschema
    would accept too (False means "ask jsonschema", which also says why); None for any other
    schema. A schema it takes is a valid one (its annotations well typed, its required names
    and types each listed once)."""
    if set(schema) - _ANNOTATIONS - {"type", "properties", "required", "additionalProperties"}:
        return None
    if not _annotations_valid(schema):
        return None
    if schema.get("type") != "object":
        return None
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    closed = schema.get("additionalProperties", True)
    if not isinstance(properties, dict) or not isinstance(closed, bool):
        return None
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        return None
    if len(set(required)) != len(required):
        return None
    checks: dict[str, Callable[[Any], bool]] = {}
    for name, prop in properties.items():
        check = _type_check(prop)
        if check is None:
            return None
        checks[name] = check
    needed = tuple(required)

    def plainly_valid(value: dict[str, Any]) -> bool:
        for name in needed:
            if name not in value:
                return False
        for name, item in value.items():
            check = checks.get(name)
            if check is None:
                if closed is False:
                    return False
            elif not check(item):
                return False
        return True

    return plainly_valid


def _type_check(prop: Any) -> Callable[[Any], bool] | None:
    if prop is True:
        return lambda _: True
    if not isinstance(prop, dict) or set(prop) - _ANNOTATIONS - {"type"}:
        return None
    if not _annotations_valid(prop):
        return None
    if "type" not in prop:
        return lambda _: True
    kind = prop["type"]
    kinds = kind if isinstance(kind, list) else [kind]
    if not kinds or not all(isinstance(k, str) and k in _TYPE_CHECKS for k in kinds):
        return None
    if len(set(kinds)) != len(kinds):
        return None
    tests = [_TYPE_CHECKS[k] for k in kinds]
    if len(tests) == 1:
        return tests[0]
    return lambda v: any(test(v) for test in tests)
