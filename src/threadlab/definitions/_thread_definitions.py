"""What a thread's definitions add up to: its prompts, tools, subagent relationships and
declared variables — and the one rule by which a variable's name resolves to a value."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from .._errors import DefinitionError
from ._mcp_servers import MCP_PREFIX
from ._registry import Registry
from ._types import AgentDefinition, MCPServerDefinition, PromptDefinition, ToolDefinition
from ._values import Include, Side, Subagent, Variable

__all__ = [
    "Declaration",
    "Resolve",
    "ThreadDefinitions",
    "agent_for",
    "relationship_enabled",
    "resolve_variable",
]

Resolve = Callable[[str], "str | None"]


@dataclass(frozen=True)
class Declaration:
    """A variable as one definition declares it."""

    variable: Variable
    declarer: str  # "tool 'search'", "prompt 'helper'", ... for error messages
    tool: str | None = None  # the declaring tool, whose `ToolConfig` env values apply to it


def relationship_enabled(relationship: Subagent, resolve: Resolve) -> bool:
    """`optional` names an env flag: the relationship exists only when it is true/1/yes."""
    if relationship.optional is None:
        return True
    value = resolve(relationship.optional)
    return isinstance(value, str) and value.strip().lower() in ("true", "1", "yes")


def resolve_variable(
    definitions: ThreadDefinitions,
    name: str,
    *,
    own: Mapping[str, str | None],
    inherited: Resolve | None,
    prompt: PromptDefinition | None = None,
    tool: str | None = None,
) -> str | None:
    """The value of `name` for a thread, highest first: its `own` values (given at creation,
    by the relationship, or by set_env); the parent's (`inherited`, None for a root thread)
    unless the thread's definitions declare the name scoped; the definitions' defaults (agent
    env, the asking tool's `ToolConfig` env, prompt env); the process environment for
    declared names (for a scoped name, root threads only)."""
    if name in own:
        return own[name]
    scoped = definitions.is_scoped(name)
    if inherited is not None and not scoped:
        value = inherited(name)
        if value is not None:
            return value
    default = definitions.default_value(name, prompt, tool)
    if default is not None:
        return default
    if definitions.declared(name) and not (scoped and inherited is not None):
        return os.environ.get(name)
    return None


def agent_for(registry: Registry, target: str) -> AgentDefinition:
    """The agent a thread runs: a defined agent, or a bare prompt wrapped as an ai_human agent."""
    agent = registry.agent(target)
    if agent is not None:
        return agent
    prompt = registry.prompt(target)
    if prompt is not None:
        return AgentDefinition(name=target, side_a=Side(target))
    agents = sorted(a.name for a in registry.agents())
    prompts = sorted(p.name for p in registry.prompts())
    raise DefinitionError(
        f"unknown target {target!r}: it is neither a defined agent nor a prompt"
        f" (agents: {', '.join(agents) or 'none'}; prompts: {', '.join(prompts) or 'none'})"
    )


class ThreadDefinitions:
    """The definitions a thread's own execution reaches. Subagents run in child threads, so
    their definitions are not part of it: they are listed as `relationships`."""

    def __init__(self, registry: Registry, target: str) -> None:
        self.registry = registry
        self.agent = agent_for(registry, target)
        self.prompts: dict[str, PromptDefinition] = {}
        self.tools: dict[str, ToolDefinition] = {}
        self.relationships: list[Subagent] = []
        self._handoffs: set[str] = set()
        self.declarations: list[Declaration] = [
            Declaration(v, f"agent {self.agent.name!r}") for v in self.agent.variables
        ]
        self._add_agent(self.agent)

    def _add_agent(self, agent: AgentDefinition) -> None:
        what = f"agent {agent.name!r}"
        sides = [agent.side_a] + ([agent.side_b] if agent.side_b else [])
        for side in sides:
            self._add_prompt(side.prompt, what)
            for tool_name in (side.session_stop, side.session_fail, side.stop_tool):
                if tool_name is not None and tool_name not in self.tools:
                    tool = self.registry.tool(tool_name)
                    if tool is None:
                        raise DefinitionError(
                            f"{what} ends its session or turn with tool {tool_name!r}, which is"
                            " not a defined tool"
                        )
                    self._add_tool(tool)
            for relationship in side.subagents:
                child = self.registry.agent(relationship.name)
                if child is None:
                    raise DefinitionError(
                        f"{what} declares subagent {relationship.name!r}, which is not a"
                        " defined agent"
                    )
                self.relationships.append(relationship)

    def _add_tool(self, tool: ToolDefinition) -> None:
        self.tools[tool.name] = tool
        self.declarations.extend(
            Declaration(v, f"tool {tool.name!r}", tool.name) for v in tool.variables
        )

    def _add_prompt(self, name: str, referrer: str) -> None:
        if name in self.prompts:
            return
        prompt = self.registry.prompt(name)
        if prompt is None:
            raise DefinitionError(f"{referrer} refers to prompt {name!r}, which is not defined")
        self.prompts[name] = prompt
        what = f"prompt {name!r}"
        self.declarations.extend(Declaration(v, what) for v in prompt.variables)
        key = self.model_key_variable(prompt)
        if key is not None:
            self.declarations.append(Declaration(key, f"model {prompt.model!r} ({what})"))
        for part in prompt.prompt:
            if isinstance(part, Include):
                self._add_prompt(part.prompt, what)
        for tool_name in prompt.tool_names():
            server = MCPServerDefinition.named_by(tool_name)
            if server is not None:
                self._add_mcp_tools(server, what)
                continue
            definition = self.registry.get(tool_name)
            if definition is None:
                raise DefinitionError(f"{what} lists tool {tool_name!r}, which is not defined")
            if isinstance(definition, ToolDefinition):
                if tool_name not in self.tools:
                    self._add_tool(definition)
            elif isinstance(definition, PromptDefinition):
                if not definition.expose_as_tool:
                    raise DefinitionError(
                        f"{what} lists prompt {tool_name!r} as a tool, but that prompt is not"
                        " exposed as a tool (define it with expose_as_tool=True)"
                    )
                self._add_prompt(tool_name, what)
            else:
                self._add_agent_tool(definition, what)

    def _add_mcp_tools(self, server: str, what: str) -> None:
        if self.registry.mcp_server(server) is None:
            raise DefinitionError(
                f"{what} lists '{MCP_PREFIX}{server}', but no MCP server {server!r} is defined"
            )
        for tool in self.registry.tools():
            if tool.mcp_server == server and tool.name not in self.tools:
                self._add_tool(tool)

    def _add_agent_tool(self, agent: AgentDefinition, what: str) -> None:
        if not agent.expose_as_tool:
            raise DefinitionError(
                f"{what} lists agent {agent.name!r} as a tool, but that agent is not exposed"
                " as a tool (define it with expose_as_tool=True)"
            )
        if agent.type == "ai_human":
            # A handoff: the other agent answers in this thread, so its definitions are ours.
            if agent.name not in self._handoffs:
                self._handoffs.add(agent.name)
                self.declarations.extend(
                    Declaration(v, f"agent {agent.name!r}") for v in agent.variables
                )
                self._add_agent(agent)
        else:
            self.relationships.append(Subagent(agent.name))

    def model_key_variable(self, prompt: PromptDefinition) -> Variable | None:
        if not isinstance(prompt.model, str):
            return None
        if prompt.model == "offline":
            return None
        definition = self.registry.model(prompt.model)
        if definition is None:
            raise DefinitionError(
                f"prompt {prompt.name!r} uses model {prompt.model!r}, which is not defined"
                " (define it with tl.define_model, or use 'offline')"
            )
        return definition.key_variable()

    def declared(self, name: str) -> list[Declaration]:
        """Every declaration of `name` in this thread's definitions."""
        return [d for d in self.declarations if d.variable.name == name]

    def is_scoped(self, name: str) -> bool:
        """Whether any of this thread's definitions declares `name` scoped."""
        return any(d.variable.scoped for d in self.declared(name))

    def variable_type(self, name: str) -> Literal["text", "secret"] | None:
        """The declared type (secret wins when declarations disagree); None if undeclared."""
        declared = self.declared(name)
        if not declared:
            return None
        return "secret" if any(d.variable.type == "secret" for d in declared) else "text"

    def secret_names(self) -> set[str]:
        return {d.variable.name for d in self.declarations if d.variable.type == "secret"}

    def default_value(
        self, name: str, prompt: PromptDefinition | None = None, tool: str | None = None
    ) -> str | None:
        """A value from the definitions themselves: agent env, then the `ToolConfig` env that
        `prompt` (or any of the thread's prompts) gives `tool`, then prompt env."""
        if name in self.agent.env:
            return self.agent.env[name]
        prompts = [prompt] if prompt is not None else list(self.prompts.values())
        if tool is not None:
            for candidate in prompts:
                tool_env = candidate.tool_env(tool)
                if name in tool_env:
                    return tool_env[name]
        for candidate in prompts:
            if name in candidate.env:
                return candidate.env[name]
        return None
