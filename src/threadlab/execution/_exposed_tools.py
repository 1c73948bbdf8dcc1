"""The tools a frame offers, with the runtime tools it makes for it: prompts as tools (a
nested turn in the same thread), agents as tools (a handoff, or a child session), and a side's
session tools and the lifecycle tools of its subagent relationships."""

from __future__ import annotations

import json
from typing import Any, Protocol

from pydantic import BaseModel

from .._data import HandoffEvent, Message, ToolResult
from ..definitions import (
    AgentDefinition,
    ArgsSchema,
    MCPServerDefinition,
    PromptDefinition,
    Side,
    Subagent,
    SubpromptConfig,
    ThreadDefinitions,
    ToolDefinition,
)
from ..threads import ThreadContext, as_paths
from ._frames import Frame, TurnSoFar
from ._lifecycle_tools import lifecycle_tools
from ._run_state import RunState
from ._runtime_tool import runtime_tool
from ._subagents import Supervisor

__all__ = ["OfferingRun", "tools_for"]


class OfferingRun(Protocol):
    """What the runtime tools need from the run that offers them."""

    @property
    def definitions(self) -> ThreadDefinitions: ...
    @property
    def context(self) -> ThreadContext: ...
    @property
    def supervisor(self) -> Supervisor: ...
    @property
    def state(self) -> RunState: ...

    async def commit(self, frame: Frame, message: Message) -> Message: ...
    async def run_turn(self, frame: Frame) -> None: ...


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


def tools_for(
    loop: OfferingRun, frame: Frame, prompt: PromptDefinition
) -> dict[str, ToolDefinition]:
    """Everything offered to `prompt` in this frame, in the prompt's order, then the side's
    session tools and the lifecycle tools of its subagent relationships."""
    registry = loop.definitions.registry
    out: dict[str, ToolDefinition] = {}
    for entry in prompt.tools:
        name = entry if isinstance(entry, str) else entry.name
        server = MCPServerDefinition.named_by(name)
        if server is not None:
            out.update((t.name, t) for t in registry.tools() if t.mcp_server == server)
            continue
        definition = registry.get(name)
        if isinstance(definition, ToolDefinition):
            out[name] = definition
        elif isinstance(definition, PromptDefinition):
            config = entry if isinstance(entry, SubpromptConfig) else SubpromptConfig(name)
            out[name] = _prompt_tool(loop, frame, definition, config)
        elif isinstance(definition, AgentDefinition):
            out[name] = _agent_tool(loop, frame, definition)
    if frame.depth == 0:
        for session_tool in (frame.side_config.session_stop, frame.side_config.session_fail):
            tool = registry.tool(session_tool) if session_tool else None
            if tool is not None and tool.name not in out:
                out[tool.name] = tool
        out.update(lifecycle_tools(loop.supervisor, frame))
    return out


def _prompt_tool(
    loop: OfferingRun, frame: Frame, prompt: PromptDefinition, config: SubpromptConfig
) -> ToolDefinition:
    schema = prompt.required_schema or ArgsSchema(
        f"prompt {prompt.name!r}", _MESSAGE_ARGS, trusted=True
    )

    async def execute(state: Any, args: Any) -> Any:
        call_id = state.execution.tool_call_id if state.execution else None
        return await run_prompt_tool(loop, frame, prompt, config, args, call_id)

    description = prompt.tool_description or f"Ask the {prompt.name} prompt and get its answer."
    return runtime_tool(prompt.name, description, schema, execute, "prompt", prompt.approval)


async def run_prompt_tool(
    loop: OfferingRun,
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
            paths.append(loop.context.files.require(path).path)
    nested = Frame(
        prompt_name=prompt.name,
        side_config=Side(prompt.name),
        budget=frame.budget,
        side=frame.side,
        depth=frame.depth + 1,
        parent_id=frame.so_far.current_message_id,
        parent_tool_call_id=call_id,
        so_far=TurnSoFar(nested=[]),
        caller_messages=[m for m in frame.so_far.caller_view if m.role != "system"],
    )
    await loop.commit(nested, Message(role="user", content=text, attachments=tuple(paths)))
    await loop.run_turn(nested)
    if nested.so_far.error is not None:
        return ToolResult("error", error=nested.so_far.error)
    if not loop.state.going:
        return ToolResult("error", error=f"stopped: {loop.state.outcome.error}")
    return _shape(nested, config)


def _shape(nested: Frame, config: SubpromptConfig) -> Any:
    if config.include_text_response and not config.include_tool_calls and not config.include_errors:
        return nested.so_far.last_text or ""
    out: dict[str, Any] = {}
    if config.include_text_response:
        out["text"] = nested.so_far.last_text
    if config.include_tool_calls:
        out["tool_calls"] = [
            {"name": call.name, "arguments": call.arguments, "result": result.result}
            for call, result in nested.so_far.records
            if result.status == "success"
        ]
    if config.include_errors:
        out["errors"] = [
            {"name": call.name, "error": result.error}
            for call, result in nested.so_far.records
            if result.status == "error"
        ]
    return out


def _agent_tool(loop: OfferingRun, frame: Frame, agent: AgentDefinition) -> ToolDefinition:
    if agent.type == "ai_human":

        async def handoff(state: Any, args: Any) -> Any:
            if frame.depth != 0:
                return ToolResult("error", error="a handoff can only happen at the top level")
            context = loop.context
            # Stored with the call's result. It takes effect when the turn ends: the turn's
            # other calls run as the agent whose model made them, here and on a resume.
            call_id = state.execution.tool_call_id if state.execution else None
            context.events.emit(
                HandoffEvent(
                    agent=agent.name, tool_call_id=call_id, **frame.event_base(context.base())
                )
            )
            frame.so_far.ending = "handoff"
            frame.so_far.handed_to = agent.name
            return {"handoff": agent.name}

        args = ArgsSchema(f"agent {agent.name!r}", _HANDOFF_ARGS, trusted=True)
        return runtime_tool(
            agent.name, agent.tool_description, args, handoff, "handoff", agent.approval
        )

    async def delegate(state: Any, args: Any) -> Any:
        values = dict(args)
        return await loop.supervisor.create(
            frame,
            Subagent(agent.name),
            name=agent.name,
            message=str(values.get("message", "")),
            attachments=values.get("attachments"),
            arguments={},
            tool_call_id=state.execution.tool_call_id if state.execution else None,
        )

    args = ArgsSchema(f"agent {agent.name!r}", _AGENT_ARGS, trusted=True)
    return runtime_tool(agent.name, agent.tool_description, args, delegate, "agent", agent.approval)
