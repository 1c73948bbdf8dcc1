"""Tool parameters as OpenAI's strict mode accepts them.

Strict mode makes the model's arguments match the schema exactly, but it takes only a subset
of JSON Schema: every object closed (`additionalProperties: false`) with all its properties
required, and a limited set of keywords. A schema that already has that shape is sent strict;
any other is sent as is, without strict, rather than rewritten into something the tool did
not declare.
"""

from __future__ import annotations

from typing import Any

__all__ = ["strict_ok"]

_STRICT_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const",
        "description", "title", "anyOf", "$defs", "$ref", "pattern", "format", "minimum",
        "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip


def strict_ok(schema: Any) -> bool:
    """Whether `schema` can be sent with `strict: true` unchanged.

    Examples:
        >>> closed = {"type": "object", "properties": {"a": {"type": "integer"}},
        ...           "required": ["a"], "additionalProperties": False}
        >>> strict_ok(closed), strict_ok({**closed, "required": []})
        (True, False)
    """
    stack = [schema]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or not set(node) <= _STRICT_KEYWORDS:
            return False
        properties = node.get("properties")
        if node.get("type") == "object" or properties is not None:
            if node.get("additionalProperties") is not False:
                return False
            names = set(properties or {})
            if set(node.get("required", ())) != names:
                return False
            stack.extend((properties or {}).values())
        if "items" in node:
            stack.append(node["items"])
        stack.extend(node.get("anyOf", ()))
        stack.extend(node.get("$defs", {}).values())
    return True
