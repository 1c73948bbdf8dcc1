"""The prompt through which an external call of a function tool runs as a thread: its model
calls the tool with the arguments the user message holds (as JSON), then answers with the
tool's result. Being a prompt of the registry, a thread of it can be resumed after a
decision, forked and replayed like any other."""

from __future__ import annotations

import json
from typing import Any

from ..definitions import PromptDefinition, Registry, define_prompt
from ..models import FunctionModel, Step, call, text

__all__ = ["relay_prompt", "relayed_tool"]


def _name(tool: str) -> str:
    return f"_mcp_{tool}"[:64]


def relayed_tool(registry: Registry, target: str) -> str | None:
    """The tool of the registry whose calls the prompt named `target` relays (defined yet in
    this process or not), or None when `target` is no relay prompt's name."""
    return next((t.name for t in registry.tools() if _name(t.name) == target), None)


def relay_prompt(registry: Registry, tool: str) -> str:
    """The name of the prompt that relays calls of `tool` (defined on first use)."""
    name = _name(tool)
    existing = registry.get(name)
    if isinstance(existing, PromptDefinition) and existing.tool_names() == [tool]:
        return name

    def relay(messages: list[Any], tools: list[Any]) -> Step:
        last = messages[-1]
        if last.role == "tool":
            return text(last.content or "")
        return call(tool, json.loads(last.content or "{}"))

    relay.__name__ = "mcp-relay"
    define_prompt(name, prompt=f"Runs the tool {tool} for an MCP client.",
                  model=FunctionModel(relay), tools=[tool], registry=registry)  # fmt: skip
    return name
