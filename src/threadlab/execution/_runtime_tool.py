"""Runtime tools: the tools the runtime makes for one frame (prompts and agents exposed as
tools, the lifecycle tools), as opposed to the tools a user defines."""

from __future__ import annotations

from typing import Any

from ..definitions import ArgsSchema, ToolDefinition
from ..models import ToolPurpose

__all__ = ["RuntimeTool", "runtime_tool"]


class RuntimeTool(ToolDefinition):
    """A tool made by the runtime for one frame; `purpose` tells models what it is."""

    purpose: ToolPurpose = "function"


def runtime_tool(
    name: str,
    description: str,
    args: ArgsSchema,
    execute: Any,
    purpose: ToolPurpose,
    approval: Any = None,
) -> ToolDefinition:
    """A runtime tool. It has no tool timeout: the step and failure budgets bound what
    these run."""
    return RuntimeTool(
        name=name,
        description=description,
        execute=execute,
        args=args,
        timeout=None,
        purpose=purpose,
        approval=approval,
    )
