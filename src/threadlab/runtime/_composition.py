"""The tools a frame offers, and the ones built at run time: prompts as tools (a nested turn
in the same thread), agents as tools (a handoff, or a child session), and a side's session
and lifecycle tools."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from .._errors import PathError
from ._attachments import as_paths
from ._definitions import AgentDefinition, PromptDefinition, ToolDefinition
from ._frames import Frame
from ._messages import Message
from ._paths import normalize_path
from ._schema import ArgsSchema
from ._values import Side, Subagent, SubpromptConfig, ToolResult

if TYPE_CHECKING:
    from ._loop import TurnLoop

__all__ = ["builtin_tool", "tools_for"]

_MESSAGE_ARGS: dict[str, Any] = {
    "type": "object",
    "properties": {"message": {"type": "string", "description": "What to ask."}},
    "required": ["message"],
}
_AGENT_ARGS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "message": {"type": "string", "description": "The first message for the agent."},
        "attachments": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Paths of files in your filesystem to give the agent.",
        },
    },
    "required": ["message"],
}
_HANDOFF_ARGS: dict[str, Any] = {
    "type": "object",
    "properties": {"message": {"type": "string", "description": "Why you hand over."}},
}


class _BuiltinTool(ToolDefinition):
    """A tool made by the runtime for one frame; `kind_hint` tells models what it is."""

    kind_hint: str = "function"


def builtin_tool(
    name: str,
    description: str,
    args: ArgsSchema,
    execute: Any,
    kind_hint: str,
) -> ToolDefinition:
    # No tool timeout: the step budget and the failure budget bound what these run.
    return _BuiltinTool(
        name=name,
        description=description,
        execute=execute,
        args=args,
        timeout=None,
        kind_hint=kind_hint,
    )


def tools_for(loop: TurnLoop, frame: Frame, prompt: PromptDefinition) -> dict[str, ToolDefinition]:
    """Everything offered to `prompt` in this frame, in the prompt's order, then the side's
    session tools and the lifecycle tools of its subagent relationships."""
    registry = loop.graph.registry
    out: dict[str, ToolDefinition] = {}
    for entry in prompt.tools:
        name = entry if isinstance(entry, str) else entry.name
        definition = registry.get(name)
        if isinstance(definition, ToolDefinition):
            out[name] = definition
        elif isinstance(definition, PromptDefinition):
            config = entry if isinstance(entry, SubpromptConfig) else SubpromptConfig(name)
            out[name] = _prompt_tool(loop, frame, definition, config)
        elif isinstance(definition, AgentDefinition):
            out[name] = _agent_tool(loop, frame, definition)
    if frame.depth == 0:
        for session_tool in (frame.side.session_stop, frame.side.session_fail):
            tool = registry.tool(session_tool) if session_tool else None
            if tool is not None and tool.name not in out:
                out[tool.name] = tool
        out.update(loop.supervisor.lifecycle_tools(frame))
    return out


def _prompt_tool(
    loop: TurnLoop, frame: Frame, prompt: PromptDefinition, config: SubpromptConfig
) -> ToolDefinition:
    schema = prompt.required_schema or ArgsSchema(f"prompt {prompt.name!r}", _MESSAGE_ARGS)

    async def execute(state: Any, args: Any) -> Any:
        call_id = state.execution.tool_call_id if state.execution else None
        return await run_prompt_tool(loop, frame, prompt, config, args, call_id)

    description = prompt.tool_description or f"Ask the {prompt.name} prompt and get its answer."
    return builtin_tool(prompt.name, description, schema, execute, "prompt")


async def run_prompt_tool(
    loop: TurnLoop,
    frame: Frame,
    prompt: PromptDefinition,
    config: SubpromptConfig,
    args: Any,
    call_id: str | None,
) -> Any:
    """A nested turn in the same thread; what returns to the caller is shaped by `config`."""
    values = args.model_dump() if isinstance(args, BaseModel) else dict(args)
    if config.init_user_message_property:
        text = values.get(config.init_user_message_property)
        text = text if isinstance(text, str) else json.dumps(text)
    elif prompt.required_schema is None:
        text = str(values.get("message", ""))
    else:
        text = json.dumps(values)
    paths: list[str] = []
    if config.init_attachments_property:
        for path in as_paths(values.get(config.init_attachments_property)):
            normal = normalize_path(path)
            if loop.thread.files.stat_sync(normal) is None:
                raise PathError(f"{normal} not found in thread {loop.thread.id}")
            paths.append(normal)
    nested = Frame(
        prompt_name=prompt.name,
        side=Side(prompt.name),
        budget=frame.budget,
        label=frame.label,
        depth=frame.depth + 1,
        parent_id=frame.current_message_id,
        parent_tool_call_id=call_id,
        nested=[],
        caller_context=[m for m in frame.caller_view if m.role != "system"],
    )
    await loop._commit(nested, Message(role="user", content=text, attachments=tuple(paths)))
    await loop._turn(nested)
    if nested.error is not None:
        return ToolResult("error", error=nested.error)
    if loop.outcome.status != "completed":
        return ToolResult("error", error=f"stopped: {loop.outcome.error}")
    return _shape(nested, config)


def _shape(nested: Frame, config: SubpromptConfig) -> Any:
    if config.include_text_response and not config.include_tool_calls and not config.include_errors:
        return nested.last_text or ""
    out: dict[str, Any] = {}
    if config.include_text_response:
        out["text"] = nested.last_text
    if config.include_tool_calls:
        out["tool_calls"] = [
            {"name": call.name, "arguments": call.arguments, "result": result.result}
            for call, result in nested.records
            if result.status == "success"
        ]
    if config.include_errors:
        out["errors"] = [
            {"name": call.name, "error": result.error}
            for call, result in nested.records
            if result.status == "error"
        ]
    return out


def _agent_tool(loop: TurnLoop, frame: Frame, agent: AgentDefinition) -> ToolDefinition:
    if agent.type == "ai_human":

        async def handoff(state: Any, args: Any) -> Any:
            if frame.depth != 0:
                return ToolResult("error", error="a handoff can only happen at the top level")
            loop.thread._set_owner(agent.name)
            frame.ending = "handoff"
            return {"handoff": agent.name}

        args = ArgsSchema(f"agent {agent.name!r}", _HANDOFF_ARGS)
        return builtin_tool(agent.name, agent.tool_description, args, handoff, "handoff")

    async def delegate(state: Any, args: Any) -> Any:
        values = dict(args)
        return await loop.supervisor.create(
            frame,
            Subagent(agent.name),
            name=agent.name,
            message=str(values.get("message", "")),
            attachments=values.get("attachments"),
            arguments={},
        )

    args = ArgsSchema(f"agent {agent.name!r}", _AGENT_ARGS)
    return builtin_tool(agent.name, agent.tool_description, args, delegate, "agent")
