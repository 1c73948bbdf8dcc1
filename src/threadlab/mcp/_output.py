"""A served tool's output schema and structured result: a tool whose result type is a
pydantic model, a TypedDict or a dict shape publishes that type's JSON Schema as its
`outputSchema`, and each successful call returns the result as `structuredContent` beside the
text older clients read."""

from __future__ import annotations

import json
import typing
from typing import Any

import typing_extensions
from pydantic import TypeAdapter

from .._data import ToolResult
from ..definitions import ToolDefinition

__all__ = ["output_schema", "structured_result"]


def output_schema(tool: ToolDefinition) -> dict[str, Any] | None:
    """The JSON Schema of the tool's results, when they are JSON objects (MCP's rule for an
    output schema); None for text, lists, `ToolResult` or a type pydantic cannot describe."""
    returns = tool.returns
    if returns is None or (isinstance(returns, type) and issubclass(returns, ToolResult)):
        return None  # a ToolResult's value can be anything
    schema = _schema(returns)
    if schema is None and typing.is_typeddict(returns):
        # before Python 3.12 pydantic reads only typing_extensions' TypedDict: the same shape
        fields = typing.get_type_hints(returns)
        schema = _schema(typing_extensions.TypedDict(  # type: ignore[operator]
            returns.__name__, fields, total=returns.__total__
        ))  # fmt: skip
    return schema if schema is not None and schema.get("type") == "object" else None


def _schema(annotation: Any) -> dict[str, Any] | None:
    try:
        return TypeAdapter(annotation).json_schema(mode="serialization")
    except Exception:  # a type pydantic cannot describe: no output schema, the tool still serves
        return None


def structured_result(text: str) -> dict[str, Any] | None:
    """The object a result's text holds (results are stored as their JSON), or None."""
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
