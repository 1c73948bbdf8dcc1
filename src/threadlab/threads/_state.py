"""ThreadState: what a tool's `execute` and a hook receive of their thread: env, messages,
files, relationships and events."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from .._data import ChildInfo, CustomEvent, EventOrigin, Message, SideName
from .._errors import CallContextError
from ..definitions import PromptDefinition
from ..sandbox import (
    Bridged,
    CodeResult,
    CodeRun,
    Language,
    Redaction,
    on_loop,
    start_code_run,
)
from ..store import FileRecord
from ._context import ThreadContext
from ._env import VariableType
from ._reader import ThreadHandle

__all__ = ["ExecutionInfo", "SyncState", "ThreadState"]

T = TypeVar("T")


@dataclass(frozen=True)
class ExecutionInfo:
    """What is running now: set while a run executes, else `state.execution` is None."""

    run_id: str
    """The run."""
    step: int
    """Model calls made so far in the turn (nested prompt-tool turns count)."""
    prompt: str
    """The prompt whose tools are running."""
    tool_call_id: str | None = None
    """The call being executed; None in hooks that run outside a call."""
    side: SideName | None = None
    """In a dual_ai thread, the side whose turn it is."""


class ThreadState:
    """What `execute(state, args)` and hooks receive: one thread's env, messages, files,
    relationships and events.

    Examples:
        A tool that reads a variable and writes a file::

            async def save(state: tl.ThreadState, text: str) -> str:
                region = await state.env("REGION")
                await state.write_file("/out/note.txt", f"{region}: {text}")
                state.emit("saved", {"chars": len(text)})
                return "saved"
    """

    def __init__(
        self,
        context: ThreadContext,
        execution: ExecutionInfo | None = None,
        prompt: PromptDefinition | None = None,
        tool_name: str | None = None,
        event_base: EventOrigin | None = None,
    ) -> None:
        self._context = context
        self._event_base = event_base
        self.execution = execution
        """Step information while a run executes, else None."""
        self._prompt = prompt
        self._tool_name = tool_name
        self._abandoned = False
        try:
            self._loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self._loop = None

    def abandon(self) -> None:
        """The call this state serves has ended without it (timed out or cancelled): from
        now on its writes to the thread are refused, so nothing lands after its result."""
        self._abandoned = True

    def _check_live(self) -> None:
        if self._abandoned:
            raise CallContextError(
                "this tool call was abandoned (it timed out or its run was cancelled); what it"
                " writes now would land after its result, so it is refused"
            )

    @property
    def thread_id(self) -> str:
        """The thread's id."""
        return self._context.id

    @property
    def agent_id(self) -> str:
        """The agent (or bare prompt) the thread was created for."""
        return self._context.identity.agent

    @property
    def parent_id(self) -> str | None:
        """The parent thread's id; None for a root thread."""
        return self._context.parent_id

    @property
    def sync(self) -> SyncState:
        """Blocking versions of the async methods, for sync tools running in a pooled thread."""
        return SyncState(self, self._loop)

    # env

    async def env(self, name: str) -> str | None:
        """The value of `name` as this tool sees it (secrets too: tools may use them)."""
        return self._context.env.resolve(name, self._prompt, self._tool_name)

    def env_type(self, name: str) -> Literal["text", "secret"]:
        """The type of `name`: declared, or as set; an unknown name counts as secret."""
        return self._context.env.type_of(name)

    async def set_env(self, name: str, value: str | None, type: VariableType | None = None) -> None:
        """Give the thread its own value of `name` (None: no value); its descendants inherit
        it unless they declare the name scoped. `type` defaults to the declared one."""
        self._check_live()
        self._context.env.set(name, value, type)

    # messages

    def get_messages(self) -> list[Message]:
        """The persisted top-level history, including results persisted earlier in this step."""
        return self._context.history.messages()

    async def inject_message(
        self, content: str, *, role: Literal["user", "assistant", "system"] = "user"
    ) -> Message:
        """Add a message to the history without starting execution."""
        self._check_live()
        return self._context.persist([Message(role=role, content=content)])[0]

    async def queue_message(self, content: str) -> None:
        """Deliver a user message at the start of the thread's next step."""
        self._check_live()
        context = self._context
        with context.transaction():
            context.leases.check(context.id)  # a run taken over queues nothing for the next
            context.inbox.put(Message(role="user", content=content))

    # files

    async def read_file(self, path: str) -> bytes:
        """The bytes of a file of this thread (`tl.PathError` if there is none)."""
        return self._context.files.read_sync(path)

    async def write_file(self, path: str, data: str | bytes) -> FileRecord:
        """Write a file of this thread (str is stored as UTF-8)."""
        self._check_live()
        return self._context.files.write_sync(path, data)

    async def list_files(self, prefix: str = "/") -> list[FileRecord]:
        """The files under `prefix`, by path."""
        return self._context.files.list_sync(prefix)

    # relationships

    @property
    def children(self) -> list[ChildInfo]:
        """This thread's children, in creation order."""
        return self._context.child_infos()

    def get_child_thread(self, reference: str) -> ThreadHandle | None:
        """The child thread with that reference, or None if it is not this thread's child."""
        if not any(child.id == reference for child in self._context.children()):
            return None
        return self._context.directory.handle(reference)

    def get_parent_thread(self) -> ThreadHandle | None:
        """The parent thread, or None for a root thread."""
        parent_id = self._context.parent_id
        return self._context.directory.handle(parent_id) if parent_id is not None else None

    async def notify_parent(self, content: str, attachments: Iterable[str] = ()) -> None:
        """Send the parent a message (its attachments copied into the parent's filesystem); it
        is queued there and handled at the parent's next step."""
        self._check_live()
        self._context.notify_parent(content, attachments)

    # code

    def run_code(
        self,
        source: str,
        *,
        language: Language = "typescript",
        imports: Bridged | None = None,
        globals: dict[str, Any] | None = None,
        execute: str | dict[str, Any] | None = None,
        timeout: float = 30.0,
        memory_mb: int = 256,
    ) -> CodeRun:
        """Run model- or user-written code in a fresh sandbox and return its handle at once.

        JavaScript and TypeScript run as an ES module in Deno with no permissions (the default
        export is the result, or the export `execute` names, called with its args); Python runs
        in a bubblewrap jail (a function `main`, or the one `execute` names). `imports` bridges
        host functions in (`{"host": {"lookup": fn}}`: `import { lookup } from "host"` /
        `from host import lookup`, awaited in the sandbox) — the only way out; `globals` are
        JSON values the code sees as free names; `report(value)` is always available.
        Logs, reports, results and errors have the thread's secrets redacted. While a tool
        call runs it, its log lines and its verdict appear in the call's card as `code_log`
        and `code_result` events.

        Raises `tl.CodeOptionError` for unusable options and `tl.SandboxUnavailableError`
        where the language's isolation is missing; it never runs code unsandboxed.

        Examples:
            ``result = await state.run_code("export default 6 * 7")`` gives
            ``result.status == "success"`` and ``result.result == 42``.
        """
        self._check_live()
        options: dict[str, Any] = {
            "language": language,
            "imports": imports,
            "globals": globals,
            "execute": execute,
            "timeout": timeout,
            "memory_mb": memory_mb,
        }
        if self._loop is not None and not on_loop(self._loop):
            # A sync tool in its pooled thread: the run starts on the thread's event loop, and
            # the handle comes back at once (its terminate() and wait() work from here).
            async def start() -> CodeRun:
                return self.run_code(source, **options)

            return asyncio.run_coroutine_threadsafe(start(), self._loop).result()
        logged = [0]

        def on_log(line: str) -> None:
            logged[0] += 1
            if logged[0] <= _LOG_EVENTS:
                self.emit("code_log", {"text": line[:_LOG_EVENT_CHARS]})

        redactor = self._context.redactor
        run = start_code_run(
            source,
            **options,
            redaction=Redaction(text=redactor.text, value=redactor.value),
            on_log=on_log,
        )

        def verdict(result: CodeResult) -> None:
            data: dict[str, Any] = {
                "status": result.status,
                "duration_ms": round(result.duration_ms, 1),
                "verdict": _VERDICTS[result.status],
            }
            if result.error is not None:
                data["error"] = result.error.message
            if logged[0] > _LOG_EVENTS:
                data["logs_not_shown"] = logged[0] - _LOG_EVENTS
            self.emit("code_result", data)

        run.add_done_callback(verdict)
        return run

    # events

    def emit(self, event_type: str, data: Any = None, *, stored: bool = True) -> None:
        """A custom thread event, delivered live and persisted with the step. `stored=False`:
        delivered live only (a progress tick that the next one replaces)."""
        self._check_live()
        tool_call_id = self.execution.tool_call_id if self.execution else None
        base = self._event_base or self._context.base()
        self._context.events.emit(
            CustomEvent(event_type=event_type, data=data, tool_call_id=tool_call_id, **base),
            stored=stored,
        )


_LOG_EVENTS = 50  # code_log events per run (its result keeps every line it logged)
_LOG_EVENT_CHARS = 500
_VERDICTS = {
    "success": "the code ran and returned a result",
    "error": "the code raised an error",
    "timeout": "the code ran past its time limit and was stopped",
    "terminated": "the run was terminated",
    "memory": "the code went over its memory cap and was stopped",
}


class SyncState:
    """`state.sync`: each method blocks until the async one finishes on the thread's loop."""

    def __init__(self, state: ThreadState, loop: asyncio.AbstractEventLoop | None) -> None:
        self._state = state
        self._loop = loop  # the loop the run executes on (None outside a run)

    def _call(self, make: Callable[[], Coroutine[Any, Any, T]]) -> T:
        loop = self._loop
        if loop is None:
            raise CallContextError("state.sync needs the loop the run is executing on")
        if on_loop(loop):
            raise CallContextError(
                "state.sync cannot be used on the event loop's own thread; await the async"
                " method instead"
            )
        return asyncio.run_coroutine_threadsafe(make(), loop).result()

    def env(self, name: str) -> str | None:
        """Blocking `state.env`."""
        return self._call(lambda: self._state.env(name))

    def set_env(self, name: str, value: str | None, type: VariableType | None = None) -> None:
        """Blocking `state.set_env`."""
        self._call(lambda: self._state.set_env(name, value, type))

    def read_file(self, path: str) -> bytes:
        """Blocking `state.read_file`."""
        return self._call(lambda: self._state.read_file(path))

    def write_file(self, path: str, data: str | bytes) -> FileRecord:
        """Blocking `state.write_file`."""
        return self._call(lambda: self._state.write_file(path, data))

    def list_files(self, prefix: str = "/") -> list[FileRecord]:
        """Blocking `state.list_files`."""
        return self._call(lambda: self._state.list_files(prefix))

    def inject_message(self, content: str) -> Message:
        """Blocking `state.inject_message`."""
        return self._call(lambda: self._state.inject_message(content))

    def queue_message(self, content: str) -> None:
        """Blocking `state.queue_message`."""
        self._call(lambda: self._state.queue_message(content))

    def run_code(self, source: str, **options: Any) -> CodeResult:
        """`state.run_code`, waited for: the `CodeResult` (same options)."""
        return self._state.run_code(source, **options).wait()
