"""`Thread`: a handle on one persisted thread — its history, events, env and files — and the
way to run it (`send`, `stream`). Every member delegates to the thread's context or to the
execution layer."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
import warnings
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from typing import Any, Literal, Protocol

from .._data import (
    ApprovalDecidedEvent,
    ApprovalRequest,
    ForkPoint,
    Message,
    RecentRequests,
    Run,
    RunFinishedEvent,
    SeenRequest,
    StepRecord,
    ThreadEvent,
    ThreadMeta,
    ThreadStatus,
    rebuild_request,
)
from .._errors import ThreadBusyError, ThreadlabError
from .._gc_paused import gc_paused
from ..execution import (
    Follower,
    HistoryPoint,
    RunHost,
    Snapshot,
    StepFeed,
    StepOption,
    Stepping,
    claim_decision,
    execute_run,
    fork_point,
    fork_tree,
    give_result,
    given_result,
    history_points,
    pending_requests,
    place_of,
    read_steps,
    resume_child,
    snapshot,
)
from ..models import Model
from ..threads import ThreadContext, ThreadFiles
from ._engine import Engine, Handled
from ._following import FollowedRun, Listener

__all__ = ["Thread", "ThreadHost"]


class ThreadHost(RunHost, Protocol):
    """What a handle needs of its runtime: to host its runs and to hand out other handles."""

    def thread(self, thread_id: str) -> Thread: ...

    @property
    def engine(self) -> Engine | None:
        """Where runs that leave this process run (None: none leave it)."""
        ...

    def run_finished(self, thread: Thread, run: Run) -> None:
        """Tell the runtime's run listeners that `run` of `thread` is over."""
        ...


class Thread:
    """One thread: an instance of an agent (or of a bare prompt) with its own history, events,
    env, filesystem and children. Get one from `Runtime.create_thread` or `Runtime.thread`.

    Examples:
        >>> import threadlab as tl
        >>> reg = tl.Registry()
        >>> _ = tl.define_prompt("echo", prompt="Repeat.", registry=reg)
        >>> rt = tl.Runtime(reg, getfixture("tmp_path"))
        >>> thread = asyncio.run(rt.create_thread("echo"))
        >>> thread.agent, thread.status
        ('echo', 'idle')
    """

    def __init__(self, runtime: ThreadHost, context: ThreadContext) -> None:
        self._runtime = runtime
        self._context = context
        self._requests = RecentRequests()  # stored steps never change: safe to keep

    def __repr__(self) -> str:
        return f"<Thread {self.id} agent={self.agent!r} status={self.status!r}>"

    # reading

    @property
    def id(self) -> str:
        """The thread's id."""
        return self._context.id

    @property
    def parent_id(self) -> str | None:
        """The parent thread's id; None for a root thread."""
        return self._context.parent_id

    @property
    def path(self) -> tuple[str, ...]:
        """Thread ids from the root down to this thread."""
        return self._context.path

    @property
    def files(self) -> ThreadFiles:
        """The thread's own filesystem."""
        return self._context.files

    @property
    def agent(self) -> str:
        """The agent (or bare prompt) this thread was created for."""
        return self._context.identity.agent

    @property
    def answering_agent(self) -> str:
        """The agent answering now: the thread's agent, or the one it was handed off to (as
        stored now: another process's run may have handed it over since)."""
        identity = self._context.identity
        identity.reread()
        return identity.answering_agent

    @property
    def user(self) -> str | None:
        """The member of a class this thread belongs to (`tl.Runtime(user=)`; a child, its
        parent's member); None on a store with no members."""
        return self._context.identity.record.member

    @property
    def owner(self) -> str:
        """Deprecated spelling of `answering_agent` ("owner" also meant a lease's holder)."""
        warnings.warn(
            "Thread.owner is deprecated and will be removed; use Thread.answering_agent",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.answering_agent

    @property
    def reference(self) -> str:
        """A child's address for its parent (its thread id)."""
        return self._context.id

    @property
    def name(self) -> str:
        """A child's instance label; a root thread's agent."""
        return self._context.identity.name

    @property
    def description(self) -> str:
        """A child's agent description (empty for a root thread)."""
        return self._context.identity.description

    @property
    def blocking(self) -> bool:
        """Whether the parent waits for this child's runs."""
        return self._context.identity.blocking

    @property
    def resumable(self) -> bool:
        """Whether this child can be messaged again after its first session."""
        return self._context.identity.resumable

    @property
    def origin(self) -> str | None:
        """Where the thread was created (a notebook's path), when that was given."""
        return self._context.identity.meta.origin

    @property
    def created_at(self) -> float:
        """When the thread was created (seconds since the epoch)."""
        return self._context.identity.record.created_at

    @property
    def status(self) -> ThreadStatus:
        """ "running" while a run holds it, "waiting" when its last run paused (for a
        decision, a subagent or a step), else "idle"; a child reports its lifecycle too:
        "queued" until a worker takes it, "completed" or "failed" after its single session,
        "terminated" once its run was cancelled."""
        return self._context.status()

    @property
    def messages(self) -> list[Message]:
        """The top-level conversation (depth 0), as persisted."""
        return self._context.history.messages()

    def all_messages(self) -> list[Message]:
        """Every message in creation order, nested prompt-tool messages included."""
        return self._context.history.all()

    def redact(self, text: str) -> str:
        """`text` with the values of this thread's secrets (and its tree's) replaced by
        `[secret:NAME]`: for text of the thread's that leaves threadlab, such as a file's."""
        return self._context.known_secrets().text(text)

    def find_message(self, message_id: str) -> Message | None:
        """A persisted message by id (recent ones are found first)."""
        return self._context.history.find(message_id)

    def model_request(self, message_id: str) -> SeenRequest | None:
        """What the model step that wrote assistant message `message_id` was sent: its
        messages (system prompt included, after the hooks that filter them), the tools on
        offer and how they could be called — as stored, so redacted. None for a message
        that no model step of this thread wrote."""
        return rebuild_request(message_id, self._context.history.find, self._requests)

    @property
    def damage(self) -> list[str]:
        """What of this thread could not be read from the store (empty when all is well)."""
        return list(self._context.damage)

    @property
    def events(self) -> list[ThreadEvent]:
        """Every persisted event of this thread, in order: all but `text_delta` and
        `tool_call_delta`, which are live only (`stream()` and the views get them; the
        messages hold the whole text and arguments)."""
        return self._context.history.events()

    @property
    def next_request(self) -> SeenRequest | None:
        """While the last run of this process paused before a model step (step mode): the
        request that step is about to send (as `run.next_request`); else None — also once
        a run of another process went on from that pause."""
        context = self._context
        if context.next_request is None:
            return None
        # A run that started after the pause went on from it, even one whose owner died.
        stop = ("waiting: model step", context.next_request_of, False)
        if self.status != "waiting" or context.last_stop() != stop:
            return None
        return context.next_request

    def history_points(self, *, statuses: bool = False) -> list[HistoryPoint]:
        """The points a player steps through: every stored event of this thread and of its
        descendants (status changes aside, unless `statuses`) in the order they were stored,
        each with `.id` (the message, tool call, child thread, file path or run it is about),
        `.kind` (the event's type), `.thread_id` (which thread), `.at` (when) and `.event`
        (the event itself; None for a row that cannot be read)."""
        return history_points(self._runtime.store, self.id, statuses=statuses)

    def steps(self) -> list[StepRecord]:
        """This thread's history read once into steps, its descendants' included (tell them
        apart by `thread_id` and `depth`), in the order they happened: model steps, tool
        calls, pauses, subagents' moments ("created" before any step of that child) and
        dual_ai turns — each a `tl.StepRecord` with its place, times and status as of its own
        end (a past step never reads "running"). A model step's `request` is read when asked.

        Examples:
            >>> import asyncio, tempfile
            >>> import threadlab as tl
            >>> registry = tl.Registry()
            >>> @tl.tool(registry=registry)
            ... def add(state: tl.ThreadState, a: int, b: int) -> int:
            ...     "Add two numbers."
            ...     return a + b
            >>> _ = tl.define_prompt("sums", prompt="Add.", tools=["add"], registry=registry,
            ...                      model=tl.models.ScriptedModel([tl.models.call("add", {"a": 2,
            ...                          "b": 3}), tl.models.text("5")]))
            >>> async def main():
            ...     rt = tl.Runtime(registry, tempfile.mkdtemp())
            ...     thread = await rt.create_thread("sums")
            ...     await thread.send("What is 2 + 3?")
            ...     for step in thread.steps():
            ...         print(step.kind, step.name or "", step.result or "", step.status)
            ...     rt.close()
            >>> asyncio.run(main())
            model   completed
            tool_call add 5 completed
            model   completed
        """
        request_of, needs_decision = self._step_lookups()
        with gc_paused():
            return read_steps(
                self._runtime.store, self.id, request_of=request_of, needs_decision=needs_decision
            )

    def _step_lookups(self) -> tuple[Callable[[str, str], Any], Callable[[str], bool]]:
        """What reading steps asks of the runtime: a model step's request, and whether a
        tool asks a decision before each call (a pause for it is a "decision" one)."""
        registry = self._context.registry
        directory = self._runtime

        def request_of(thread_id: str, message_id: str) -> Any:
            return directory.thread(thread_id).model_request(message_id)

        def needs_decision(name: str) -> bool:
            tool = registry.tool(name)
            return tool is not None and tool.approval is not None

        return request_of, needs_decision

    def iter(
        self,
        message: str | None = None,
        *,
        attachments: Iterable[str] = (),
        step: StepOption = False,
    ) -> FollowedRun:
        """A run followed a step at a time: `async with thread.iter(message) as run:` then
        `async for step in run:` yields each `tl.StepRecord` as it ends (its descendants'
        included), like pydantic-ai's `agent.iter`. Leaving the loop before the run ends
        pauses the run before its next top-level step (the step running ends first):
        `thread.status` is "waiting", and `resume()` goes on from there. `run.result` is the
        `tl.Run` once the loop saw it end (None if it left early). With no message it goes
        on from the history, as `resume`; `step` as for `send`. The run is the one `send`
        (or `resume`) makes, with the same statuses, events, hooks and lease.

        Examples:
            >>> import asyncio, tempfile
            >>> import threadlab as tl
            >>> registry = tl.Registry()
            >>> @tl.tool(registry=registry)
            ... def add(state: tl.ThreadState, a: int, b: int) -> int:
            ...     "Add two numbers."
            ...     return a + b
            >>> model = tl.models.ScriptedModel([
            ...     tl.models.call("add", {"a": 2, "b": 3}),
            ...     tl.models.call("add", {"a": 1, "b": 1}),
            ...     tl.models.text("done")])
            >>> _ = tl.define_prompt("adder", prompt="Add.", model=model, tools=["add"],
            ...                      registry=registry)
            >>> async def main():
            ...     rt = tl.Runtime(registry, tempfile.mkdtemp())
            ...     thread = await rt.create_thread("adder")
            ...     async with thread.iter("add 2 and 3") as run:
            ...         async for step in run:
            ...             print(step.kind, step.name, step.result)
            ...             if step.kind == "tool_call":
            ...                 break  # the run pauses before its next step
            ...     print(thread.status, run.result)
            ...     print((await thread.resume()).text)
            ...     rt.close()
            >>> asyncio.run(main())
            model None None
            tool_call add 5
            waiting None
            done
        """
        return self._followed(message, attachments, True, step)

    def _followed(
        self,
        message: str | None,
        attachments: Iterable[str],
        wait_children: bool,
        step: StepOption,
    ) -> FollowedRun:
        """The run `send` (or, with no message, `resume`) makes, not started yet: `iter`
        follows its steps, `stream` its events, `send` and `resume` take it to its end."""
        stepping = self._stepping(step)

        def feed() -> StepFeed:
            request_of, needs_decision = self._step_lookups()
            return StepFeed(
                self._runtime.store, self.id, request_of=request_of, needs_decision=needs_decision
            )

        async def start(listener: Listener | None, follower: Follower | None) -> Run:
            if message is None:
                # Descendants that paused go on first, once every call they wait on is
                # decided (see `resume`).
                await self._resume_decided_children()
            following = dataclasses.replace(stepping, follower=follower)
            return await self._run(message, attachments, wait_children, following, listener)

        return FollowedRun(start, feed)

    def snapshot(self, at: str | int) -> Snapshot:
        """This thread as of a point of its history: `at` is a message id (up to and including
        it), a tool call id (its assistant message and the results of the calls before it) or
        an index into `history_points()` (negative counts from the end). `.messages` (the
        top-level conversation then), `.files` (path -> bytes then), `.env` (text variables
        then; secrets as `[secret:NAME]`), `.children` (name, reference and status then): the
        cut a fork at that point copies, read without writing anything; a thread that is
        running can be read too.

        Raises `tl.ThreadlabError` for an id that is neither a message nor a call of this
        thread, or an index outside its history."""
        store = self._runtime.store
        seq = place_of(store, self.id, at, self.history_points)
        return snapshot(store, self.id, seq, self._context.history.messages())

    @property
    def children(self) -> list[Thread]:
        """Child threads in creation order, finished ones included."""
        return [self._runtime.thread(child.id) for child in self._context.children()]

    @property
    def forked_from(self) -> ForkPoint | None:
        """Where this branch was forked from (None for a thread that is no branch)."""
        return self._context.identity.meta.forked_from

    @property
    def branches(self) -> list[Thread]:
        """The threads forked from this one, oldest first."""
        found = []
        for record in reversed(self._runtime.store.list_threads()):
            meta = ThreadMeta.read(record.metadata)
            if meta is not None and meta.forked_from and meta.forked_from.thread_id == self.id:
                found.append(self._runtime.thread(record.id))
        return found

    # running

    async def send(
        self,
        message: str,
        *,
        attachments: Iterable[str] = (),
        wait_children: bool = True,
        step: StepOption = False,
    ) -> Run:
        """Send a user message and run until the turn ends (and, with `wait_children`, until
        the non-blocking children this run started have finished and been answered).

        Model and provider errors do not raise: they end the run with status "failed".
        Cancelling the awaiting task cancels the run, after persisting an "interrupted" result
        for every unfinished tool call.

        `step`: where the run pauses for a person. `True` or "tools": every top-level tool
        call waits for a decision before it runs, as if its tool said `approval="always"`
        (see `approve`). "model": before each top-level model step the run ends "waiting"
        (stop reason "waiting: model step", `run.pending` empty) with `run.next_request`, the
        request it is about to send; `resume(step="model")` sends it, runs that step and its
        calls, and pauses before the next. "all": both. The pause is stored with the thread,
        so a resume after a restart goes on from it. Raises `tl.ThreadBusyError` while another
        run holds the thread (step mode needs a run of its own).
        """
        return await self._followed(message, attachments, wait_children, step)._to_end()

    async def fork(
        self,
        at: str,
        *,
        result: Any = None,
        arguments: Mapping[str, Any] | None = None,
        message: str | None = None,
    ) -> Thread:
        """A branch of this thread at `at`, which then goes its own way (the original never
        changes). `at` is a top-level message id (the branch holds the history up to and
        including it) or a tool call id (the branch holds that call's assistant message and
        the results of the calls before it; that call and the ones after it are open).
        `result=` (a call) stores that call's result instead of running it (a
        `tl.ToolResult`, or any value as a success); `arguments=` (a call) runs it with these
        arguments, checked against the tool's schema; `message=` (a user message) rewrites
        its text. The branch holds the env, files and children as they were at that point,
        and runs when it is resumed, sent to or streamed.

        Raises a `tl.ThreadlabError` naming what does not fit (nothing is written), and
        `tl.ThreadBusyError` while the thread is running.
        """
        context = self._context
        # An edit is redacted like a sent message: the secrets of the thread (all of them, not
        # only those the branch will have) never reach the branch's messages in plain text.
        redactor = context.known_secrets()
        if message is not None:
            message = redactor.text(message)
        if arguments is not None:
            arguments = redactor.value(dict(arguments))
        cut = fork_point(
            self._runtime.store,
            context.leases,
            context.registry,
            self.id,
            at,
            arguments=arguments,
            message=message,
            with_result=result is not None,
        )
        given = None
        if result is not None and cut.call is not None:
            given = given_result(cut.call, result, redactor)
        branch = self._runtime.thread(fork_tree(self._runtime.store, self.id, cut, at))
        if given is not None and cut.call is not None:
            give_result(branch._context, cut.call, given)
        return branch

    @property
    def pending(self) -> list[ApprovalRequest]:
        """The tool calls of this thread and its descendants that wait for a decision (see
        `approve`, `reject`); `request.thread_id` says whose call each one is."""
        return [r for t in self._tree() for r in pending_requests(t._context)]

    def _tree(self) -> list[Thread]:
        return [self, *(t for child in self.children for t in child._tree())]

    async def approve(
        self,
        tool_call_id: str,
        *,
        arguments: Mapping[str, Any] | None = None,
        by: Literal["api", "view", "mcp"] = "api",
    ) -> None:
        """Let a waiting call run (with `arguments` instead, checked against its tool's schema);
        `resume()` then runs it. The call is this thread's of that id, else a descendant's
        (where several descendants wait on one id, decide on the thread that made it).
        `tl.ThreadlabError` (nothing recorded) for a call that is not waiting or arguments the
        schema refuses. `by` is recorded as who decided."""
        request = self._waiting(tool_call_id)
        if arguments is not None:
            problems = self._context.registry.check_arguments(request.name, arguments)
            if problems:
                listed = "; ".join(problems)
                raise ThreadlabError(f"invalid arguments for tool {request.name!r}: {listed}")
        self._decide(
            request,
            ApprovalDecidedEvent(
                tool_call_id=tool_call_id,
                approved=True,
                edited=arguments is not None,
                arguments=dict(arguments) if arguments is not None else None,
                by=by,
                **self._context.base(),
            ),
        )

    async def reject(
        self, tool_call_id: str, reason: str = "", *, by: Literal["api", "view", "mcp"] = "api"
    ) -> None:
        """Refuse a waiting call: `resume()` gives it the error result "rejected: <reason>"
        ("rejected (no reason was given)" without one) and goes on. `tl.ThreadlabError`
        (nothing recorded) for a call that is not waiting."""
        request = self._waiting(tool_call_id)
        self._decide(
            request,
            ApprovalDecidedEvent(
                tool_call_id=tool_call_id,
                approved=False,
                reason=reason or None,
                by=by,
                **self._context.base(),
            ),
        )

    def _waiting(self, tool_call_id: str) -> ApprovalRequest:
        found = [r for r in self.pending if r.tool_call_id == tool_call_id]
        # A call id is its thread's own (a child may number its calls as its parent does):
        # this thread's call first; a descendant's where only one has a call of that id.
        own = [r for r in found if r.thread_id == self.id]
        below = sorted({r.thread_id for r in found})
        if not own and len(below) > 1:
            raise ThreadlabError(
                f"tool call {tool_call_id!r} waits in {len(below)} threads below {self.id}"
                f" ({', '.join(below)}): decide it on the thread that made it"
                " (rt.thread(ID).approve or .reject)"
            )
        found = own or found
        if found:
            request = found[-1]  # the latest call with that id, where a model repeats ids
            if self._runtime.thread(request.thread_id).status == "running":
                raise ThreadBusyError(
                    f"thread {request.thread_id} is running: decide once its run has ended"
                )
            return request
        raise ThreadlabError(
            f"tool call {tool_call_id!r} of thread {self.id} (or its descendants) does not"
            " wait for a decision (unknown, never asked for one, or decided already)"
        )

    def _decide(self, request: ApprovalRequest, event: ApprovalDecidedEvent) -> None:
        """Record `event` in the thread whose call `request` is: a claim that one decision
        wins, whichever process makes it (see `claim_decision`)."""
        caller = self if request.thread_id == self.id else self._runtime.thread(request.thread_id)
        claim_decision(caller._context, event.model_copy(update={"message_id": request.message_id}))

    async def queue(
        self,
        message: str,
        *,
        attachments: Iterable[str] = (),
        model: Model | str | None = None,
        step: StepOption = False,
    ) -> asyncio.Future[Handled]:
        """Leave `message` to the runtime's engine and return at once: with
        `tl.RayEngine`, a Ray task opens the thread from the store and runs it (`model`: a
        model or model name its prompts use instead of their own). Its run, events and
        outcome are in the store, as of any run. The run keeps this runtime's limits
        (`max_steps`, the failure budget, `budget`) and its `approver` (which must pickle),
        and pauses where `step` says, as `send` would. Returns the engine's future for the
        run (await it, or not: the store has the outcome either way). A runtime without an
        engine runs everything in this process: `send` it instead."""
        stepping = Stepping.of(step)
        if self._runtime.engine is None:
            raise ThreadlabError(
                "thread.queue leaves the run to the runtime's engine, and this runtime has"
                " none: create it with engine=tl.RayEngine(...), or await thread.send(...)"
            )
        if isinstance(attachments, str):
            attachments = [attachments]
        context = self._context
        paths = tuple(context.files.require(p).path for p in attachments)
        with context.transaction():
            context.identity.set_meta(
                runs_on="engine", model=model if isinstance(model, str) else None
            )
            context.inbox.put(Message(role="user", content=message, attachments=paths))
        context.model_override = model
        return self._runtime.hand_off(context, stepping)

    async def resume(self, *, wait_children: bool = True, step: StepOption = False) -> Run:
        """Continue what the stored history leaves open, with no new message: the tool calls
        of the last assistant message that have no result (in order; the results before them
        are kept), then model steps until the turn ends. A history that ends with a user
        message, or with results the model has not answered, gets its model step; with
        nothing open the run is "completed" and no model is called. The same statuses,
        events, hooks and lease as `send`.

        Descendants that paused for a decision go on first, once every call they wait on is
        decided: a blocking child with the call of its parent that waits for it, a
        non-blocking one before this thread (which then hears its report).

        `step` as for `send`: a run that paused before a model step sends it now."""
        return await self._followed(None, (), wait_children, step)._to_end()

    async def _resume_decided_children(self) -> None:
        for child in self._decided_children():
            await resume_child(self._runtime, child._context)

    def _decided_children(self) -> list[Thread]:
        """Non-blocking descendants (deepest first) that wait, with every call decided."""
        found: list[Thread] = []
        for child in self.children:
            found += child._decided_children()
            waited_for = child.id in self._context.identity.meta.waiting_on.values()
            decided = not pending_requests(child._context)
            if child.status == "waiting" and not waited_for and decided:
                found.append(child)
        return found

    async def _run(
        self,
        message: str | None,
        attachments: Iterable[str],
        wait_children: bool,
        stepping: Stepping,
        listener: Listener | None,
    ) -> Run:
        since = time.time()
        try:
            run = await execute_run(
                self._runtime,
                self._context,
                message,
                attachments,
                listener,
                wait_children=wait_children,
                step=stepping,
            )
        except asyncio.CancelledError:
            self._interrupted_since(since)
            raise
        if run.status != "queued":
            self._runtime.run_finished(self, run)
        return run

    def _stepping(self, step: StepOption) -> Stepping:
        """The stepping `step` asks for; step mode starts a run of its own, so it is refused
        while another run holds the thread (its message would only be queued)."""
        stepping = Stepping.of(step)
        if stepping and self._context.leases.held_now(self.id):
            raise ThreadBusyError(
                f"thread {self.id} is running: step mode needs a run of its own; send once"
                " the current run has ended"
            )
        return stepping

    def _interrupted_since(self, since: float) -> None:
        """A cancelled run still ended (its history repaired, its end persisted): the run
        listeners hear of it too — an interrupted run is the one a trace is wanted for."""
        for event in reversed(self._context.history.events()):
            if event.at < since:
                return  # nothing of this run was persisted: it never started
            if isinstance(event, RunFinishedEvent) and not event.depth:
                run = Run(event.run_id, self.id, event.status, event.text, event.error)
                self._runtime.run_finished(self, run)
                return

    async def stream(
        self,
        message: str | None = None,
        *,
        attachments: Iterable[str] = (),
        step: StepOption = False,
    ) -> AsyncIterator[ThreadEvent]:
        """The same run as `send` (or, with no message, as `resume`), yielding its events (and
        its descendants') as they happen; the last one is `run_finished`. Closing the iterator
        early cancels the run.

        `event.type` tells the events apart, and narrows the type for a type checker.
        """
        followed = self._followed(message, attachments, True, step)
        # Closed with this one: a stream closed early cancels its run before aclose returns.
        async with contextlib.aclosing(followed._events(self._queued_end)) as events:
            async for event in events:
                yield event

    def _queued_end(self, run: Run) -> RunFinishedEvent:
        """A stream's last event for a run left to the engine (the worker stores its end)."""
        return RunFinishedEvent(run_id=run.id, status=run.status, **self._context.base())
