"""What a thread's definitions add up to: its prompts, tools, subagent relationships and
declared variables."""

from __future__ import annotations

from dataclasses import dataclass

from .._errors import DefinitionError
from ._definitions import AgentDefinition, PromptDefinition, ToolDefinition
from ._registry import Registry
from ._values import Include, Side, Subagent, Variable

__all__ = ["Declaration", "ThreadGraph", "agent_for"]


@dataclass(frozen=True)
class Declaration:
    variable: Variable
    declarer: str


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


class ThreadGraph:
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
        owner = f"agent {agent.name!r}"
        sides = [agent.side_a] + ([agent.side_b] if agent.side_b else [])
        for side in sides:
            self._add_prompt(side.prompt, owner)
            for tool_name in (side.session_stop, side.session_fail, side.stop_tool):
                if tool_name is not None and tool_name not in self.tools:
                    tool = self.registry.tool(tool_name)
                    if tool is None:
                        raise DefinitionError(
                            f"{owner} ends its session or turn with tool {tool_name!r}, which is"
                            " not a defined tool"
                        )
                    self._add_tool(tool)
            for relationship in side.subagents:
                child = self.registry.agent(relationship.name)
                if child is None:
                    raise DefinitionError(
                        f"{owner} declares subagent {relationship.name!r}, which is not a"
                        " defined agent"
                    )
                self.relationships.append(relationship)

    def _add_tool(self, tool: ToolDefinition) -> None:
        self.tools[tool.name] = tool
        self.declarations.extend(Declaration(v, f"tool {tool.name!r}") for v in tool.variables)

    def _add_prompt(self, name: str, referrer: str) -> None:
        if name in self.prompts:
            return
        prompt = self.registry.prompt(name)
        if prompt is None:
            raise DefinitionError(f"{referrer} refers to prompt {name!r}, which is not defined")
        self.prompts[name] = prompt
        owner = f"prompt {name!r}"
        self.declarations.extend(Declaration(v, owner) for v in prompt.variables)
        key = self.model_key_variable(prompt)
        if key is not None:
            self.declarations.append(Declaration(key, f"model {prompt.model!r} ({owner})"))
        for part in prompt.prompt:
            if isinstance(part, Include):
                self._add_prompt(part.prompt, owner)
        for tool_name in prompt.tool_names():
            definition = self.registry.get(tool_name)
            if definition is None:
                raise DefinitionError(f"{owner} lists tool {tool_name!r}, which is not defined")
            if isinstance(definition, ToolDefinition):
                if tool_name not in self.tools:
                    self._add_tool(definition)
            elif isinstance(definition, PromptDefinition):
                if not definition.expose_as_tool:
                    raise DefinitionError(
                        f"{owner} lists prompt {tool_name!r} as a tool, but that prompt is not"
                        " exposed as a tool (define it with expose_as_tool=True)"
                    )
                self._add_prompt(tool_name, owner)
            else:
                self._add_agent_tool(definition, owner)

    def _add_agent_tool(self, agent: AgentDefinition, owner: str) -> None:
        if not agent.expose_as_tool:
            raise DefinitionError(
                f"{owner} lists agent {agent.name!r} as a tool, but that agent is not exposed"
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
        return [d for d in self.declarations if d.variable.name == name]

    def secret_names(self) -> set[str]:
        return {d.variable.name for d in self.declarations if d.variable.type == "secret"}

    def default_value(self, name: str) -> str | None:
        """A value from the definitions themselves: agent env, then `ToolConfig` env, then
        prompt env."""
        if name in self.agent.env:
            return self.agent.env[name]
        for prompt in self.prompts.values():
            for entry in prompt.tool_names():
                tool_env = prompt.tool_env(entry)
                if name in tool_env:
                    return tool_env[name]
        for prompt in self.prompts.values():
            if name in prompt.env:
                return prompt.env[name]
        return None
