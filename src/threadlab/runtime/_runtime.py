"""`Runtime`: definitions + a store + limits; creates, reopens and lists threads, and hosts
their runs."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from .._data import Budget, Run, ThreadMeta, new_id
from .._errors import CallContextError, MissingVariableError, ThreadNotFoundError
from ..definitions import (
    AgentDefinition,
    Registry,
    Resolve,
    Subagent,
    ThreadGraph,
    ToolDefinition,
    default_registry,
)
from ..execution import Approver, Limits, ModelResolver, ToolSpecCache, repair
from ..mcp_client import MCPPool
from ..models import Model, ToolPurpose, ToolSpec
from ..store import LocatedStore, Store, ThreadRecord, open_store
from ..threads import RunLeases, SecretBox, ThreadContext, missing_in_descendants
from ._overview import ThreadOverview, overview
from ._thread import Thread
from ._worker import Worker

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

__all__ = ["Runtime", "run"]

log = logging.getLogger("threadlab.store")


class Runtime:
    """Runs threads of the definitions in `registry`, persisting them in `store`.

    Args:
        registry: the definitions to use (default: the process-wide registry).
        store: a directory path for SQLite (default ".threadlab"), a postgresql:// URL, or a
            Store.
        max_consecutive_failures: failed tool calls in a row that stop a run.
        max_steps: model calls per turn, unless a side sets its own.
        max_session_turns: the cap of a dual_ai session.
        hook_timeout: seconds a hook may take before it is ignored.
        secret_key: key for secrets at rest; else THREADLAB_SECRET_KEY, else a 0600 key file
            in the user's config directory.
        children: where the non-blocking children this runtime creates run: "here" (tasks
            in this process) or "workers" (left queued in the store for `serve`, in any
            process that shares it; their reports come back through the store).
        poll_interval: seconds between looks at the store by a run waiting for its children
            or by `serve`, for what no notification announced (SQLite cannot notify; a
            PostgreSQL notification sent while nobody listened is lost).
        tracer_provider: an OpenTelemetry `TracerProvider` (extra `threadlab[otel]`): each
            run that ends is sent through it as GenAI spans, without message or argument
            content, and the provider is flushed (see `threadlab.otel`).
        approver: asked before each call that needs a decision (see `tl.Approval`); None:
            such a call pauses its run ("waiting").
        budget: a `tl.Budget` every run keeps to, its descendants' model calls included.

    Examples:
        >>> import threadlab as tl
        >>> rt = tl.Runtime(tl.Registry(), store=getfixture("tmp_path"))
        >>> rt.threads()
        []
        >>> rt.close()
    """

    def __init__(
        self,
        registry: Registry | None = None,
        store: Store | str | os.PathLike[str] | None = None,
        *,
        max_consecutive_failures: int = 10,
        max_steps: int = 50,
        max_session_turns: int = 20,
        hook_timeout: float = 10.0,
        secret_key: str | bytes | None = None,
        children: Literal["here", "workers"] = "here",
        poll_interval: float = 1.0,
        tracer_provider: TracerProvider | None = None,
        approver: Approver | None = None,
        budget: Budget | None = None,
    ) -> None:
        self.registry = registry if registry is not None else default_registry()
        if budget is not None and not isinstance(budget, Budget):
            raise TypeError(f"budget must be a tl.Budget or None, got {budget!r}")
        self.budget = budget
        """What each run may spend (None: no limit)."""
        if approver is not None and not callable(approver):
            raise TypeError(
                f"approver must be callable (request) -> bool | tl.Approval, got {approver!r}"
            )
        self.approver = approver
        """Asked before each call whose tool needs a decision; None: such a call pauses the
        run ("waiting") until `thread.approve` / `thread.reject` and `thread.resume()`."""
        self.store: Store = open_store(store)
        self._leases = RunLeases(self.store)
        self.limits = Limits(
            max_consecutive_failures=max_consecutive_failures,
            max_steps=max_steps,
            max_session_turns=max_session_turns,
            hook_timeout=hook_timeout,
            poll_interval=poll_interval,
        )
        if children not in ("here", "workers"):
            raise ValueError(f'children must be "here" or "workers", not {children!r}')
        self.children = children
        self.secrets = SecretBox(secret_key)
        self._run_listeners: list[Callable[[Thread, Run], None]] = []
        self._contexts: dict[str, ThreadContext] = {}
        self._handles: dict[str, Thread] = {}
        self._models = ModelResolver(self.registry)
        self._specs = ToolSpecCache(self.registry)
        self._mcp = MCPPool()
        if tracer_provider is not None:
            self.on_run_finished(_live_export(tracer_provider))

    @property
    def max_consecutive_failures(self) -> int:
        """Failed tool calls in a row that stop a run."""
        return self.limits.max_consecutive_failures

    @property
    def max_steps(self) -> int:
        """Model calls per turn, unless a side sets its own."""
        return self.limits.max_steps

    @property
    def max_session_turns(self) -> int:
        """The cap of a dual_ai session."""
        return self.limits.max_session_turns

    @property
    def hook_timeout(self) -> float:
        """Seconds a hook may take before it is ignored."""
        return self.limits.hook_timeout

    async def create_thread(
        self,
        target: str,
        *,
        env: Mapping[str, str] | None = None,
        secrets: Mapping[str, str] | None = None,
        model: Model | str | None = None,
        origin: str | None = None,
    ) -> Thread:
        """Create a thread of an agent or a bare prompt. `origin` says where it was made (the
        notebook's path, in a kernel), so a list of threads can be narrowed to one notebook's.

        Raises DefinitionError for an unknown target or reference, and MissingVariableError
        naming every required variable of the agent graph that does not resolve.
        """
        await self.prepare_definitions()
        graph = ThreadGraph(self.registry, target)
        if model is not None:
            self._models.check(model)
        meta = ThreadMeta(origin=origin or None)
        record = ThreadRecord(new_id("thr"), None, target, time.time(), meta.dumps())
        with self.store.transaction():
            self.store.add_thread(record)
            context = self._new_context(record, None)
            context.adopt_graph(graph)
            context.model_override = model
            context.env.set_given(env or {})
            context.env.set_given(secrets or {}, "secret")
            missing = context.env.missing() + missing_in_descendants(
                self.registry, graph, context.env.resolve
            )
            if missing:
                self._forget(record.id)
                raise MissingVariableError(missing)  # rolls the thread back
        return self.thread(record.id)

    def thread(self, thread_id: str, model: Model | str | None = None) -> Thread:
        """Reopen a persisted thread. A run whose process died is repaired on opening: its
        unfinished calls get "interrupted" results. `model` overrides the model of the
        thread's own prompts (not persisted)."""
        context = self.context(thread_id)
        if model is not None:
            context.model_override = model
        handle = self._handles.get(thread_id)
        if handle is None:
            handle = self._handles[thread_id] = Thread(self, context)
        return handle

    def check(self, target: str) -> None:
        """`tl.DefinitionError` naming what is missing or wrong when prompt or agent `target`
        could not run on this runtime's definitions (a tool it lists is not defined, say)."""
        ThreadGraph(self.registry, target)

    def variable_type(self, target: str, name: str) -> Literal["text", "secret"] | None:
        """How `target`'s definitions declare variable `name` (secret wins when declarations
        disagree); None when none declares it."""
        return ThreadGraph(self.registry, target).variable_type(name)

    def overview(self) -> list[ThreadOverview]:
        """Every root thread as a list shows it (status, counts, where it was made), newest
        first, in one query and without opening any: what `%threadlab threads` draws."""
        return overview(self.store, self._leases)

    def threads(self) -> list[Thread]:
        """Every persisted thread that can be read, newest first. A thread that cannot be
        opened at all is left out and logged by id; one with damaged rows is listed, and its
        `damage` says what was left out."""
        found: list[Thread] = []
        for record in self.store.list_threads():
            try:
                found.append(self.thread(record.id))
            except Exception as exc:  # one bad thread must not hide the others
                log.warning("thread %s cannot be opened and is not listed: %s", record.id, exc)
        return found

    async def serve(self, stop: asyncio.Event | None = None, *, concurrency: int = 4) -> None:
        """Work as a worker until `stop` is set: run the children that runtimes with
        `children="workers"` left in the store (those of agents defined here), at most
        `concurrency` at a time, each until its queue is empty, its report delivered to its
        parent. Wakes on the store's notifications (PostgreSQL) and looks every
        `poll_interval` seconds. When stopped, the runs under way finish first."""
        await Worker(self, concurrency).serve(stop or asyncio.Event())

    async def prepare_definitions(self) -> None:
        """List the tools of the MCP servers the registry's prompts may use (each server
        started or reached on first use, once per runtime) into the registry."""
        await self._mcp.ready(self.registry)

    def close(self) -> None:
        """Release the store, and end the MCP sessions (from a running event loop they end
        as it next runs: `aclose` waits for them)."""
        self._mcp.close()
        self.store.close()

    async def aclose(self) -> None:
        """`close`, waiting until every MCP server this runtime started has stopped."""
        await self._mcp.aclose()
        self.store.close()

    # the thread directory (ThreadDirectory)

    def context(self, thread_id: str) -> ThreadContext:
        """The context of a persisted thread, repaired when first opened here."""
        known = self._contexts.get(thread_id)
        if known is not None:
            return known
        record = self.store.get_thread(thread_id)
        if record is None:
            raise ThreadNotFoundError(f"no thread {thread_id!r} in {self._store_name()}")
        parent = self.context(record.parent_id) if record.parent_id else None
        context = self._new_context(record, parent)
        repair(context)
        return context

    def handle(self, thread_id: str) -> Thread:
        """The public handle of a thread (what `state.get_child_thread` returns)."""
        return self.thread(thread_id)

    # the run host (RunHost)

    def on_run_finished(self, listener: Callable[[Thread, Run], None]) -> Callable[[], None]:
        """Call `listener(thread, run)` after each run a thread handle of this runtime
        finished (`send` or `stream`; not a message that was only queued), a cancelled one
        included (status "interrupted", heard before `CancelledError` goes on); returns a
        function that removes it. A listener that raises is logged, never breaks the run."""
        self._run_listeners.append(listener)

        def remove() -> None:
            if listener in self._run_listeners:
                self._run_listeners.remove(listener)

        return remove

    def run_finished(self, thread: Thread, run: Run) -> None:
        for listener in list(self._run_listeners):
            try:
                listener(thread, run)
            except Exception:
                log.exception("a run listener failed after run %s", run.id)

    def resolve_model(self, chosen: Any, variables: Resolve) -> Model:
        """The model for a name or a model object."""
        return self._models.resolve(chosen, variables)

    def tool_spec(self, tool: ToolDefinition, purpose: ToolPurpose = "function") -> ToolSpec:
        """A tool as offered to a model."""
        return self._specs.spec(tool, purpose)

    def create_child(
        self, parent: ThreadContext, relationship: Subagent, label: str, agent: AgentDefinition
    ) -> ThreadContext:
        """A child thread for `relationship`, with the env values the relationship gives it.
        Raises MissingVariableError (and creates nothing) when its required variables do not
        resolve."""
        graph = ThreadGraph(self.registry, agent.name)
        meta = ThreadMeta(
            name=label,
            relationship=relationship.name,
            description=agent.tool_description,
            blocking=relationship.blocking,
            resumable=relationship.resumable,
            parent_communication=relationship.parent_communication,
            # A blocking child's outcome is the tool's result: it always runs here.
            runs_on="workers" if self.children == "workers" and not relationship.blocking else None,
        )
        record = ThreadRecord(new_id("thr"), parent.id, agent.name, time.time(), meta.dumps())
        with self.store.transaction():
            self.store.add_thread(record)
            context = self._new_context(record, parent)
            context.adopt_graph(graph)
            context.env.set_given(relationship.env or {})
            missing = context.env.missing()
            if missing:
                self._forget(record.id)
                raise MissingVariableError(missing)
        return context

    # helpers

    def _new_context(self, record: ThreadRecord, parent: ThreadContext | None) -> ThreadContext:
        context = ThreadContext(
            self, self.store, self._leases, self.secrets, self.registry, record, parent
        )
        context.model_override = context.identity.meta.model  # a model chosen when it was made
        self._contexts[record.id] = context
        return context

    def _forget(self, thread_id: str) -> None:
        self._contexts.pop(thread_id, None)
        self._handles.pop(thread_id, None)

    def _store_name(self) -> str:
        store = self.store
        return store.location if isinstance(store, LocatedStore) else type(store).__name__


def run(
    target: str,
    message: str,
    *,
    env: Mapping[str, str] | None = None,
    secrets: Mapping[str, str] | None = None,
    model: Model | str | None = None,
    registry: Registry | None = None,
    store: Store | str | os.PathLike[str] | None = None,
    **runtime_options: Any,
) -> Run:
    """Run one message on a new thread, synchronously (for scripts).

    Inside a running event loop (a notebook cell, an async function) use
    `await (await rt.create_thread(...)).send(...)` instead.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise CallContextError(
            "tl.run() cannot be used inside a running event loop (a notebook or async code);"
            " use `thread = await rt.create_thread(...)` and `await thread.send(...)`"
        )

    async def main() -> Run:
        rt = Runtime(registry, store, **runtime_options)
        try:
            thread = await rt.create_thread(target, env=env, secrets=secrets, model=model)
            return await thread.send(message)
        finally:
            rt.close()

    return asyncio.run(main())


def _live_export(tracer_provider: TracerProvider) -> Callable[[Thread, Run], None]:
    try:
        from ..otel import live_export  # the optional extra: imported only when asked for
    except ImportError as error:
        raise ImportError(
            "tracer_provider needs the OpenTelemetry SDK: pip install 'threadlab[otel]'"
        ) from error
    return live_export(tracer_provider)
