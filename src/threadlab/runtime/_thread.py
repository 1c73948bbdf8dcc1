"""`Thread`: a handle on one persisted thread — its history, events, env and files — and the
way to run it (`send`, `stream`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable, Iterable
from typing import TYPE_CHECKING, Any

from .._errors import MissingVariableError, PathError
from ..models._base import Model
from ..store import RunRecord, ThreadRecord
from ._attachments import copy_attachments
from ._env import Kind, ThreadEnv
from ._events import (
    Event,
    FileWrittenEvent,
    MessageCreatedEvent,
    RunFinishedEvent,
    ThreadStatusEvent,
    event_from_json,
)
from ._files import ThreadFiles
from ._graph import ThreadGraph
from ._lease import LIVE_RUNS, heartbeat_task, is_live, new_lease
from ._loop import RunOutcome, TurnLoop
from ._messages import Message, new_id, unfinished_result
from ._paths import normalize_path
from ._redact import Redactor
from ._run import Run
from ._sink import EventSink
from ._subagents import ChildInfo

if TYPE_CHECKING:
    from ._definitions import PromptDefinition
    from ._runtime import Runtime

__all__ = ["Thread"]

_INTERRUPTED = "interrupted: the process running this call ended before it finished"


class Thread:
    """One thread: an instance of an agent (or of a bare prompt) with its own history, events,
    env, filesystem and children. Get one from `Runtime.create_thread` or `Runtime.thread`."""

    def __init__(self, rt: Runtime, record: ThreadRecord, model: Any = None) -> None:
        self._rt = rt
        self._record = record
        self.id = record.id
        self.parent_id = record.parent_id
        self._model_override = model
        self._meta: dict[str, Any] = json.loads(record.metadata or "{}")
        parent = rt.thread(record.parent_id) if record.parent_id else None
        # One redactor per thread tree: a child inherits its parent's secrets.
        self._redactor: Redactor = parent._redactor if parent is not None else Redactor()
        self._sink = EventSink(rt.store, self._redactor, self.id)
        if parent is not None:
            self._sink.upstream = parent._sink.relay
        self.files = ThreadFiles(rt.store, self.id, self._file_written)
        self._history: list[Message] = []
        self._all: list[Message] = []
        self._loaded = False
        self._env: ThreadEnv | None = None
        self._graph: ThreadGraph | None = None
        self._lock = asyncio.Lock()
        self._running = False
        self.path: tuple[str, ...] = self._path()

    def __repr__(self) -> str:
        return f"<Thread {self.id} agent={self.agent!r} status={self.status!r}>"

    # reading

    @property
    def agent(self) -> str:
        """The agent (or bare prompt) this thread was created for."""
        return self._record.target

    @property
    def owner(self) -> str:
        """The agent answering now: the thread's agent, or the one it was handed off to."""
        return str(self._meta.get("owner", self._record.target))

    @property
    def reference(self) -> str:
        """A child's address for its parent (its thread id)."""
        return self.id

    @property
    def name(self) -> str:
        """A child's instance label; a root thread's agent."""
        return str(self._meta.get("name", self._record.target))

    @property
    def description(self) -> str:
        return str(self._meta.get("description", ""))

    @property
    def blocking(self) -> bool:
        return bool(self._meta.get("blocking", True))

    @property
    def resumable(self) -> bool:
        return bool(self._meta.get("resumable", False))

    @property
    def created_at(self) -> float:
        return self._record.created_at

    @property
    def status(self) -> str:
        """ "running" or "idle"; a child reports its lifecycle too: "completed" or "failed"
        after its single session, "terminated" once ended by its parent."""
        if self._running:
            return "running"
        live = [r for r in self._rt.store.running_runs(self.id) if is_live(r)]
        if live:
            return "running"
        if self.parent_id is not None:
            record = self._rt.store.get_thread(self.id)
            if record is not None:
                self._meta = json.loads(record.metadata or "{}")
            return str(self._meta.get("status", "idle"))
        return "idle"

    @property
    def messages(self) -> list[Message]:
        """The top-level conversation (depth 0), as persisted."""
        if not self._running:
            self._reload()
        return list(self._history)

    def all_messages(self) -> list[Message]:
        """Every message in creation order, nested prompt-tool messages included."""
        if not self._running:
            self._reload()
        return list(self._all)

    def find_message(self, message_id: str) -> Message | None:
        """A persisted message by id (recent ones are found first)."""
        for message in reversed(self._all):
            if message.id == message_id:
                return message
        self._reload()
        return next((m for m in self._all if m.id == message_id), None)

    @property
    def events(self) -> list[Event]:
        """Every persisted event of this thread, in order."""
        return [event_from_json(e.type, e.data) for e in self._rt.store.iter_events(self.id)]

    @property
    def children(self) -> list[Thread]:
        """Child threads in creation order, finished ones included."""
        return [self._rt.thread(r.id) for r in self._rt.store.list_children(self.id)]

    # running

    async def send(
        self, message: str, *, attachments: Iterable[str] = (), wait_children: bool = True
    ) -> Run:
        """Send a user message and run until the turn ends.

        Model and provider errors do not raise: they end the run with status "failed".
        Cancelling the awaiting task cancels the run, after persisting an "interrupted" result
        for every unfinished tool call.
        """
        return await self._execute(message, attachments, None, wait_children=wait_children)

    async def stream(
        self, message: str, *, attachments: Iterable[str] = ()
    ) -> AsyncIterator[Event]:
        """The same run as `send`, yielding its events as they happen; the last one is
        `run_finished`. Closing the iterator early cancels the run."""
        queue: asyncio.Queue[Event | None] = asyncio.Queue()
        task = asyncio.ensure_future(self._execute(message, attachments, queue.put_nowait))
        task.add_done_callback(lambda _: queue.put_nowait(None))
        try:
            while (event := await queue.get()) is not None:
                yield event
            run = await task
            if run.status == "queued":
                yield RunFinishedEvent(run_id=run.id, status=run.status, **self._base())
        finally:
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task

    async def _execute(
        self,
        content: str,
        attachments: Iterable[str],
        listener: Callable[[Event], None] | None,
        *,
        wait_children: bool = True,
    ) -> Run:
        paths = tuple(normalize_path(p) for p in attachments)
        for path in paths:
            if self.files.stat_sync(path) is None:
                raise PathError(f"{path} not found in thread {self.id}")
        message = Message(role="user", content=content, attachments=paths)
        async with self._lock:
            store = self._rt.store
            runs = store.running_runs(self.id)
            if any(is_live(r) for r in runs):
                store.enqueue(self.id, message.model_dump_json())
                return Run(new_id("run"), self.id, "queued")
            self._repair(runs)
            self._reload()
            graph = self._graph_now()
            env = self._env_required()
            missing = env.missing()
            if missing:
                raise MissingVariableError(missing)
            run_id = new_id("run")
            loop = TurnLoop(self, graph, run_id, wait_children=wait_children)
            message = await loop.before_user_message(message)
            LIVE_RUNS.add(run_id)
            self._sink.bind_loop()
            unsubscribe = self._sink.subscribe(listener) if listener else None
            beat = asyncio.create_task(heartbeat_task(store, run_id))
            self._running = True
            try:
                # The lease, the running status and the user's message commit together.
                with store.transaction():
                    store.start_run(new_lease(run_id, self.id))
                    if self.parent_id is not None:
                        self._set_child_status("running")
                    self._emit(ThreadStatusEvent(status="running", **self._base()))
                    (message,) = self._persist_now([message])
                try:
                    outcome = await loop.run(message)
                except Exception as exc:  # a definition broke mid-run: the run fails, visibly
                    outcome = RunOutcome(status="failed", error=self._redact(str(exc)))
                except BaseException:
                    interrupted = RunOutcome(status="interrupted", error="interrupted")
                    interrupted.session_status = "failed"
                    self._finish(run_id, interrupted)
                    raise
                return self._finish(run_id, outcome)
            finally:
                self._running = False
                LIVE_RUNS.discard(run_id)
                beat.cancel()
                if unsubscribe is not None:
                    unsubscribe()

    def _finish(self, run_id: str, outcome: RunOutcome) -> Run:
        if self.parent_id is not None:
            if outcome.status == "interrupted":
                self._set_child_status("terminated")
            elif self.resumable:
                self._set_child_status("idle")
            else:
                self._set_child_status(
                    "completed" if outcome.session_status == "completed" else "failed"
                )
        base = self._base()
        self._emit(ThreadStatusEvent(status="idle", **base))
        self._emit(
            RunFinishedEvent(
                run_id=run_id,
                status=outcome.status,
                text=outcome.text,
                error=outcome.error,
                **base,
            )
        )
        store = self._rt.store
        with store.transaction():
            self._sink.persist()
            store.finish_run(run_id, outcome.status, outcome.text, outcome.error, time.time())
        return Run(
            id=run_id,
            thread_id=self.id,
            status=outcome.status,
            text=outcome.text,
            error=outcome.error,
            usage=outcome.usage,
            messages=outcome.messages,
            session_status=outcome.session_status,  # type: ignore[arg-type]
            result=outcome.result,
            attachments=outcome.attachments,
        )

    # internals used by the loop and by ThreadState

    def _path(self) -> tuple[str, ...]:
        path = [self.id]
        parent = self.parent_id
        while parent is not None:
            path.append(parent)
            record = self._rt.store.get_thread(parent)
            parent = record.parent_id if record else None
        return tuple(reversed(path))

    def _base(self) -> dict[str, Any]:
        return {"thread_id": self.id, "thread_path": self.path}

    def _emit(self, event: Event) -> Event:
        return self._sink.emit(event)

    def _redact(self, text: str) -> str:
        return self._redactor.text(text)

    def _reload(self) -> None:
        stored = self._rt.store.list_messages(self.id)
        if self._loaded and len(stored) == len(self._all):
            return
        self._all = [Message.model_validate_json(m.data) for m in stored]
        self._history = [m for m in self._all if m.depth == 0]
        self._loaded = True

    def _graph_now(self) -> ThreadGraph:
        self._graph = ThreadGraph(self._rt.registry, self.owner)
        if self._env is not None:
            self._env.graph = self._graph
        return self._graph

    def _env_required(self) -> ThreadEnv:
        if self._env is None:
            graph = self._graph or self._graph_now()
            parent = self._parent_thread()
            self._env = ThreadEnv(
                self._rt.store,
                self._rt.secrets,
                self.id,
                graph,
                self._redactor,
                parent._env_required() if parent is not None else None,
            )
        return self._env

    def _env_value(
        self, name: str, prompt: PromptDefinition | None, tool: str | None
    ) -> str | None:
        return self._env_required().resolve(name, prompt, tool)

    def _env_kind(self, name: str) -> Kind:
        return self._env_required().kind(name)

    def _set_env(self, name: str, value: str | None, kind: Kind | None) -> None:
        self._env_required().set(name, value, kind)

    def _model_for(self, prompt: PromptDefinition) -> Model:
        chosen = self._model_override if self._model_override is not None else prompt.model
        return self._rt._resolve_model(chosen)

    def _persist_now(
        self, messages: list[Message], base: dict[str, Any] | None = None
    ) -> list[Message]:
        """Redact, announce and persist messages in one transaction, then keep them in memory."""
        stored = [self._redact_message(m) for m in messages]
        for message in stored:
            self._emit(
                MessageCreatedEvent(
                    message_id=message.id, role=message.role, **(base or self._base())
                )
            )
        self._sink.persist(stored)
        for message in stored:
            self._all.append(message)
            if message.depth == 0:
                self._history.append(message)
        return stored

    def _redact_message(self, message: Message) -> Message:
        if not self._redactor:
            return message
        update: dict[str, Any] = {}
        if message.content:
            update["content"] = self._redactor.text(message.content)
        if message.tool_calls:
            update["tool_calls"] = tuple(
                c.model_copy(update={"arguments": self._redactor.value(c.arguments)})
                for c in message.tool_calls
            )
        return message.model_copy(update=update)

    def _inject(self, message: Message) -> Message:
        return self._persist_now([message])[0]

    def _enqueue(self, content: str) -> None:
        self._rt.store.enqueue(self.id, Message(role="user", content=content).model_dump_json())

    def _drain_queue(self) -> list[Message]:
        return [Message.model_validate_json(d) for d in self._rt.store.drain_queue(self.id)]

    def _parent_thread(self) -> Thread | None:
        return self._rt.thread(self.parent_id) if self.parent_id else None

    def _has_queued(self) -> bool:
        return self._rt.store.has_queued(self.id)

    def _set_meta(self, **values: Any) -> None:
        self._meta.update(values)
        self._rt.store.update_thread_metadata(self.id, json.dumps(self._meta))

    def _set_owner(self, agent: str) -> None:
        self._set_meta(owner=agent)

    def _set_child_status(self, status: str) -> None:
        self._set_meta(status=status)

    def _child_info(self) -> ChildInfo:
        return ChildInfo(
            reference=self.id,
            agent=self.agent,
            name=self.name,
            description=self.description,
            blocking=self.blocking,
            resumable=self.resumable,
            status=self.status,  # type: ignore[arg-type]
        )

    def _child_infos(self) -> list[ChildInfo]:
        return [child._child_info() for child in self.children]

    def _deliver(self, content: str, attachments: Iterable[str], subagent_id: str) -> None:
        """Queue a message from a child; the next step of this thread picks it up."""
        message = Message(
            role="user", content=content, attachments=tuple(attachments), subagent_id=subagent_id
        )
        self._rt.store.enqueue(self.id, message.model_dump_json())

    def _notify_parent(self, content: str, attachments: Iterable[str]) -> None:
        parent = self._parent_thread()
        if parent is None:
            raise RuntimeError(f"thread {self.id} has no parent to notify")
        paths = copy_attachments(self, parent, attachments)
        parent._deliver(content, paths, self.id)

    def _file_written(self, path: str, size: int) -> None:
        self._emit(FileWrittenEvent(path=path, size=size, **self._base()))
        if not self._running:
            self._sink.persist()

    def _repair(self, runs: list[RunRecord] | None = None) -> None:
        """Give every tool call of a run whose owner is gone its missing result. Persists only
        those results: it never calls a model or re-runs a tool."""
        store = self._rt.store
        runs = store.running_runs(self.id) if runs is None else runs
        orphaned = [r for r in runs if not is_live(r)]
        if not orphaned:
            return
        self._loaded = False
        self._reload()
        answered = {m.tool_call_id for m in self._all if m.role == "tool"}
        missing = [
            unfinished_result(
                call,
                _INTERRUPTED,
                depth=m.depth,
                parent_id=m.parent_id,
                parent_tool_call_id=m.parent_tool_call_id,
            )
            for m in self._all
            if m.role == "assistant"
            for call in m.tool_calls
            if call.id not in answered
        ]
        with store.transaction():
            if missing:
                self._persist_now(missing)
            for run in orphaned:
                store.finish_run(run.id, "interrupted", None, _INTERRUPTED, time.time())
            if self.parent_id is not None:
                self._set_child_status("idle" if self.resumable else "failed")
