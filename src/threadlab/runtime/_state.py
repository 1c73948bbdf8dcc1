"""ThreadState: the only view of a thread that tools and hooks get."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ..store import FileRecord
from ._events import CustomEvent
from ._messages import Message

if TYPE_CHECKING:
    from ._subagents import ChildInfo
    from ._thread import Thread

__all__ = ["ExecutionInfo", "SyncState", "ThreadState"]

T = TypeVar("T")


@dataclass(frozen=True)
class ExecutionInfo:
    """What is running now: set while a run executes, else `state.execution` is None."""

    run_id: str
    step: int
    prompt: str
    tool_call_id: str | None = None
    side: Literal["a", "b"] | None = None


class ThreadState:
    """What `execute(state, args)` and hooks receive."""

    def __init__(
        self,
        thread: Thread,
        execution: ExecutionInfo | None = None,
        prompt: Any = None,
        tool_name: str | None = None,
        event_base: dict[str, Any] | None = None,
    ) -> None:
        self._thread = thread
        self._event_base = event_base
        self.execution = execution
        self._prompt = prompt
        self._tool_name = tool_name
        self._loop: asyncio.AbstractEventLoop | None = None
        try:
            self._loop = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None

    @property
    def thread_id(self) -> str:
        return self._thread.id

    @property
    def agent_id(self) -> str:
        return self._thread.agent

    @property
    def parent_id(self) -> str | None:
        return self._thread.parent_id

    @property
    def sync(self) -> SyncState:
        """Blocking versions of the async methods, for sync tools running in a worker thread."""
        return SyncState(self)

    # env
    async def env(self, name: str) -> str | None:
        return self._thread._env_value(name, self._prompt, self._tool_name)

    def env_type(self, name: str) -> Literal["text", "secret"]:
        return self._thread._env_kind(name)

    async def set_env(
        self, name: str, value: str | None, type: Literal["text", "secret"] | None = None
    ) -> None:
        self._thread._set_env(name, value, type)

    # messages
    def get_messages(self) -> list[Message]:
        return self._thread.messages

    async def inject_message(
        self, content: str, *, role: Literal["user", "assistant", "system"] = "user"
    ) -> Message:
        """Add a message to the history without starting execution."""
        return self._thread._inject(Message(role=role, content=content))

    async def queue_message(self, content: str) -> None:
        """Deliver a user message at the start of the thread's next step."""
        self._thread._enqueue(content)

    # files
    async def read_file(self, path: str) -> bytes:
        return self._thread.files.read_sync(path)

    async def write_file(self, path: str, data: str | bytes) -> FileRecord:
        return self._thread.files.write_sync(path, data)

    async def list_files(self, prefix: str = "/") -> list[FileRecord]:
        return self._thread.files.list_sync(prefix)

    # relationships
    @property
    def children(self) -> list[ChildInfo]:
        """This thread's children, in creation order."""
        return self._thread._child_infos()

    def get_child_thread(self, reference: str) -> Thread | None:
        return next((c for c in self._thread.children if c.id == reference), None)

    def get_parent_thread(self) -> Thread | None:
        return self._thread._parent_thread()

    async def notify_parent(self, content: str, attachments: Iterable[str] = ()) -> None:
        """Send the parent a message (its attachments copied into the parent's filesystem); it
        is queued there and handled at the parent's next step."""
        self._thread._notify_parent(content, attachments)

    # events
    def emit(self, event_type: str, data: Any = None) -> None:
        """A custom thread event, delivered live and persisted with the step."""
        tool_call_id = self.execution.tool_call_id if self.execution else None
        base = self._event_base or self._thread._base()
        self._thread._emit(
            CustomEvent(event_type=event_type, data=data, tool_call_id=tool_call_id, **base)
        )


class SyncState:
    """`state.sync`: each method blocks until the async one finishes on the thread's loop."""

    def __init__(self, state: ThreadState) -> None:
        self._state = state

    def _call(self, make: Callable[[], Coroutine[Any, Any, T]]) -> T:
        loop = self._state._loop
        if loop is None:
            raise RuntimeError("state.sync needs the loop the run is executing on")
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            raise RuntimeError(
                "state.sync cannot be used on the event loop's own thread; await the async"
                " method instead"
            )
        return asyncio.run_coroutine_threadsafe(make(), loop).result()

    def env(self, name: str) -> str | None:
        return self._call(lambda: self._state.env(name))

    def set_env(self, name: str, value: str | None, type: Any = None) -> None:
        self._call(lambda: self._state.set_env(name, value, type))

    def read_file(self, path: str) -> bytes:
        return self._call(lambda: self._state.read_file(path))

    def write_file(self, path: str, data: str | bytes) -> FileRecord:
        return self._call(lambda: self._state.write_file(path, data))

    def list_files(self, prefix: str = "/") -> list[FileRecord]:
        return self._call(lambda: self._state.list_files(prefix))

    def inject_message(self, content: str) -> Message:
        return self._call(lambda: self._state.inject_message(content))

    def queue_message(self, content: str) -> None:
        self._call(lambda: self._state.queue_message(content))
