"""The immutable definitions a registry holds: tools, prompts, agents, models and hooks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ._schema import ArgsSchema
from ._values import Env, Include, Side, SubpromptConfig, Text, ToolConfig, Variable

__all__ = [
    "HOOK_NAMES",
    "RESERVED_TOOL_NAMES",
    "AgentDefinition",
    "Definition",
    "HookDefinition",
    "ModelDefinition",
    "PromptDefinition",
    "PromptPart",
    "ToolDefinition",
    "ToolEntry",
]

RESERVED_TOOL_NAMES: frozenset[str] = frozenset(
    {"subagents", "subagent_create", "subagent_message"}
)

HOOK_NAMES: frozenset[str] = frozenset(
    {
        "tool_call_started",
        "filter_messages",
        "prefilter_llm_history",
        "before_create_message",
        "after_create_message",
        "before_store_tool_result",
        "after_tool_call_success",
        "after_tool_call_failure",
        "after_subagent_created",
    }
)

PromptPart = Text | Include | Env
ToolEntry = str | SubpromptConfig | ToolConfig

_DEFINITION = ConfigDict(frozen=True, arbitrary_types_allowed=True)


class ToolDefinition(BaseModel):
    """A function tool."""

    model_config = _DEFINITION
    kind: Literal["tool"] = "tool"
    name: str
    description: str
    execute: Callable[..., Any]
    args: ArgsSchema
    variables: tuple[Variable, ...] = ()
    progress_argument: str | None = None
    timeout: float | None = 120.0


class PromptDefinition(BaseModel):
    """A prompt: system prompt parts, a model, the tools it offers and its history flags."""

    model_config = _DEFINITION
    kind: Literal["prompt"] = "prompt"
    name: str
    prompt: tuple[PromptPart, ...]
    model: Any = "offline"  # a model name, or a model object
    tool_description: str = ""
    tools: tuple[ToolEntry, ...] = ()
    include_chat: bool = False
    include_past_tools: bool = False
    parallel_tool_calls: bool = False
    tool_choice: str = "auto"
    required_schema: ArgsSchema | None = None
    variables: tuple[Variable, ...] = ()
    env: dict[str, str] = {}
    hooks: tuple[str, ...] = ()
    expose_as_tool: bool = False

    def tool_names(self) -> list[str]:
        return [entry if isinstance(entry, str) else entry.name for entry in self.tools]

    def tool_env(self, tool_name: str) -> dict[str, str]:
        for entry in self.tools:
            if isinstance(entry, ToolConfig) and entry.name == tool_name:
                return entry.env
        return {}


class AgentDefinition(BaseModel):
    """An agent: one AI side facing a human (`ai_human`), or two AI sides (`dual_ai`)."""

    model_config = _DEFINITION
    kind: Literal["agent"] = "agent"
    name: str
    type: Literal["ai_human", "dual_ai"] = "ai_human"
    side_a: Side
    side_b: Side | None = None
    expose_as_tool: bool = False
    tool_description: str = ""
    max_session_turns: int | None = None
    hooks: tuple[str, ...] = ()
    variables: tuple[Variable, ...] = ()
    env: dict[str, str] = {}


class ModelDefinition(BaseModel):
    """A named model: a provider, the provider's model id and how to reach it."""

    model_config = _DEFINITION
    name: str
    provider: Literal["offline", "openai", "anthropic"]
    model: str
    base_url: str | None = None
    api_key_variable: str | None = None
    options: dict[str, Any] = {}

    def key_variable(self) -> Variable | None:
        """The secret this model needs, declared on every prompt that uses it."""
        if self.provider == "offline":
            return None
        default = "OPENAI_API_KEY" if self.provider == "openai" else "ANTHROPIC_API_KEY"
        return Variable(
            self.api_key_variable or default,
            type="secret",
            required=True,
            description=f"API key for model {self.name!r}",
        )


class HookDefinition(BaseModel):
    """A hook implementation, run only where a prompt or agent lists its id."""

    model_config = _DEFINITION
    hook: str
    id: str
    execute: Callable[..., Any]


Definition = ToolDefinition | PromptDefinition | AgentDefinition
