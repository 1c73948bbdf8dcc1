"""`define_*`: build a definition, check everything it shows by itself, register it."""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from .._data import HookName
from .._errors import DefinitionError
from ._attachments import Attachment
from ._registry import Registry, default_registry
from ._schema import ArgsSchema
from ._tool_ui import tool_ui
from ._types import (
    HOOK_NAMES,
    PROVIDERS,
    RESERVED_TOOL_NAMES,
    AgentDefinition,
    HookDefinition,
    ModelDefinition,
    PromptDefinition,
    PromptPart,
    Provider,
    ToolDefinition,
    ToolEntry,
)
from ._values import Env, Include, Side, Subagent, SubpromptConfig, Text, ToolConfig, Variable

__all__ = [
    "check_approval",
    "define_agent",
    "define_hook",
    "define_model",
    "define_prompt",
    "define_tool",
    "parse_prompt_text",
]

# Provider tool names allow letters, digits, "_" and "-" up to 64 characters.
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_-]{0,63}$")
_HOOK_ID = re.compile(r"^[a-z][a-z0-9_]*$")
_PLACEHOLDER = re.compile(r"\{\{\s*(env|include)\s*:\s*([^}\s]+)\s*\}\}")
_TOOL_CHOICE_MODES = ("auto", "none", "required")
_SUBAGENT_KEYS = {"blocking", "resumable", "max_instances", "parent_communication", "immediate"}


def _check_name(kind: str, name: object) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise DefinitionError(
            f"{kind} name {name!r} is invalid: use 1-64 letters, digits, '_' or '-',"
            " starting with a letter or '_'"
        )
    if name in RESERVED_TOOL_NAMES:
        raise DefinitionError(
            f"{kind} name {name!r} is reserved for the runtime's subagent lifecycle tools"
            f" ({', '.join(sorted(RESERVED_TOOL_NAMES))}); pick another name"
        )
    return name


def _variables(what: str, variables: Iterable[Variable]) -> tuple[Variable, ...]:
    out = tuple(variables)
    seen: set[str] = set()
    for var in out:
        if not isinstance(var, Variable):
            raise DefinitionError(f"{what}: variables must be tl.Variable, got {var!r}")
        if var.name in seen:
            raise DefinitionError(f"{what}: variable {var.name!r} is declared twice")
        seen.add(var.name)
    return out


def _hook_ids(what: str, hooks: Iterable[str]) -> tuple[str, ...]:
    out = tuple(hooks)
    seen: set[str] = set()
    for hook_id in out:
        if hook_id in seen:
            raise DefinitionError(f"{what}: hook id {hook_id!r} is listed twice in hooks")
        seen.add(hook_id)
    return out


def _registry(registry: Registry | None) -> Registry:
    return registry if registry is not None else default_registry()


def define_tool(
    name: str,
    *,
    description: str,
    execute: Callable[..., Any],
    args: type[BaseModel] | dict[str, Any] | None = None,
    variables: Iterable[Variable] = (),
    progress_argument: str | None = None,
    timeout: float | None = 120.0,
    approval: Any = None,
    returns: Any = None,
    ui: Any = None,
    registry: Registry | None = None,
) -> ToolDefinition:
    """Define a function tool and register it. `approval` ("always", or a callable
    `(call, state) -> bool`) makes its calls wait for a decision before they run. `returns`:
    the type of its results (default: `execute`'s return annotation), which a served tool
    publishes as its output schema. `ui`: the tool's own interactive UI, an MCP App (an HTML
    page as a str, an HTML file as a `pathlib.Path`): drawn in its card when it is called in
    a notebook, given the call's arguments and result; served by `tl.mcp.serve` as a `ui://`
    resource that MCP hosts (Claude, VS Code, ChatGPT) draw.

    Examples:
        >>> import threadlab as tl
        >>> reg = tl.Registry()
        >>> t = tl.define_tool("echo", description="Echo text.",
        ...     args={"type": "object", "properties": {"text": {"type": "string"}}},
        ...     execute=lambda state, args: args["text"], registry=reg)
        >>> t.name
        'echo'
    """
    what = f"tool {name!r}"
    _check_name("tool", name)
    if not callable(execute):
        raise DefinitionError(f"{what}: execute must be callable, got {execute!r}")
    schema = ArgsSchema(what, args)
    if progress_argument is not None and not schema.is_string_property(progress_argument):
        raise DefinitionError(
            f"{what}: progress_argument {progress_argument!r} must name a string property of"
            f" the args (declared properties: {', '.join(schema.properties) or 'none'})"
        )
    if timeout is not None and timeout <= 0:
        raise DefinitionError(f"{what}: timeout must be positive seconds or None")
    check_approval(what, approval)
    app = tool_ui(name, ui)
    definition = ToolDefinition(
        name=name,
        description=description,
        execute=execute,
        args=schema,
        variables=_variables(what, variables),
        progress_argument=progress_argument,
        timeout=timeout,
        approval=approval,
        returns=returns if returns is not None else _return_annotation(execute),
        ui=app,
    )
    _registry(registry).add(definition)
    return definition


def parse_prompt_text(text: str) -> tuple[PromptPart, ...]:
    """Split a system prompt string into parts: `{{env:NAME}}` and `{{include:name}}` become
    `Env` and `Include` parts, everything else `Text`."""
    parts: list[PromptPart] = []
    pos = 0
    for match in _PLACEHOLDER.finditer(text):
        if match.start() > pos:
            parts.append(Text(text[pos : match.start()]))
        placeholder, value = match.group(1), match.group(2)
        parts.append(Env(value) if placeholder == "env" else Include(value))
        pos = match.end()
    if pos < len(text):
        parts.append(Text(text[pos:]))
    return tuple(parts)


def _prompt_parts(what: str, prompt: object) -> tuple[PromptPart, ...]:
    if isinstance(prompt, str):
        return parse_prompt_text(prompt)
    if isinstance(prompt, list | tuple):
        parts: list[PromptPart] = []
        for part in prompt:
            if isinstance(part, str):
                parts.extend(parse_prompt_text(part))
            elif isinstance(part, Text | Include | Env):
                parts.append(part)
            else:
                raise DefinitionError(
                    f"{what}: prompt parts must be str, tl.Text, tl.Include or tl.Env; got {part!r}"
                )
        return tuple(parts)
    raise DefinitionError(f"{what}: prompt must be a string or a list of parts, got {prompt!r}")


def _tool_entries(what: str, tools: Iterable[object]) -> tuple[ToolEntry, ...]:
    entries: list[ToolEntry] = []
    seen: set[str] = set()
    for entry in tools:
        if isinstance(entry, Subagent) or (
            isinstance(entry, Mapping) and _SUBAGENT_KEYS & set(entry)
        ):
            raise DefinitionError(
                f"{what}: a tools entry cannot configure a subagent ({entry!r}); declare the"
                " relationship on the owning side: tl.Side(prompt, subagents=[tl.Subagent(...)])"
            )
        if isinstance(entry, str | SubpromptConfig | ToolConfig):
            name = entry if isinstance(entry, str) else entry.name
        else:
            raise DefinitionError(
                f"{what}: tools entries must be a name, tl.SubpromptConfig or tl.ToolConfig;"
                f" got {entry!r}"
            )
        if name in RESERVED_TOOL_NAMES:
            raise DefinitionError(
                f"{what}: {name!r} is a reserved lifecycle tool; the runtime injects it for"
                " the side's subagent relationships, so do not list it in tools"
            )
        if name in seen:
            raise DefinitionError(f"{what}: tool {name!r} is listed twice in tools")
        seen.add(name)
        entries.append(entry)
    return tuple(entries)


def _check_tool_choice(what: str, tool_choice: object, entries: tuple[ToolEntry, ...]) -> None:
    """`tool_choice` is a mode, or the name of one of the prompt's own tools."""
    if tool_choice in _TOOL_CHOICE_MODES:
        return
    names = [entry if isinstance(entry, str) else entry.name for entry in entries]
    if isinstance(tool_choice, str) and tool_choice in names:
        return
    raise DefinitionError(
        f"{what}: tool_choice {tool_choice!r} must be 'auto', 'none', 'required' or the name of"
        f" a tool the prompt lists (tools: {', '.join(names) or 'none'})"
    )


def define_prompt(
    name: str,
    *,
    prompt: str | list[Any] | tuple[Any, ...],
    model: Any = "offline",
    tool_description: str = "",
    tools: Iterable[ToolEntry] = (),
    include_chat: bool = False,
    include_past_tools: bool = False,
    parallel_tool_calls: bool = False,
    tool_choice: str = "auto",
    required_schema: type[BaseModel] | dict[str, Any] | None = None,
    variables: Iterable[Variable] = (),
    env: Mapping[str, str] | None = None,
    hooks: Iterable[str] = (),
    expose_as_tool: bool = False,
    approval: Any = None,
    messages: Iterable[Attachment] | None = None,
    registry: Registry | None = None,
) -> PromptDefinition:
    """Define a prompt and register it. `messages`: images, audio and embedded resources
    (`tl.Attachment`) an MCP client gets with the prompt served by `tl.mcp.serve`, each a
    message before the prompt's text.

    Examples:
        >>> import threadlab as tl
        >>> p = tl.define_prompt("helper", prompt="You help. Region: {{env:REGION}}",
        ...                      registry=tl.Registry())
        >>> [type(part).__name__ for part in p.prompt]
        ['Text', 'Env']
    """
    what = f"prompt {name!r}"
    _check_name("prompt", name)
    check_approval(what, approval)
    entries = _tool_entries(what, tools)
    _check_tool_choice(what, tool_choice, entries)
    attached = _attachments(what, messages, expose_as_tool)
    definition = PromptDefinition(
        name=name,
        prompt=_prompt_parts(what, prompt),
        model=model,
        tool_description=tool_description,
        tools=entries,
        include_chat=include_chat,
        include_past_tools=include_past_tools,
        parallel_tool_calls=parallel_tool_calls,
        tool_choice=tool_choice,
        required_schema=(
            ArgsSchema(f"{what} required_schema", required_schema)
            if required_schema is not None
            else None
        ),
        variables=_variables(what, variables),
        env=dict(env or {}),
        hooks=_hook_ids(what, hooks),
        expose_as_tool=expose_as_tool,
        approval=approval,
        messages=attached,
    )
    _registry(registry).add(definition)
    return definition


def _attachments(
    what: str, messages: Iterable[Attachment] | None, expose_as_tool: bool
) -> tuple[Attachment, ...]:
    if messages is None:
        return ()
    if isinstance(messages, Attachment | str | bytes):
        raise DefinitionError(f"{what}: messages must be a list of tl.Attachment")
    out = tuple(messages)
    for part in out:
        if not isinstance(part, Attachment):
            raise DefinitionError(
                f"{what}: messages must be tl.Attachment parts (an image, audio or an"
                f" embedded resource); got {part!r} (the prompt's text is its prompt=)"
            )
    if out and expose_as_tool:
        raise DefinitionError(
            f"{what}: messages= are served with an MCP prompt, and a prompt exposed as a tool"
            " is served as a tool: drop messages= or expose_as_tool="
        )
    return out


def check_approval(what: str, approval: Any) -> None:
    if approval is not None and approval != "always" and not callable(approval):
        raise DefinitionError(
            f'{what}: approval must be None, "always" or a callable (call, state) -> bool,'
            f" got {approval!r}"
        )


def _subagent(data: Mapping[str, Any]) -> Subagent:
    fields = dict(data)
    return Subagent(fields.pop("name"), **fields)


def _side(what: str, label: str, side: object) -> Side:
    if isinstance(side, str):
        return Side(side)
    if isinstance(side, Side):
        names = [rel.name for rel in side.subagents]
        for rel_name in names:
            if rel_name in RESERVED_TOOL_NAMES:
                raise DefinitionError(f"{what}: {label} subagent name {rel_name!r} is reserved")
        if len(set(names)) != len(names):
            raise DefinitionError(f"{what}: {label} lists a subagent relationship twice")
        if side.max_steps is not None and side.max_steps < 1:
            raise DefinitionError(f"{what}: {label}.max_steps must be at least 1")
        return side
    if isinstance(side, Mapping):
        data = dict(side)
        unknown = sorted(set(data) - set(Side.model_fields))
        if unknown:
            raise DefinitionError(
                f"{what}: {label} has unknown keys {', '.join(unknown)}; the keys of a side"
                f" are {', '.join(Side.model_fields)}"
            )
        if "prompt" not in data:
            raise DefinitionError(f"{what}: {label} needs a prompt (the prompt it runs)")
        for index, relationship in enumerate(data.get("subagents", ())):
            extra = (
                sorted(set(relationship) - set(Subagent.model_fields))
                if isinstance(relationship, Mapping)
                else []
            )
            if extra:
                raise DefinitionError(
                    f"{what}: {label}.subagents[{index}] has unknown keys {', '.join(extra)};"
                    f" the keys of a subagent are {', '.join(Subagent.model_fields)}"
                )
        try:
            prompt = data.pop("prompt")
            subagents = tuple(
                s if isinstance(s, Subagent) else _subagent(s) for s in data.pop("subagents", ())
            )
            return _side(what, label, Side(prompt, subagents=subagents, **data))
        except (KeyError, TypeError, ValidationError) as exc:
            raise DefinitionError(f"{what}: {label} is not a valid side: {exc}") from None
    raise DefinitionError(f"{what}: {label} must be a prompt name or tl.Side, got {side!r}")


def define_agent(
    name: str,
    *,
    side_a: Side | str,
    side_b: Side | str | None = None,
    type: Literal["ai_human", "dual_ai"] = "ai_human",
    expose_as_tool: bool = False,
    tool_description: str = "",
    max_session_turns: int | None = None,
    hooks: Iterable[str] = (),
    variables: Iterable[Variable] = (),
    env: Mapping[str, str] | None = None,
    approval: Any = None,
    registry: Registry | None = None,
) -> AgentDefinition:
    """Define an agent and register it.

    Examples:
        >>> import threadlab as tl
        >>> a = tl.define_agent("assistant", side_a="helper", registry=tl.Registry())
        >>> a.side_a.prompt
        'helper'
    """
    what = f"agent {name!r}"
    _check_name("agent", name)
    if type not in ("ai_human", "dual_ai"):
        raise DefinitionError(f"{what}: type must be 'ai_human' or 'dual_ai', got {type!r}")
    a = _side(what, "side_a", side_a)
    b = _side(what, "side_b", side_b) if side_b is not None else None
    if type == "dual_ai" and b is None:
        raise DefinitionError(f"{what}: a dual_ai agent needs side_b")
    if type == "ai_human" and b is not None:
        raise DefinitionError(f"{what}: an ai_human agent has one AI side; drop side_b")
    if max_session_turns is not None and max_session_turns < 1:
        raise DefinitionError(f"{what}: max_session_turns must be at least 1")
    check_approval(what, approval)
    for side in (a, b):
        for relationship in side.subagents if side is not None else ():
            check_approval(f"{what}: subagent {relationship.name!r}", relationship.approval)
    definition = AgentDefinition(
        name=name,
        type=type,
        side_a=a,
        side_b=b,
        expose_as_tool=expose_as_tool,
        tool_description=tool_description or f"Hand the conversation to the {name} agent.",
        max_session_turns=max_session_turns,
        hooks=_hook_ids(what, hooks),
        variables=_variables(what, variables),
        env=dict(env or {}),
        approval=approval,
    )
    _registry(registry).add(definition)
    return definition


def define_model(
    name: str,
    *,
    provider: Provider,
    model: str,
    base_url: str | None = None,
    api_key_variable: str | None = None,
    options: Mapping[str, Any] | None = None,
    registry: Registry | None = None,
) -> ModelDefinition:
    """Define a named model and register it.

    `provider`: "offline", "openai" (Chat Completions, and every OpenAI-compatible server
    through `base_url`), "openai-responses" (OpenAI's Responses API) or "anthropic". `options`
    go into each request (temperature, max_tokens, ...), except `timeout` (seconds) and
    `max_retries`, which set up the SDK client. The key is read from the secret variable
    `api_key_variable` (default OPENAI_API_KEY or ANTHROPIC_API_KEY)."""
    what = f"model {name!r}"
    if not isinstance(name, str) or not _NAME.match(name):
        raise DefinitionError(f"{what}: invalid name")
    if provider not in PROVIDERS:
        raise DefinitionError(
            f"{what}: provider must be one of {', '.join(map(repr, PROVIDERS))}, got {provider!r}"
        )
    if not isinstance(model, str) or not model:
        raise DefinitionError(f"{what}: model must be the provider's model id, got {model!r}")
    definition = ModelDefinition(
        name=name,
        provider=provider,
        model=model,
        base_url=base_url,
        api_key_variable=api_key_variable,
        options=dict(options or {}),
    )
    _registry(registry).add_model(definition)
    return definition


def define_hook(
    *, hook: HookName, id: str, execute: Callable[..., Any], registry: Registry | None = None
) -> HookDefinition:
    """Define a hook implementation; it runs where a prompt (else the agent) lists its id."""
    if hook not in HOOK_NAMES:
        raise DefinitionError(
            f"hook {id!r}: unknown hook {hook!r}; known hooks: {', '.join(sorted(HOOK_NAMES))}"
        )
    if not isinstance(id, str) or not _HOOK_ID.match(id):
        raise DefinitionError(
            f"hook id {id!r} is invalid: use snake_case (lowercase letters, digits, '_',"
            " starting with a letter)"
        )
    if not callable(execute):
        raise DefinitionError(f"hook {id!r}: execute must be callable")
    definition = HookDefinition(hook=hook, id=id, execute=execute)
    _registry(registry).add_hook(definition)
    return definition


def _return_annotation(execute: Callable[..., Any]) -> Any:
    """`execute`'s return annotation, or None where it has none or it cannot be resolved (a
    name that is not defined yet must not stop a definition)."""
    try:
        return typing.get_type_hints(execute).get("return")
    except Exception:
        return None
