"""The lifecycle tools the runtime injects for a side's subagent relationships: `subagents`
(list them and the live children), `subagent_create` and `subagent_message`."""

from __future__ import annotations

from typing import Any

from ..definitions import ArgsSchema, ToolDefinition
from ._builtin_tool import builtin_tool
from ._frames import Frame
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
        )

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
        "subagents": builtin_tool(
            "subagents",
            "List your subagent relationships and the children you have started, with"
            " their references and status.",
            ArgsSchema("tool 'subagents'", empty),
            list_,
            "lifecycle",
        ),
        "subagent_create": builtin_tool(
            "subagent_create",
            "Start a new subagent instance in its own thread and give it a first message."
            f" Blocking subagents return their result; others report back later. {lines}",
            ArgsSchema("tool 'subagent_create'", create_schema),
            create,
            "lifecycle",
        ),
        "subagent_message": builtin_tool(
            "subagent_message",
            "Send a message to a resumable subagent you created, by its reference.",
            ArgsSchema("tool 'subagent_message'", message_schema),
            message,
            "lifecycle",
        ),
    }
