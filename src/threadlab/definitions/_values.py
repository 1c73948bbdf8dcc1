"""Small value types users build definitions from.

They are pydantic models that also take their first field positionally
(``tl.Variable("REGION", scoped=True)``), as the public API promises.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "Env",
    "Include",
    "Side",
    "Subagent",
    "SubpromptConfig",
    "Text",
    "ToolConfig",
    "Variable",
]

_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Variable(BaseModel):
    """A variable a tool, prompt, agent or model declares.

    Example:
        >>> Variable("API_KEY", type="secret", required=True).type
        'secret'
    """

    model_config = _FROZEN
    name: str
    """The variable's name, as `state.env(name)` asks for it."""
    type: Literal["text", "secret"] = "text"
    """"secret" values are encrypted at rest and redacted wherever text leaves a tool."""
    required: bool = False
    """A required variable that does not resolve blocks the thread (or the call)."""
    scoped: bool = False
    """Not inherited from a parent thread: only values given to this thread itself count."""
    description: str = ""
    """What the value is for, shown when it is asked for."""

    def __init__(self, name: str, /, **data: Any) -> None:
        super().__init__(name=name, **data)


class Text(BaseModel):
    """A literal part of a system prompt."""

    model_config = _FROZEN
    content: str

    def __init__(self, content: str, /, **data: Any) -> None:
        super().__init__(content=content, **data)


class Include(BaseModel):
    """A system prompt part that inlines another prompt's system prompt."""

    model_config = _FROZEN
    prompt: str

    def __init__(self, prompt: str, /, **data: Any) -> None:
        super().__init__(prompt=prompt, **data)


class Env(BaseModel):
    """A system prompt part replaced by a variable's value (secrets are never inlined)."""

    model_config = _FROZEN
    name: str

    def __init__(self, name: str, /, **data: Any) -> None:
        super().__init__(name=name, **data)


class SubpromptConfig(BaseModel):
    """How a prompt used as a tool maps its input and shapes what returns to the caller."""

    model_config = _FROZEN
    name: str
    include_text_response: bool = True
    include_tool_calls: bool = True
    include_errors: bool = True
    init_user_message_property: str | None = None
    init_attachments_property: str | None = None

    def __init__(self, name: str, /, **data: Any) -> None:
        super().__init__(name=name, **data)


class ToolConfig(BaseModel):
    """A prompt's `tools` entry that gives a tool env values of its own."""

    model_config = _FROZEN
    name: str
    env: dict[str, str] = Field(default_factory=dict)

    def __init__(self, name: str, /, **data: Any) -> None:
        super().__init__(name=name, **data)


class Subagent(BaseModel):
    """A subagent relationship, declared on the side that owns it."""

    model_config = _FROZEN
    name: str
    blocking: bool = True
    resumable: bool = False
    max_instances: int | None = None
    parent_communication: Literal["implicit", "explicit"] = "implicit"
    init_user_message_property: str | None = None
    init_attachments_property: str | None = None
    immediate: bool = False
    optional: str | None = None
    hidden: bool = False
    env: dict[str, str] | None = None

    def __init__(self, name: str, /, **data: Any) -> None:
        super().__init__(name=name, **data)


class Side(BaseModel):
    """One side of an agent: the prompt it runs and when its turn stops."""

    model_config = _FROZEN
    prompt: str
    stop_on_response: bool = True
    stop_tool: str | None = None
    max_steps: int | None = None
    session_stop: str | None = None
    session_fail: str | None = None
    subagents: tuple[Subagent, ...] = ()

    def __init__(self, prompt: str, /, **data: Any) -> None:
        super().__init__(prompt=prompt, **data)
