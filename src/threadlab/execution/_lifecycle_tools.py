"""The lifecycle tools the runtime injects for a side's subagent relationships: `subagents`
(list them and the live children), `subagent_create` and `subagent_message`."""

from __future__ import annotations

from typing import Any

from .._data import ToolCall
from ..definitions import ArgsSchema, Subagent, ToolDefinition
from ..threads import ThreadState
from ._approvals import rule_says
from ._frames import Frame
from ._runtime_tool import runtime_tool
from ._subagents import Supervisor

__all__ = ["lifecycle_tools"]


def lifecycle_tools(supervisor: Supervisor, frame: Frame) -> dict[str, ToolDefinition]:
    """The three tools, for the relationships of `frame`'s side that are not hidden; none
    when it has no such relationship."""
    if not frame.side_config.subagents:
        return {}
    visible = [r for r in supervisor.relationships(frame) if not r.hidden]
    if not visible:
        return {}
    names = [r.name for r in visible]
    lines = "; ".join(f"{r.name}: {supervisor.describe(r)}" for r in visible)

    async def list_(state: Any, args: Any) -> Any:
        return supervisor.listing(frame)

    async def create(state: Any, args: dict[str, Any]) -> Any:
        relationship = next(r for r in visible if r.name == args["agent"])
        return await supervisor.create(
            frame,
            relationship,
            name=args["name"],
            message=args["message"],
            attachments=args.get("attachments"),
            arguments=args.get("arguments") or {},
            tool_call_id=state.execution.tool_call_id if state.execution else None,
        )

    def agent_of(reference: Any) -> str | None:
        found = (c.agent for c in supervisor.context.child_infos() if c.reference == reference)
        return next(found, None)

    async def message(state: Any, args: dict[str, Any]) -> Any:
        return await supervisor.message(
            frame, args["reference"], args["message"], args.get("attachments")
        )

    paths = {
        "type": ["array", "null"],
        "items": {"type": "string"},
        "description": "Paths of files in your filesystem to copy to the child.",
    }
    create_schema = {
        "type": "object",
        "properties": {
            "agent": {"type": "string", "enum": names, "description": "Which subagent."},
            "name": {
                "type": "string",
                "minLength": 1,
                "pattern": r"\S",
                "description": "A short label for this instance, e.g. 'reviewer-1'.",
            },
            "message": {"type": "string", "description": "The child's first message."},
            "attachments": paths,
            "arguments": {
                "type": ["object", "null"],
                "description": "Fields of the subagent's required schema, if it has one.",
            },
        },
        "required": ["agent", "name", "message"],
        "additionalProperties": False,
    }
    message_schema = {
        "type": "object",
        "properties": {
            "reference": {
                "type": "string",
                "description": "The child's reference, as subagent_create returned it.",
            },
            "message": {"type": "string", "description": "What to tell the child."},
            "attachments": paths,
        },
        "required": ["reference", "message"],
        "additionalProperties": False,
    }
    empty = {"type": "object", "properties": {}, "additionalProperties": False}
    return {
        "subagents": runtime_tool(
            "subagents",
            "List your subagent relationships and the children you have started, with"
            " their references and status.",
            ArgsSchema("tool 'subagents'", empty, trusted=True),
            list_,
            "lifecycle",
        ),
        "subagent_create": runtime_tool(
            "subagent_create",
            "Start a new subagent instance in its own thread and give it a first message."
            f" Blocking subagents return their result; others report back later. {lines}",
            ArgsSchema("tool 'subagent_create'", create_schema, trusted=True),
            create,
            "lifecycle",
            _approval(visible, lambda args: args.get("agent")),
        ),
        "subagent_message": runtime_tool(
            "subagent_message",
            "Send a message to a resumable subagent you created, by its reference.",
            ArgsSchema("tool 'subagent_message'", message_schema, trusted=True),
            message,
            "lifecycle",
            _approval(visible, lambda args: agent_of(args.get("reference"))),
        ),
    }


def _approval(visible: list[Subagent], relationship_of: Any) -> Any:
    """The approval rule of a lifecycle tool: the one of the relationship a call is for
    (`relationship_of(arguments)` names it); None when no relationship has one."""
    rules = {r.name: r.approval for r in visible if r.approval is not None}
    if not rules:
        return None

    async def rule(call: ToolCall, state: ThreadState) -> bool:
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        return await rule_says(rules.get(str(relationship_of(arguments))), call, state)

    return rule
