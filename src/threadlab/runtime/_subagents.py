"""Subagents: child threads a side creates and talks to through the runtime-injected lifecycle
tools (`subagents`, `subagent_create`, `subagent_message`), blocking or not, resumable or not.

Children only talk to their parent. A blocking child's outcome is the tool result; a
non-blocking one's arrives later as a message queued on the parent (implicit communication),
or only through `state.notify_parent` (explicit).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

from .._errors import MissingVariableError, PathError
from ._attachments import as_paths, copy_attachments
from ._events import SubagentCreatedEvent
from ._frames import Frame
from ._hooks import HookRunner
from ._paths import normalize_path
from ._schema import ArgsSchema
from ._state import ThreadState
from ._values import Subagent, ToolResult

if TYPE_CHECKING:
    from ._definitions import ToolDefinition
    from ._loop import TurnLoop
    from ._run import Run
    from ._thread import Thread

__all__ = ["ChildInfo", "Supervisor", "enabled"]

log = logging.getLogger("threadlab.subagents")

ChildStatus = Literal["running", "idle", "completed", "failed", "terminated"]


class ChildInfo(BaseModel):
    """A child in its parent's registry."""

    model_config = ConfigDict(frozen=True)
    reference: str
    agent: str
    name: str
    description: str
    blocking: bool
    resumable: bool
    status: ChildStatus


def enabled(relationship: Subagent, resolve: Any) -> bool:
    """`optional` names an env flag: the relationship exists only when it is true/1/yes."""
    if relationship.optional is None:
        return True
    value = resolve(relationship.optional)
    return isinstance(value, str) and value.strip().lower() in ("true", "1", "yes")


class Supervisor:
    """The children one run of a thread creates and messages."""

    def __init__(self, loop: TurnLoop) -> None:
        self.loop = loop
        self.thread = loop.thread
        self.tasks: list[asyncio.Task[None]] = []

    # what the side may use

    def relationships(self, frame: Frame) -> list[Subagent]:
        env = self.thread._env_required()
        return [r for r in frame.side.subagents if enabled(r, env.resolve)]

    def lifecycle_tools(self, frame: Frame) -> dict[str, ToolDefinition]:
        from ._composition import builtin_tool

        if not frame.side.subagents:
            return {}
        visible = [r for r in self.relationships(frame) if not r.hidden]
        if not visible:
            return {}
        names = [r.name for r in visible]
        lines = "; ".join(f"{r.name}: {self._describe(r)}" for r in visible)

        async def list_(state: Any, args: Any) -> Any:
            return self.listing(frame)

        async def create(state: Any, args: dict[str, Any]) -> Any:
            relationship = next(r for r in visible if r.name == args["agent"])
            return await self.create(
                frame,
                relationship,
                name=args["name"],
                message=args["message"],
                attachments=args.get("attachments"),
                arguments=args.get("arguments") or {},
            )

        async def message(state: Any, args: dict[str, Any]) -> Any:
            return await self.message(
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

    def _describe(self, relationship: Subagent) -> str:
        agent = self.loop.graph.registry.agent(relationship.name)
        mode = "blocking" if relationship.blocking else "non-blocking"
        kind = "resumable" if relationship.resumable else "single session"
        text = agent.tool_description if agent else ""
        return f"{text} ({mode}, {kind})".strip()

    def listing(self, frame: Frame) -> dict[str, Any]:
        children = self.thread._child_infos()
        return {
            "relationships": [
                {
                    "name": r.name,
                    "description": self._describe(r),
                    "blocking": r.blocking,
                    "resumable": r.resumable,
                    "instances": sum(
                        c.agent == r.name and c.status != "terminated" for c in children
                    ),
                    "max_instances": r.max_instances,
                }
                for r in self.relationships(frame)
                if not r.hidden
            ],
            "children": [
                {"reference": c.reference, "agent": c.agent, "name": c.name, "status": c.status}
                for c in children
                if c.status != "terminated"
            ],
        }

    # lifecycle

    async def create(
        self,
        frame: Frame,
        relationship: Subagent,
        *,
        name: str,
        message: str,
        attachments: Any,
        arguments: dict[str, Any],
    ) -> ToolResult:
        registry = self.loop.graph.registry
        label = name.strip()
        if not label:
            return ToolResult("error", error="subagent_create needs a non-empty name")
        agent = registry.agent(relationship.name)
        if agent is None:
            return ToolResult("error", error=f"unknown subagent {relationship.name!r}")
        live = [
            c
            for c in self.thread._child_infos()
            if c.agent == relationship.name and c.status != "terminated"
        ]
        if relationship.max_instances is not None and len(live) >= relationship.max_instances:
            return ToolResult(
                "error",
                error=f"max_instances ({relationship.max_instances}) of subagent"
                f" {relationship.name!r} reached; message an existing child instead",
            )
        side_prompt = registry.prompt(agent.side_a.prompt)
        schema = side_prompt.required_schema if side_prompt else None
        if schema is not None:
            _, problems = schema.validate(arguments)
            if problems:
                listed = "\n".join(f"- arguments.{p}" for p in problems)
                return ToolResult("error", error=f"invalid arguments for {agent.name!r}:\n{listed}")
        if relationship.init_user_message_property in arguments:
            message = str(arguments[relationship.init_user_message_property])
        sources = as_paths(attachments)
        if relationship.init_attachments_property in arguments:
            sources += as_paths(arguments[relationship.init_attachments_property])
        self._check_paths(sources)
        try:
            child = self.thread._rt._create_child(self.thread, relationship, label, agent)
        except MissingVariableError as exc:
            return ToolResult("error", error=str(exc))
        paths = copy_attachments(self.thread, child, sources)
        self.thread._emit(
            SubagentCreatedEvent(
                child_thread_id=child.id, name=label, **frame.event_base(self.thread._base())
            )
        )
        await self._after_created(frame, child)
        if relationship.blocking:
            run = await child._execute(message, paths, None)
            return ToolResult("success", result=self._outcome(child, run))
        self._background(child, message, paths)
        return ToolResult("success", result={"reference": child.id, "status": "running"})

    async def message(
        self, frame: Frame, reference: str, message: str, attachments: Any
    ) -> ToolResult:
        child = next((c for c in self.thread.children if c.id == reference), None)
        if child is None:
            known = ", ".join(c.id for c in self.thread.children) or "none"
            return ToolResult(
                "error", error=f"unknown reference {reference!r}; your children: {known}"
            )
        if not child.resumable:
            return ToolResult(
                "error",
                error=f"child {child.name!r} ({reference}) is not resumable: subagent_message"
                " only reaches resumable children",
            )
        if child.status == "terminated":
            return ToolResult("error", error=f"child {child.name!r} ({reference}) is terminated")
        sources = as_paths(attachments)
        self._check_paths(sources)
        paths = copy_attachments(self.thread, child, sources)
        if child.blocking:
            run = await child._execute(message, paths, None)
            return ToolResult("success", result=self._outcome(child, run))
        self._background(child, message, paths)
        return ToolResult("success", result={"status": "queued"})

    async def start_immediate(self, frame: Frame, user: Any) -> None:
        """Relationships marked `immediate` start a child (once) before the first model call."""
        if not any(r.immediate for r in frame.side.subagents):
            return
        existing = {c.agent for c in self.thread._child_infos()}
        for relationship in self.relationships(frame):
            if relationship.immediate and relationship.name not in existing:
                agent = self.loop.graph.registry.agent(relationship.name)
                if agent is None:
                    continue
                try:
                    child = self.thread._rt._create_child(
                        self.thread, relationship, relationship.name, agent
                    )
                except MissingVariableError as exc:
                    log.warning("immediate subagent %r not started: %s", relationship.name, exc)
                    continue
                self.thread._emit(
                    SubagentCreatedEvent(
                        child_thread_id=child.id,
                        name=relationship.name,
                        **frame.event_base(self.thread._base()),
                    )
                )
                await self._after_created(frame, child)
                self._background(child, user.content or "", [])

    # helpers

    def _check_paths(self, paths: list[str]) -> None:
        for path in paths:
            normal = normalize_path(path)
            if self.thread.files.stat_sync(normal) is None:
                raise PathError(f"{normal} not found in thread {self.thread.id}")

    async def _after_created(self, frame: Frame, child: Thread) -> None:
        prompt = self.loop.graph.prompts.get(frame.prompt_name)
        ids = (prompt.hooks if prompt else ()) or self.loop.graph.agent.hooks
        hooks = HookRunner(self.loop.graph.registry, ids, self.loop.rt.hook_timeout)
        if hooks.has("after_subagent_created"):
            state = ThreadState(self.thread, None, prompt, None)
            await hooks.run("after_subagent_created", state, child._child_info())

    def _outcome(self, child: Thread, run: Run) -> dict[str, Any]:
        returned = copy_attachments(child, self.thread, run.attachments)
        return {
            "reference": child.id,
            "status": run.session_status or "failed",
            "result": run.result if run.result is not None else run.error,
            "attachments": returned,
        }

    def _background(self, child: Thread, message: str, paths: list[str]) -> None:
        child._set_child_status("running")
        self.tasks.append(asyncio.create_task(self._run_child(child, message, paths)))

    async def _run_child(self, child: Thread, message: str, paths: list[str]) -> None:
        try:
            run = await child._execute(message, paths, None)
            outcome = self._outcome(child, run)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the child could not run at all: the parent hears of it
            outcome = {
                "reference": child.id,
                "status": "failed",
                "result": str(exc),
                "attachments": [],
            }
            child._set_child_status("failed")
        if child._meta.get("parent_communication") == "implicit":
            verb = "completed" if outcome["status"] == "completed" else "failed"
            text = f"Subagent {child.name!r} ({child.id}) {verb}:\n{outcome['result'] or ''}"
            self.thread._deliver(text, outcome["attachments"], child.id)

    async def wait(self) -> bool:
        """Wait for the children still running; False when there were none."""
        pending = [t for t in self.tasks if not t.done()]
        if not pending:
            return False
        await asyncio.gather(*pending, return_exceptions=True)
        return True

    async def cancel_all(self) -> None:
        pending = [t for t in self.tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
