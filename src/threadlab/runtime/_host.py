"""The runtime's engine room: what runs need from it (`RunHost`) and what a thread needs to
find its relatives (`ThreadDirectory`): the registry and store, the limits, the approver and
budget, model resolution, tool specs, the MCP servers, child threads, and each thread's
context, opened (and repaired) once per runtime. `Runtime` is the face a user calls; this is
what it runs on."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .._data import Budget, Elicitor, Run, ThreadMeta, new_id
from .._errors import MissingVariableError, StoreError, ThreadlabError, ThreadNotFoundError
from ..definitions import (
    AgentDefinition,
    Registry,
    Resolve,
    Subagent,
    ThreadDefinitions,
    ToolDefinition,
)
from ..execution import (
    NO_STEPPING,
    Approver,
    Limits,
    ModelResolver,
    Stepping,
    ToolSpecCache,
    fail_queued,
    repair,
)
from ..mcp_client import MCPPool
from ..models import Model, ToolPurpose, ToolSpec
from ..store import LocatedStore, Store, StoreAccessError, ThreadRecord
from ..threads import RunLeases, SecretBox, ThreadContext
from ._asking import RuntimeCaller
from ._engine import Engine, Handled, Handoff, RunPolicy
from ._sampling import SamplingAnswerer

if TYPE_CHECKING:
    from ._thread import Thread

__all__ = ["RuntimeHost"]

log = logging.getLogger("threadlab.store")


class RuntimeHost:
    """One runtime's services to its runs and threads."""

    def __init__(
        self,
        registry: Registry,
        store: Store,
        limits: Limits,
        secrets: SecretBox,
        approver: Approver | None,
        budget: Budget | None,
        handle: Callable[[str], Thread],
        elicitor: Elicitor | None = None,
        engine: Engine | None = None,
    ) -> None:
        self.registry = registry
        self.store = store
        self.limits = limits
        self.secrets = secrets
        self.approver = approver
        self.budget = budget
        self.leases = RunLeases(store)
        self._handle = handle
        self._contexts: dict[str, ThreadContext] = {}
        self._models = ModelResolver(registry)
        self._specs = ToolSpecCache(registry)
        self.elicitor = elicitor
        self.engine = engine
        self._handed: set[asyncio.Future[Any]] = set()
        sampler = SamplingAnswerer(self)
        self._mcp = MCPPool(elicitor, sampler)
        self.caller = RuntimeCaller(self, sampler)
        """Whom its tools' `state.elicit` and `state.sample` ask outside a served call."""
        self._run_listeners: list[Callable[[Thread, Run], None]] = []

    @property
    def mcp_pool(self) -> MCPPool:
        """The sessions with the MCP servers this runtime's tools call."""
        return self._mcp

    # what a run needs (RunHost)

    async def prepare_definitions(self) -> None:
        """List the tools of the MCP servers the registry's prompts may use (each server
        started or reached on first use, once per runtime) into the registry."""
        await self._mcp.ready(self.registry)

    def resolve_model(self, chosen: Any, variables: Resolve) -> Model:
        """The model for a name or a model object."""
        return self._models.resolve(chosen, variables)

    def check(self, target: str) -> None:
        """`DefinitionError` naming what is missing or wrong when prompt or agent `target`
        could not run on these definitions."""
        ThreadDefinitions(self.registry, target)

    def check_model(self, chosen: Any) -> None:
        """`DefinitionError` unless `chosen` is a model or names one."""
        self._models.check(chosen)

    def tool_spec(self, tool: ToolDefinition, purpose: ToolPurpose = "function") -> ToolSpec:
        """A tool as offered to a model."""
        return self._specs.spec(tool, purpose)

    def create_child(
        self, parent: ThreadContext, relationship: Subagent, label: str, agent: AgentDefinition
    ) -> ThreadContext:
        """A child thread for `relationship`, with the env values the relationship gives it.
        Raises MissingVariableError (and creates nothing) when its required variables do not
        resolve."""
        definitions = ThreadDefinitions(self.registry, agent.name)
        meta = ThreadMeta(
            name=label,
            relationship=relationship.name,
            description=agent.tool_description,
            blocking=relationship.blocking,
            resumable=relationship.resumable,
            parent_communication=relationship.parent_communication,
            # A blocking child's outcome is the tool's result: it always runs here.
            runs_on="engine" if self.engine is not None and not relationship.blocking else None,
        )
        record = ThreadRecord(
            new_id("thr"), parent.id, agent.name, time.time(), meta.dumps(),
            member=parent.identity.record.member,  # a child is its parent's member's
        )  # fmt: skip
        with self.store.transaction():
            self.store.add_thread(record)
            context = self.new_context(record, parent)
            context.adopt_definitions(definitions)
            context.env.set_given(relationship.env or {})
            missing = context.env.missing()
            if missing:
                self.forget(record.id)
                raise MissingVariableError(missing)
        return context

    def policy(self) -> RunPolicy:
        """What bounds and decides this runtime's runs, for a run that leaves the process."""
        return RunPolicy(self.limits, self.approver, self.budget)

    def hand_off(self, context: ThreadContext, step: Stepping = NO_STEPPING) -> asyncio.Future[Any]:
        """Leave a thread whose message is queued to the engine (see `RunHost.hand_off`)."""
        try:
            if self.engine is None:
                raise ThreadlabError(f"thread {context.id} is left to an engine, but none is set")
            handed = self.engine.run(
                Handoff(
                    self.registry,
                    self.store,
                    self.secrets,
                    context.id,
                    context.model_override,
                    self.policy(),
                    step,
                )
            )
            # Held here until it ends: a run left with `queue` has no other holder.
            self._handed.add(handed)
            handed.add_done_callback(self._handed.discard)
            return handed
        except Exception as exc:  # it cannot leave (no Ray, definitions that do not pickle)
            log.warning("thread %s could not be handed to the engine: %s", context.id, exc)
            fail_queued(context, context.redact(f"it could not be handed to the engine: {exc}"))
            gone: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            gone.set_result(Handled(None))
            return gone

    # finding threads (ThreadDirectory)

    def context(self, thread_id: str, _below: tuple[str, ...] = ()) -> ThreadContext:
        """The context of a persisted thread, repaired when first opened here."""
        known = self._contexts.get(thread_id)
        if known is not None:
            return known
        if thread_id in _below:  # a damaged row names a descendant as an ancestor
            loop = " → ".join((*_below[_below.index(thread_id) :], thread_id))
            raise StoreError(
                f"thread {_below[0]!r} cannot be opened: its parents form a loop ({loop});"
                " the store is damaged"
            )
        record = self.store.get_thread(thread_id)
        if record is None:
            raise ThreadNotFoundError(f"no thread {thread_id!r} in {self._store_name()}")
        below = (*_below, thread_id)
        parent = self.context(record.parent_id, below) if record.parent_id else None
        context = self.new_context(record, parent)
        try:
            repair(context)
        except StoreAccessError:
            # Another member's thread on a class's store (the instructor reading a student's
            # whose kernel died mid-call): read as it is; its member's runtime repairs it.
            log.info("thread %s is not this role's to repair: read as it is", thread_id)
        return context

    def handle(self, thread_id: str) -> Thread:
        """The public handle of a thread (what `state.get_child_thread` returns)."""
        return self._handle(thread_id)

    def thread(self, thread_id: str) -> Thread:
        """The same handle, as a thread's handle and a worker ask for it."""
        return self._handle(thread_id)

    def new_context(self, record: ThreadRecord, parent: ThreadContext | None) -> ThreadContext:
        """The context of a thread just read or added."""
        context = ThreadContext(
            self, self.store, self.leases, self.secrets, self.registry, record, parent
        )
        context.model_override = context.identity.meta.model  # a model chosen when it was made
        self._contexts[record.id] = context
        return context

    def forget(self, thread_id: str) -> None:
        """Drop a thread whose creation was rolled back."""
        self._contexts.pop(thread_id, None)

    # runs that end

    def on_run_finished(self, listener: Callable[[Thread, Run], None]) -> Callable[[], None]:
        """Call `listener(thread, run)` after each run; returns a function that removes it."""
        self._run_listeners.append(listener)

        def remove() -> None:
            if listener in self._run_listeners:
                self._run_listeners.remove(listener)

        return remove

    def run_finished(self, thread: Thread, run: Run) -> None:
        """Tell the listeners; one that raises is logged, never breaks the run."""
        for listener in list(self._run_listeners):
            try:
                listener(thread, run)
            except Exception:
                log.exception("a run listener failed after run %s", run.id)

    # closing

    def close(self) -> None:
        self._mcp.close()
        self.store.close()

    async def aclose(self) -> None:
        await self._mcp.aclose()
        self.store.close()

    def _store_name(self) -> str:
        store = self.store
        return store.location if isinstance(store, LocatedStore) else type(store).__name__
