"""Subagents: child threads a side creates and talks to through the reserved lifecycle
tools (`subagents`, `subagent_create`, `subagent_message`), blocking or not, resumable or not.

Children only talk to their parent. A blocking child's outcome is the tool result; a
non-blocking one's arrives later as a message queued on the parent (implicit communication),
or only through `state.notify_parent` (explicit).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Protocol

from .._data import (
    ApprovalRequest,
    Message,
    Run,
    SubagentCreatedEvent,
    ThreadStatus,
    ThreadStatusEvent,
    ToolResult,
)
from .._errors import MissingVariableError
from ..definitions import PromptDefinition, Subagent, ThreadDefinitions, relationship_enabled
from ..threads import (
    ExecutionInfo,
    ThreadContext,
    ThreadState,
    as_paths,
    check_copy,
    copy_attachments,
)
from ._frames import Frame
from ._hooks import HookRunner
from ._host import RunHost
from ._repair import repair
from ._reports import WORKER_STOPPED, deliver_report, report_failure

__all__ = [
    "ChildRunner",
    "SupervisedRun",
    "Supervisor",
    "child_outcome",
]

log = logging.getLogger("threadlab.subagents")

ChildRunner = Callable[[ThreadContext, str | None, list[str]], Awaitable[Run]]
"""Runs a child thread on a first (or next) message with attachments (None: resumes what its
history leaves open): the run passes it down, so this module never starts runs by itself."""


class SupervisedRun(Protocol):
    """What the supervisor needs from the run whose children it manages."""

    @property
    def host(self) -> RunHost: ...
    @property
    def context(self) -> ThreadContext: ...
    @property
    def definitions(self) -> ThreadDefinitions: ...

    def hooks_for(self, prompt: PromptDefinition | None) -> HookRunner: ...
    def execution_info(self, frame: Frame, prompt: PromptDefinition) -> ExecutionInfo: ...


class Supervisor:
    """The children one run of a thread creates and messages."""

    def __init__(self, run: SupervisedRun, run_child: ChildRunner) -> None:
        self.run = run
        self.context = run.context
        self.run_child = run_child
        self.tasks: list[asyncio.Task[None]] = []
        self.remote: list[ThreadContext] = []  # children handed to workers by this run
        # Those the runtime's engine has in hand (a Ray task each), until it is done with them.
        self.handed: dict[str, asyncio.Future[Any]] = {}
        self._told: dict[str, str] = {}  # the status each of them was last shown with
        self._waiting: tuple[str, tuple[ApprovalRequest, ...]] | None = None

    # what the side may use

    def relationships(self, frame: Frame) -> list[Subagent]:
        """The side's relationships that exist now (an `optional` one only when its flag is
        on)."""
        resolve = self.context.env.resolve
        return [r for r in frame.side_config.subagents if relationship_enabled(r, resolve)]

    def describe(self, relationship: Subagent) -> str:
        """The relationship as the model reads it: the agent's description and its mode."""
        agent = self.run.definitions.registry.agent(relationship.name)
        mode = "blocking" if relationship.blocking else "non-blocking"
        kind = "resumable" if relationship.resumable else "single session"
        text = agent.tool_description if agent else ""
        return f"{text} ({mode}, {kind})".strip()

    def listing(self, frame: Frame) -> dict[str, Any]:
        """What the `subagents` tool returns."""
        children = self.context.child_infos()
        return {
            "relationships": [
                {
                    "name": r.name,
                    "description": self.describe(r),
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
        tool_call_id: str | None = None,
    ) -> ToolResult:
        """`subagent_create`: a new child for `relationship`, run on `message` — to its
        outcome when blocking, in the background otherwise."""
        registry = self.run.definitions.registry
        label = name.strip()
        if not label:
            return ToolResult("error", error="subagent_create needs a non-empty name")
        label = self._unique_name(label)
        agent = registry.agent(relationship.name)
        if agent is None:
            return ToolResult("error", error=f"unknown subagent {relationship.name!r}")
        live = [
            c
            for c in self.context.child_infos()
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
        # Everything the copy needs is checked before the child exists: a copy that cannot
        # happen must not leave a child behind (it would count against max_instances).
        check_copy(self.context.files, sources)
        try:
            child = self.run.host.create_child(self.context, relationship, label, agent)
        except MissingVariableError as exc:
            return ToolResult("error", error=str(exc))
        paths = copy_attachments(self.context.files, child.files, sources)
        self.context.events.emit(
            SubagentCreatedEvent(
                child_thread_id=child.id,
                name=label,
                tool_call_id=tool_call_id,
                **frame.event_base(self.context.base()),
            )
        )
        await self._after_created(frame, child)
        if relationship.blocking:
            return self._blocking_outcome(child, await self.run_child(child, message, paths))
        self._background(child, message, paths)
        return ToolResult("success", result={"reference": child.id, "status": "running"})

    async def message(
        self, frame: Frame, reference: str, message: str, attachments: Any
    ) -> ToolResult:
        """`subagent_message`: the next message to a resumable child."""
        child = next((c for c in self.context.children() if c.id == reference), None)
        if child is None:
            known = ", ".join(c.id for c in self.context.children()) or "none"
            return ToolResult(
                "error", error=f"unknown reference {reference!r}; your children: {known}"
            )
        if not child.identity.resumable:
            return ToolResult(
                "error",
                error=f"child {child.identity.name!r} ({reference}) is not resumable:"
                " subagent_message only reaches resumable children",
            )
        if child.status() == "terminated":
            return ToolResult(
                "error", error=f"child {child.identity.name!r} ({reference}) is terminated"
            )
        sources = as_paths(attachments)
        paths = copy_attachments(self.context.files, child.files, sources)
        if child.identity.blocking:
            return self._blocking_outcome(child, await self.run_child(child, message, paths))
        self._background(child, message, paths)
        return ToolResult("success", result={"status": "queued"})

    async def resume_waiting(self, child_id: str) -> ToolResult:
        """Resume a blocking child that paused for a decision (the parent's call that ran it
        waited with it): its outcome is that call's result, once it ends."""
        child = next((c for c in self.context.children() if c.id == child_id), None)
        if child is None:
            return ToolResult("error", error=f"the child {child_id} this call waited for is gone")
        return self._blocking_outcome(child, await self.run_child(child, None, []))

    def take_waiting(self) -> tuple[str, tuple[ApprovalRequest, ...]] | None:
        """The blocking child the last lifecycle call left waiting for a decision (its id and
        requests), if it did: the parent's call then waits with it, unanswered."""
        waiting, self._waiting = self._waiting, None
        return waiting

    def _blocking_outcome(self, child: ThreadContext, run: Run) -> ToolResult:
        if run.status == "waiting":
            self._waiting = (child.id, run.pending)
            return ToolResult("success", result={"reference": child.id, "status": "waiting"})
        return ToolResult("success", result=child_outcome(self.context, child, run))

    async def start_immediate(self, frame: Frame, user: Message) -> None:
        """Relationships marked `immediate` start a child (once) before the first model call."""
        if not any(r.immediate for r in frame.side_config.subagents):
            return
        existing = {c.agent for c in self.context.child_infos()}
        for relationship in self.relationships(frame):
            if relationship.immediate and relationship.name not in existing:
                agent = self.run.definitions.registry.agent(relationship.name)
                if agent is None:
                    continue
                try:
                    child = self.run.host.create_child(
                        self.context, relationship, relationship.name, agent
                    )
                except MissingVariableError as exc:
                    log.warning("immediate subagent %r not started: %s", relationship.name, exc)
                    continue
                self.context.events.emit(
                    SubagentCreatedEvent(
                        child_thread_id=child.id,
                        name=relationship.name,
                        **frame.event_base(self.context.base()),
                    )
                )
                await self._after_created(frame, child)
                self._background(child, user.content or "", [])

    # helpers

    def _unique_name(self, label: str) -> str:
        """Instance names are unique per parent: a taken one gets "-2", "-3"..."""
        taken = {child.identity.name for child in self.context.children()}
        unique, counter = label, 1
        while unique in taken:
            counter += 1
            unique = f"{label}-{counter}"
        return unique

    async def _after_created(self, frame: Frame, child: ThreadContext) -> None:
        prompt = self.run.definitions.prompts.get(frame.prompt_name)
        hooks = self.run.hooks_for(prompt)
        if hooks.has("after_subagent_created") and prompt is not None:
            execution = self.run.execution_info(frame, prompt)
            state = ThreadState(self.context, execution, prompt, caller=self.run.host.caller)
            await hooks.run("after_subagent_created", state, child.child_info())

    def _background(self, child: ThreadContext, message: str, paths: list[str]) -> None:
        if child.identity.runs_on_engine:
            # Left in the store for the engine's worker; the status first, so the worker's
            # "running" is never overwritten by it.
            with child.transaction():
                if not child.busy():
                    child.identity.set_child_status("queued")
                    child.events.emit(ThreadStatusEvent(status="queued", **child.base()))
                    child.events.flush()
                child.inbox.put(Message(role="user", content=message, attachments=tuple(paths)))
            if child not in self.remote:
                self.remote.append(child)
            self._told[child.id] = "queued"
            if not self._in_hand(child):
                self.handed[child.id] = self.run.host.hand_off(child)
            return
        child.identity.set_child_status("running")
        self.tasks.append(asyncio.create_task(self._run_child(child, message, paths)))

    async def _run_child(self, child: ThreadContext, message: str | None, paths: list[str]) -> None:
        try:
            run = await self.run_child(child, message, paths)
            outcome = child_outcome(self.context, child, run)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the child could not run at all: the parent hears of it
            child.identity.set_child_status("failed")
            report_failure(self.context, child, str(exc))
            return
        if child.identity.parent_communication == "implicit" and run.status != "waiting":
            deliver_report(self.context, child, outcome)  # a waiting child reports when done

    @property
    def idle(self) -> bool:
        """Nothing this run started runs any more, here or elsewhere (most runs start no
        child at all): there is nothing to wait for."""
        return not self.remote and all(t.done() for t in self.tasks)

    async def wait(
        self, woken: asyncio.Event, queued: Callable[[], bool], poll_interval: float
    ) -> bool:
        """Wait for the children still running, here or at a worker, or until a message
        waits for this thread: `woken` is set by a notification, and `queued` is asked
        every `poll_interval` seconds (a store that cannot notify, a notification lost). The
        children go on either way. False when there was nothing to wait for."""
        waited = False
        waiter = asyncio.ensure_future(woken.wait())
        try:
            while True:
                here = [t for t in self.tasks if not t.done()]
                self._hand_off_again()
                handed = [f for f in self.handed.values() if not f.done()]
                elsewhere = [c for c in self.remote if c.busy() or self._in_hand(c)]
                for child in self.remote:
                    status = child.status()
                    stopped = status in ("queued", "running") or self._given_up(child)
                    if child not in elsewhere and stopped:
                        self._abandoned(child)
                        status = child.status()
                    self._tell_status(child, status)
                self.remote = elsewhere  # the others are done: reported, told, repaired
                if not here and not elsewhere:
                    return waited
                if woken.is_set() or queued():
                    return True
                waited = True
                # asyncio.wait never cancels what it waits for: the children keep running.
                await asyncio.wait(
                    [*here, *handed, waiter],
                    timeout=poll_interval,
                    return_when=asyncio.FIRST_COMPLETED,
                )
        finally:
            waiter.cancel()

    def _hand_off_again(self) -> None:
        """A message queued for an engine's child just as its task ended (a resumable child
        messaged again) waits for nobody: it goes to the engine again."""
        for child in self.remote:
            idle = not (self._in_hand(child) or self._given_up(child))
            if child.identity.runs_on_engine and idle and child.inbox.waiting():
                self.handed[child.id] = self.run.host.hand_off(child)

    def _given_up(self, child: ThreadContext) -> bool:
        """The engine gave the child up: the worker of each of its tries died."""
        handed = self.handed.get(child.id)
        return (
            handed is not None
            and handed.done()
            and not handed.cancelled()
            and handed.exception() is not None
        )

    def _in_hand(self, child: ThreadContext) -> bool:
        """The engine has the child's run in hand: a worker that died is the engine's to
        replace (it runs the task again), not a reason to repair the child here."""
        handed = self.handed.get(child.id)
        return handed is not None and not handed.done()

    def _tell_status(self, child: ThreadContext, status: ThreadStatus) -> None:
        """A worker's child runs in another process: its status, as seen at each look, goes
        to this thread's live listeners (a view's tree), not to the store (the worker writes
        the child's own events)."""
        shown: Literal["queued", "running", "idle"] = (
            status if status in ("queued", "running") else "idle"
        )
        if self._told.get(child.id) != shown:
            self._told[child.id] = shown
            child.events.relay(ThreadStatusEvent(status=shown, **child.base()))

    def _abandoned(self, child: ThreadContext) -> None:
        """A child whose worker stopped mid-run (killed, its machine gone): nobody runs it and
        nothing waits for it. Its history is repaired, and its parent hears it failed."""
        # A run the repair closes, it reports to this thread itself; not an engine's child's.
        if not repair(child) or child.identity.runs_on_engine:
            if child.status() in ("queued", "running"):
                child.identity.set_child_status("idle" if child.identity.resumable else "failed")
            report_failure(self.context, child, WORKER_STOPPED)
        log.warning(
            "child %s (%s): its worker stopped before it finished", child.identity.name, child.id
        )

    async def cancel_all(self) -> None:
        """Cancel the children still running in the background (their runs repair
        themselves)."""
        pending = [t for t in self.tasks if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            await asyncio.gather(*pending, return_exceptions=True)
        handed = {i: f for i, f in self.handed.items() if not f.done()}
        for future in handed.values():
            future.cancel()  # the engine stops its task (and the worker running it)
        if handed:
            await asyncio.gather(*handed.values(), return_exceptions=True)
        deadline = asyncio.get_running_loop().time() + RELEASE_WAIT
        for child in self.remote:
            if child.id in handed:
                await _released(child, deadline)
                self._abandoned(child)  # its worker is gone: repaired, reported


RELEASE_WAIT = 30.0
"""How long a cancelled run waits, at most, for the workers of its engine's children to be
gone before it repairs them."""


async def _released(child: ThreadContext, deadline: float) -> None:
    """Wait until no live run holds `child` (or `deadline`, on the loop's clock): a worker
    the engine was told to stop may be killed a moment after the engine said so (a busy
    machine reaps it late), and repairing before then would leave its calls open."""
    loop = asyncio.get_running_loop()
    # Another process's state, with nothing to notify its end: looked at until it ends.
    while loop.time() < deadline:
        if not child.leases.held_now(child.id):
            return
        await asyncio.sleep(0.05)


def child_outcome(parent: ThreadContext, child: ThreadContext, run: Run) -> dict[str, Any]:
    """What a parent learns of a child's run: its status, result and the attachments it hands
    back (copied into the parent's files)."""
    returned = copy_attachments(child.files, parent.files, run.attachments)
    return {
        "reference": child.id,
        "status": run.session_status or "failed",
        "result": run.result if run.result is not None else run.error,
        "attachments": returned,
    }
