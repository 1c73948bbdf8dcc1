"""`Runtime`: definitions + a store + limits; creates, reopens and lists threads."""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Mapping
from typing import Any

from .._errors import DefinitionError, MissingVariableError
from ..models._base import Model, ToolSpec
from ..models._offline import OfflineModel
from ..store import SQLiteStore, Store, ThreadRecord
from ._definitions import AgentDefinition, ToolDefinition
from ._env import ThreadEnv
from ._graph import ThreadGraph
from ._messages import new_id
from ._registry import Registry, default_registry
from ._run import Run
from ._scoping import missing_in_descendants
from ._secrets import SecretBox
from ._thread import Thread
from ._values import Subagent

__all__ = ["Runtime", "run"]


class Runtime:
    """Runs threads of the definitions in `registry`, persisting them in `store`.

    Args:
        registry: the definitions to use (default: the process-wide registry).
        store: a directory path (default ".threadlab") or a Store.
        max_consecutive_failures: failed tool calls in a row that stop a run.
        max_steps: model calls per turn, unless a side sets its own.
        max_session_turns: the cap of a dual_ai session.
        hook_timeout: seconds a hook may take before it is ignored.
        secret_key: key for secrets at rest; else THREADLAB_SECRET_KEY, else a 0600 key file
            in the user's config directory.
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
    ) -> None:
        self.registry = registry if registry is not None else default_registry()
        if store is None or isinstance(store, str | os.PathLike):
            self.store: Store = SQLiteStore(store if store is not None else ".threadlab")
        else:
            self.store = store
        self.max_consecutive_failures = max_consecutive_failures
        self.max_steps = max_steps
        self.max_session_turns = max_session_turns
        self.hook_timeout = hook_timeout
        self.secrets = SecretBox(secret_key)
        self._threads: dict[str, Thread] = {}
        self._specs: dict[tuple[int, str], tuple[ToolDefinition, ToolSpec]] = {}
        self._offline = OfflineModel()

    async def create_thread(
        self,
        target: str,
        *,
        env: Mapping[str, str] | None = None,
        secrets: Mapping[str, str] | None = None,
        model: Model | str | None = None,
    ) -> Thread:
        """Create a thread of an agent or a bare prompt.

        Raises DefinitionError for an unknown target or reference, and MissingVariableError
        naming every required variable of the agent graph that does not resolve.
        """
        graph = ThreadGraph(self.registry, target)
        if model is not None:
            self._resolve_model(model)
        record = ThreadRecord(new_id("thr"), None, target, time.time(), json.dumps({}))
        with self.store.transaction():
            self.store.add_thread(record)
            thread = Thread(self, record, model)
            thread._graph = graph
            thread_env = thread._env_required()
            for name, value in (env or {}).items():
                declared = graph.declared(name)
                kind = thread_env.kind(name) if declared else "text"
                thread_env.set(name, value, kind)
            thread_env.set_many(secrets or {}, "secret")
            missing = thread_env.missing() + missing_in_descendants(
                self.registry, graph, thread_env.resolve
            )
            if missing:
                raise MissingVariableError(missing)  # rolls the thread back
        self._threads[record.id] = thread
        return thread

    def thread(self, thread_id: str, model: Model | str | None = None) -> Thread:
        """Reopen a persisted thread. A run whose process died is repaired on opening: its
        unfinished calls get "interrupted" results."""
        known = self._threads.get(thread_id)
        if known is not None:
            if model is not None:
                known._model_override = model
            return known
        record = self.store.get_thread(thread_id)
        if record is None:
            raise LookupError(f"no thread {thread_id!r} in {self._store_name()}")
        thread = Thread(self, record, model)
        self._threads[thread_id] = thread
        thread._repair()
        return thread

    def threads(self) -> list[Thread]:
        """Every persisted thread, newest first."""
        return [self.thread(record.id) for record in self.store.list_threads()]

    def close(self) -> None:
        self.store.close()

    def _store_name(self) -> str:
        return str(getattr(self.store, "path", type(self.store).__name__))

    def _resolve_model(self, chosen: Any) -> Model:
        if not isinstance(chosen, str):
            # A duck-typed check: isinstance against the runtime Protocol is slow per step.
            if not callable(getattr(chosen, "stream", None)):
                raise DefinitionError(f"{chosen!r} is not a model: it needs a stream() method")
            return chosen  # type: ignore[no-any-return]
        if chosen == "offline":
            return self._offline
        definition = self.registry.model(chosen)
        if definition is None:
            raise DefinitionError(
                f"model {chosen!r} is not defined (define it with tl.define_model, or use"
                " 'offline')"
            )
        if definition.provider == "offline":
            return OfflineModel(**definition.options)
        raise DefinitionError(
            f"model {chosen!r}: the {definition.provider!r} provider is not available in this"
            " version of threadlab; use an offline model"
        )

    def _tool_spec(self, tool: ToolDefinition, kind: str = "function") -> ToolSpec:
        # Registered tools are cached per definition object (a redefined tool is a new object
        # and gets a new spec); tools built for one frame are not worth keeping.
        cacheable = self.registry.get(tool.name) is tool
        key = (id(tool), kind)
        cached = self._specs.get(key) if cacheable else None
        if cached is not None and cached[0] is tool:
            return cached[1]
        spec = ToolSpec(
            name=tool.name,
            description=tool.description,
            parameters=tool.args.for_model(tool.progress_argument),
            progress_argument=tool.progress_argument,
            kind=kind,
        )
        if cacheable:
            self._specs[key] = (tool, spec)
        return spec

    def _create_child(
        self, parent: Thread, relationship: Subagent, label: str, agent: AgentDefinition
    ) -> Thread:
        """A child thread for `relationship`, with the env values the relationship gives it.
        Raises MissingVariableError (and creates nothing) when its required variables do not
        resolve."""
        graph = ThreadGraph(self.registry, agent.name)
        meta = {
            "name": label,
            "relationship": relationship.name,
            "description": agent.tool_description,
            "blocking": relationship.blocking,
            "resumable": relationship.resumable,
            "parent_communication": relationship.parent_communication,
            "status": "idle",
        }
        record = ThreadRecord(new_id("thr"), parent.id, agent.name, time.time(), json.dumps(meta))
        with self.store.transaction():
            self.store.add_thread(record)
            env = ThreadEnv(
                self.store,
                self.secrets,
                record.id,
                graph,
                parent._redactor,
                parent._env_required(),
            )
            for name, value in (relationship.env or {}).items():
                env.set(name, value, env.kind(name) if graph.declared(name) else "text")
            missing = env.missing()
            if missing:
                raise MissingVariableError(missing)
        child = Thread(self, record)
        self._threads[record.id] = child
        return child


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
        raise RuntimeError(
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
