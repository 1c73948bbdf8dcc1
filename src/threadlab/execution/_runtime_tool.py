"""Tools the runtime builds for one frame (prompt and agent tools, lifecycle tools)."""

from __future__ import annotations

from typing import Any

from ..definitions import ArgsSchema, ToolDefinition
from ..models import ToolPurpose

__all__ = ["BuiltinTool", "builtin_tool"]


class BuiltinTool(ToolDefinition):
    """A tool made by the runtime for one frame; `purpose` tells models what it is."""

    purpose: ToolPurpose = "function"


def builtin_tool(
    name: str,
    description: str,
    args: ArgsSchema,
    execute: Any,
    purpose: ToolPurpose,
    approval: Any = None,
) -> ToolDefinition:
    """A runtime-built tool. It has no tool timeout: the step and failure budgets bound what
    these run."""
    return BuiltinTool(
        name=name,
        description=description,
        execute=execute,
        args=args,
        timeout=None,
        purpose=purpose,
        approval=approval,
    )
