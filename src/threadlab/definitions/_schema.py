"""Argument schemas: declaring them (pydantic model, JSON Schema or none), validating model
output against them, and shaping what is sent to a model."""

from __future__ import annotations

from typing import Any

import jsonschema
from pydantic import BaseModel, ValidationError

from .._errors import DefinitionError

__all__ = ["ArgsSchema", "format_path"]

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

    def __init__(self, owner: str, declared: type[BaseModel] | dict[str, Any] | None) -> None:
        self.owner = owner
        self.model: type[BaseModel] | None = None
        self._validator: jsonschema.protocols.Validator | None = None
        if declared is None:
            self.json_schema: dict[str, Any] = dict(_NO_ARGS)
        elif isinstance(declared, type) and issubclass(declared, BaseModel):
            self.model = declared
            self.json_schema = declared.model_json_schema()
        elif isinstance(declared, dict):
            if declared.get("type") != "object":
                raise DefinitionError(
                    f'{owner}: args schema must be a JSON Schema with "type": "object"'
                    f" (got type {declared.get('type')!r})"
                )
            validator_cls = jsonschema.validators.validator_for(
                declared, default=jsonschema.Draft202012Validator
            )
            try:
                validator_cls.check_schema(declared)
            except jsonschema.SchemaError as exc:
                raise DefinitionError(
                    f"{owner}: args is not a valid JSON Schema: {exc.message}"
                ) from None
            self.json_schema = dict(declared)
            self._validator = validator_cls(declared)
        else:
            raise DefinitionError(
                f"{owner}: args must be a pydantic BaseModel subclass, a JSON Schema dict or None"
                f" (got {type(declared).__name__})"
            )

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
        if self._validator is not None:
            errors = sorted(self._validator.iter_errors(value), key=lambda e: list(e.path))
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
