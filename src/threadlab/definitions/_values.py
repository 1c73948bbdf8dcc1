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

# The fields' docstrings are read from the source by the API reference, not at run time:
# pydantic's use_attribute_docstrings re-parses each module's source at import, about a tenth
# of a second of the first cell for threadlab's models.
_FROZEN = ConfigDict(frozen=True, extra="forbid")


class Variable(BaseModel):
    """A variable a tool, prompt, agent or model declares.

    Examples:
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
    """The text, verbatim."""

    def __init__(self, content: str, /, **data: Any) -> None:
        super().__init__(content=content, **data)


class Include(BaseModel):
    """A system prompt part that inlines another prompt's system prompt."""

    model_config = _FROZEN
    prompt: str
    """The prompt whose system text is inlined here."""

    def __init__(self, prompt: str, /, **data: Any) -> None:
        super().__init__(prompt=prompt, **data)


class Env(BaseModel):
    """A system prompt part replaced by a variable's value (secrets are never inlined)."""

    model_config = _FROZEN
    name: str
    """The variable whose value replaces this part (a secret shows as a placeholder)."""

    def __init__(self, name: str, /, **data: Any) -> None:
        super().__init__(name=name, **data)


class SubpromptConfig(BaseModel):
    """How a prompt used as a tool maps its input and shapes what returns to the caller."""

    model_config = _FROZEN
    name: str
    """The prompt offered as a tool."""
    include_text_response: bool = True
    """Return the nested turn's final text."""
    include_tool_calls: bool = True
    """Return the nested turn's successful calls with their results."""
    include_errors: bool = True
    """Return the nested turn's failed calls with their errors."""
    init_user_message_property: str | None = None
    """The argument that becomes the nested user message."""
    init_attachments_property: str | None = None
    """The argument that lists attachments for the nested user message."""

    def __init__(self, name: str, /, **data: Any) -> None:
        super().__init__(name=name, **data)


class ToolConfig(BaseModel):
    """A prompt's `tools` entry that gives a tool env values of its own."""

    model_config = _FROZEN
    name: str
    """The tool."""
    env: dict[str, str] = Field(default_factory=dict)
    """Values this tool sees for its variables, in this prompt only."""

    def __init__(self, name: str, /, **data: Any) -> None:
        super().__init__(name=name, **data)


class Subagent(BaseModel):
    """A subagent relationship, declared on the side that owns it."""

    model_config = _FROZEN
    name: str
    """The agent the child runs (also the relationship's name)."""
    blocking: bool = True
    """The parent waits for the child's outcome as the tool result."""
    resumable: bool = False
    """The child can be messaged again after its first session."""
    max_instances: int | None = None
    """How many live children of this relationship at once (None: no limit)."""
    parent_communication: Literal["implicit", "explicit"] = "implicit"
    """"implicit": a non-blocking child's outcome is queued to the parent; "explicit": only
    `state.notify_parent` reaches it."""
    init_user_message_property: str | None = None
    """The `arguments` field that becomes the child's first message."""
    init_attachments_property: str | None = None
    """The `arguments` field that lists files to copy to the child."""
    immediate: bool = False
    """Start one child before the parent's first model call."""
    optional: str | None = None
    """An env flag: the relationship exists only when it is true/1/yes."""
    hidden: bool = False
    """No lifecycle tools for it (only immediate children, or none)."""
    env: dict[str, str] | None = None
    """Values the parent gives the child (they become the child's own)."""
    approval: Any = None
    """Whether `subagent_create` / `subagent_message` calls for this relationship wait for a
    decision: None, "always", or a callable `(call, state) -> bool`."""

    def __init__(self, name: str, /, **data: Any) -> None:
        super().__init__(name=name, **data)


class Side(BaseModel):
    """One side of an agent: the prompt it runs and when its turn stops."""

    model_config = _FROZEN
    prompt: str
    """The prompt this side runs."""
    stop_on_response: bool = True
    """The turn ends when the model answers without tool calls."""
    stop_tool: str | None = None
    """A tool whose successful call ends the turn."""
    max_steps: int | None = None
    """Model calls per turn (else the runtime's max_steps)."""
    session_stop: str | None = None
    """A tool whose successful call ends the session as completed."""
    session_fail: str | None = None
    """A tool whose successful call ends the session as failed."""
    subagents: tuple[Subagent, ...] = ()
    """The subagent relationships this side owns."""

    def __init__(self, prompt: str, /, **data: Any) -> None:
        super().__init__(prompt=prompt, **data)
