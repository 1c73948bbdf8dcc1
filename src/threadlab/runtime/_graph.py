"""What a thread's definitions add up to: its prompts, tools, models and declared variables."""

from __future__ import annotations

from dataclasses import dataclass

from .._errors import DefinitionError
from ._definitions import AgentDefinition, PromptDefinition, ToolDefinition
from ._registry import Registry
from ._values import Include, Side, Variable

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
    """The definitions a thread's own execution reaches (not its subagents')."""

    def __init__(self, registry: Registry, target: str) -> None:
        self.registry = registry
        self.agent = agent_for(registry, target)
        self.prompts: dict[str, PromptDefinition] = {}
        self.tools: dict[str, ToolDefinition] = {}
        self.declarations: list[Declaration] = [
            Declaration(v, f"agent {self.agent.name!r}") for v in self.agent.variables
        ]
        sides = [self.agent.side_a] + ([self.agent.side_b] if self.agent.side_b else [])
        for side in sides:
            self._add_prompt(side.prompt, f"agent {self.agent.name!r}")

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
                    self.tools[tool_name] = definition
                    self.declarations.extend(
                        Declaration(v, f"tool {tool_name!r}") for v in definition.variables
                    )
            else:
                raise DefinitionError(
                    f"{owner} lists {definition.kind} {tool_name!r} as a tool; prompts and"
                    " agents as tools are not supported by this version of threadlab"
                )

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
