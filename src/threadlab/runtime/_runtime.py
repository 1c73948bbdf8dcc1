"""`Runtime`: definitions + a store + limits; creates, reopens and lists threads, and hosts
their runs."""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal

from .._data import Budget, Elicitor, Run, ThreadMeta, new_id
from .._errors import CallContextError, MissingVariableError
from ..definitions import (
    Registry,
    ThreadDefinitions,
    default_registry,
)
from ..execution import Approver, Limits
from ..models import Model
from ..store import Store, ThreadQuery, ThreadRecord, database_role, open_store
from ..threads import SecretBox, missing_in_descendants
from ._engine import Engine
from ._host import RuntimeHost
from ._overview import ThreadOverview, browse, overview
from ._thread import Thread

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
        poll_interval: seconds between looks at the store by a run waiting for children its
            engine runs, for what no notification announced (SQLite cannot notify; a
            PostgreSQL notification sent while nobody listened is lost).
        tracer_provider: an OpenTelemetry `TracerProvider` (extra `threadlab[otel]`): each
            run that ends is sent through it as GenAI spans, without message or argument
            content, and the provider is flushed (see `threadlab.otel`).
        approver: asked before each call that needs a decision (see `tl.Approval`); None:
            such a call pauses its run ("waiting").
        budget: a `tl.Budget` every run keeps to, its descendants' model calls included.
        elicitor: answers an MCP server that asks the user something in the middle of a call,
            and a tool's own `state.elicit` outside a served call (`tl.Elicitation` -> the
            form's values, or None to decline; sync or async); None: servers' questions are
            declined, and `state.elicit` raises `tl.CallContextError`.
        engine: where the runs that leave this process run — `tl.evaluate`'s rows, the
            non-blocking children of its runs, `thread.queue` — `tl.RayEngine(...)`: Ray
            tasks, each opening its thread from this store. None: all of them run here.
        user: the member of a class the threads this runtime creates belong to (see
            `thread.user`); default: JUPYTERHUB_USER, else the database role of a
            PostgreSQL store, else none. On a class's store (`python -m threadlab class
            init`) a member's role reads and writes only its own threads.

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
        poll_interval: float = 1.0,
        tracer_provider: TracerProvider | None = None,
        approver: Approver | None = None,
        budget: Budget | None = None,
        elicitor: Elicitor | None = None,
        engine: Engine | None = None,
        user: str | None = None,
    ) -> None:
        registry = registry if registry is not None else default_registry()
        if user is not None and (not isinstance(user, str) or not user.strip()):
            raise TypeError(f"user must be a member's name or None, got {user!r}")
        if budget is not None and not isinstance(budget, Budget):
            raise TypeError(f"budget must be a tl.Budget or None, got {budget!r}")
        if approver is not None and not callable(approver):
            raise TypeError(
                f"approver must be callable (request) -> bool | tl.Approval, got {approver!r}"
            )
        if elicitor is not None and not callable(elicitor):
            raise TypeError(
                f"elicitor must be callable (tl.Elicitation) -> dict | None, got {elicitor!r}"
            )
        limits = Limits(
            max_consecutive_failures=max_consecutive_failures,
            max_steps=max_steps,
            max_session_turns=max_session_turns,
            hook_timeout=hook_timeout,
            poll_interval=poll_interval,
        )
        opened = open_store(store)
        if engine is not None:
            try:
                engine.check_store(opened)
            except BaseException:
                opened.close()
                raise
        self._host = RuntimeHost(
            registry,
            opened,
            limits,
            SecretBox(secret_key),
            approver,
            budget,
            self.thread,
            elicitor,
            engine,
        )
        self._handles: dict[str, Thread] = {}
        self._user = user or os.environ.get("JUPYTERHUB_USER") or database_role(opened)
        if tracer_provider is not None:
            self.on_run_finished(_live_export(tracer_provider))

    @property
    def user(self) -> str | None:
        """The member the threads this runtime creates belong to (None: no member)."""
        return self._user

    @property
    def registry(self) -> Registry:
        """The definitions this runtime runs."""
        return self._host.registry

    @property
    def store(self) -> Store:
        """Where its threads are persisted."""
        return self._host.store

    @property
    def approver(self) -> Approver | None:
        """Asked before each call whose tool needs a decision; None: such a call pauses the
        run ("waiting") until `thread.approve` / `thread.reject` and `thread.resume()`."""
        return self._host.approver

    @property
    def elicitor(self) -> Elicitor | None:
        """Answers MCP servers' questions to the user, and tools' `state.elicit` (None:
        servers' questions are declined)."""
        return self._host.elicitor

    @property
    def budget(self) -> Budget | None:
        """What each run may spend (None: no limit)."""
        return self._host.budget

    @property
    def engine(self) -> Engine | None:
        """Where runs that leave this process run (None: none leave it)."""
        return self._host.engine

    @property
    def max_consecutive_failures(self) -> int:
        """Failed tool calls in a row that stop a run."""
        return self._host.limits.max_consecutive_failures

    @property
    def max_steps(self) -> int:
        """Model calls per turn, unless a side sets its own."""
        return self._host.limits.max_steps

    @property
    def max_session_turns(self) -> int:
        """The cap of a dual_ai session."""
        return self._host.limits.max_session_turns

    @property
    def hook_timeout(self) -> float:
        """Seconds a hook may take before it is ignored."""
        return self._host.limits.hook_timeout

    @property
    def poll_interval(self) -> float:
        """Seconds between looks at the store for what no notification announced."""
        return self._host.limits.poll_interval

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
        naming every required variable of the agent definitions that does not resolve.
        """
        host = self._host
        await host.prepare_definitions()
        definitions = ThreadDefinitions(self.registry, target)
        if model is not None:
            host.check_model(model)
        meta = ThreadMeta(origin=origin or None)
        record = ThreadRecord(
            new_id("thr"), None, target, time.time(), meta.dumps(), member=self._user
        )
        with self.store.transaction():
            self.store.add_thread(record)
            context = host.new_context(record, None)
            context.adopt_definitions(definitions)
            context.model_override = model
            # The secrets first: a text value given beside them is redacted with them known.
            context.env.set_given(secrets or {}, "secret")
            context.env.set_given(env or {})
            missing = context.env.missing() + missing_in_descendants(
                self.registry, definitions, context.env.resolve
            )
            if missing:
                host.forget(record.id)
                raise MissingVariableError(missing)  # rolls the thread back
        return self.thread(record.id)

    def thread(self, thread_id: str, model: Model | str | None = None) -> Thread:
        """Reopen a persisted thread. A run whose process died is repaired on opening: its
        unfinished calls get "interrupted" results. `model` overrides the model of the
        thread's own prompts (not persisted)."""
        context = self._host.context(thread_id)
        if model is not None:
            context.model_override = model
        handle = self._handles.get(thread_id)
        if handle is None:
            handle = self._handles[thread_id] = Thread(self._host, context)
        return handle

    def check(self, target: str) -> None:
        """`tl.DefinitionError` naming what is missing or wrong when prompt or agent `target`
        could not run on this runtime's definitions (a tool it lists is not defined, say)."""
        self._host.check(target)

    def variable_type(self, target: str, name: str) -> Literal["text", "secret"] | None:
        """How `target`'s definitions declare variable `name` (secret wins when declarations
        disagree); None when none declares it."""
        return ThreadDefinitions(self.registry, target).variable_type(name)

    def overview(self) -> list[ThreadOverview]:
        """Every root thread as a list shows it (status, counts, where it was made), newest
        first, in one query and without opening any: what `%threadlab threads` draws."""
        return overview(self.store, self._host.leases)

    def browse(self, query: ThreadQuery) -> tuple[list[ThreadOverview], ThreadQuery | None]:
        """A page of the threads `query` asks for (`threadlab.store.ThreadQuery`: the words
        their messages hold, their status, their origin, children of a thread), newest first,
        read as `overview()` reads them, with what each ran and spent; and the query of the
        next page, None after the last. What JupyterLab's Threads panel lists.

        Examples:
            >>> import tempfile
            >>> import threadlab as tl
            >>> from threadlab.store import ThreadQuery
            >>> rt = tl.Runtime(tl.Registry(), store=tempfile.mkdtemp())
            >>> rt.browse(ThreadQuery(text="invoice", limit=20))
            ([], None)
            >>> rt.close()
        """
        return browse(self.store, self._host.leases, query)

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

    def close(self) -> None:
        """Release the store, and end the MCP sessions (from a running event loop they end
        as it next runs: `aclose` waits for them)."""
        self._host.close()

    async def aclose(self) -> None:
        """`close`, waiting until every MCP server this runtime started has stopped."""
        await self._host.aclose()

    def on_run_finished(self, listener: Callable[[Thread, Run], None]) -> Callable[[], None]:
        """Call `listener(thread, run)` after each run a thread handle of this runtime
        finished (`send` or `stream`; not a message that was only queued), a cancelled one
        included (status "interrupted", heard before `CancelledError` goes on); returns a
        function that removes it. A listener that raises is logged, never breaks the run."""
        return self._host.on_run_finished(listener)


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
