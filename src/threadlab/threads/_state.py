"""ThreadState: what a tool's `execute` and a hook receive of their thread: env, messages,
files, relationships, events, and its caller — the person to ask (`elicit`) and the model to
ask (`sample`)."""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Coroutine, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeVar

from .._data import ChildInfo, CustomEvent, EventOrigin, Message, SampledReply, SideName
from .._errors import CallContextError, ThreadlabError
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
from ._asking import FormAnswer, SamplingRequest, form_request, sampling_request
from ._context import ThreadContext
from ._env import VariableType
from ._forms import check_answer
from ._reader import ThreadHandle

__all__ = ["CALLER", "Caller", "ExecutionInfo", "SyncState", "ThreadState"]

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


class Caller(Protocol):
    """Whom a tool's questions go to: the MCP client of a served call, else the runtime (its
    elicitor; the model of the thread's prompt). Each gets the message and form, or the
    request, already checked and redacted."""

    async def elicit(
        self, state: ThreadState, tool: str | None, message: str, schema: dict[str, Any]
    ) -> FormAnswer:
        """Put the form of `tool` (None: a hook) to the person: what they did, and their fields
        when they accepted it. Raises `tl.CallContextError` when there is nobody to ask."""
        ...

    async def sample(
        self, state: ThreadState, tool: str | None, request: SamplingRequest
    ) -> SampledReply:
        """The caller's model's answer (`tl.SamplingError` when it is refused or fails)."""
        ...


CALLER: contextvars.ContextVar[Caller | None] = contextvars.ContextVar(
    "threadlab_caller", default=None
)
"""The caller of the runs started in this context, where it is not their runtime: set by the
MCP endpoint around a served call, so the tools of that call (and of its subagents) ask the
client."""


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
        caller: Caller | None = None,
    ) -> None:
        self._context = context
        # Taken as the call starts, in the run's context: a sync tool asks from a pooled
        # thread, which has none of it.
        self._started_in = contextvars.copy_context()
        self._caller = CALLER.get() or caller
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

    # the caller

    async def elicit(self, message: str, schema: Mapping[str, Any]) -> dict[str, Any] | None:
        """Ask the person who called: a form of `schema`'s fields, with `message`. Returns
        their answer (fields they left out filled with the schema's defaults), or None when
        they declined or cancelled.

        Served over MCP (`tl.mcp.serve`), the form goes to the client that made the call
        (MCP elicitation, form mode); elsewhere to the runtime's `elicitor` (a
        `tl.Elicitation` with `tool` set), in a notebook the form in the call's card. The wait
        counts toward the tool's `timeout`.

        `schema` is what MCP's forms are: ``{"type": "object", "properties": {...},
        "required": [...]}`` of flat fields — strings (`minLength`, `maxLength`, `format`:
        email, uri, date, date-time), numbers and integers (`minimum`, `maximum`), booleans,
        single choices (`enum`, or `oneOf` of `{"const", "title"}`) and several choices
        (`"type": "array"` with `items` `{"type": "string", "enum": [...]}` or `{"anyOf":
        [...]}`), each with an optional `title`, `description` and `default`.

        The message and the schema leave with the thread's secrets redacted, and the answer is
        recorded (an "elicitation" event of the call) redacted too; the tool gets it as given.

        Raises `tl.ElicitationError` for a schema beyond that, before anyone is asked, and
        for an answer that does not fit it; `tl.CallContextError` when nobody can be asked
        (no elicitor, or an MCP client that does not answer forms).

        Examples:
            ::

                answer = await state.elicit(
                    "Which table?",
                    {"type": "object", "properties": {"seats": {"type": "integer"}}},
                )
                if answer is None:
                    return "nothing booked"
        """
        self._check_live()
        caller = self._asked_of("elicit")
        message, form = form_request(message, schema, self._context.known_secrets())
        order = list(form.get("properties", {}))
        self.emit("elicitation_asked", {"tool": self._tool_name, "message": message,
                                        "schema": form, "order": order}, stored=False)  # fmt: skip
        record: dict[str, Any] = {"tool": self._tool_name, "message": message}
        action: str = "decline"  # what is recorded of a form nobody could be asked
        try:
            action, given = await caller.elicit(self, self._tool_name, message, form)
            answer = check_answer(form, given) if action == "accept" else None
        except ThreadlabError as error:  # recorded too: a card's form gives way
            self.emit("elicitation", {**record, "action": action, "refused": str(error)})
            raise
        answered = {"answer": answer} if answer is not None else {}
        self.emit("elicitation", {**record, "action": action, **answered})
        return answer

    async def sample(
        self, messages: str | Sequence[Message], *, max_tokens: int | None = None
    ) -> SampledReply:
        """Ask the caller's model: `messages` (a str is one user message; `tl.Message`s of
        role user and assistant, system messages becoming the system prompt) and the most it
        may write (`max_tokens`, 1024 unless given). Returns a `tl.SampledReply`: its `text`,
        the `model` that wrote it, and where known its `usage` and `cost_usd`.

        Served over MCP, the client's model answers (`sampling/createMessage`); elsewhere the
        model of the thread's prompt (its override, if it has one). Either way the run's
        budget bounds it: refused when the budget is spent, its output limit no more than
        what is left. The thread's model is spent from the run — in its `usage`, `cost_usd`
        and budget —; an MCP client's reports no tokens, so only its output limit is bounded.
        Each answer, or refusal, is a "sampling" event of the call. The messages leave with
        the thread's secrets redacted.

        Raises `tl.SamplingError` when it gets no answer (messages it cannot send, the
        budget, a refusal or a failure of the model or client), and `tl.CallContextError`
        for an MCP client that does not answer sampling requests.

        Examples:
            ``reply = await state.sample("Name a colour.", max_tokens=20)`` gives the text in
            ``reply.text``.
        """
        self._check_live()
        caller = self._asked_of("sample")
        request = sampling_request(messages, max_tokens, self._context.known_secrets())
        try:
            reply = await caller.sample(self, self._tool_name, request)
        except ThreadlabError as error:
            self.emit("sampling", {"tool": self._tool_name, "refused": str(error)})
            raise
        self.emit("sampling", {"tool": self._tool_name, "model": reply.model,
                               "usage": dict(reply.usage) if reply.usage else None,
                               "cost_usd": reply.cost_usd, "text": reply.text})  # fmt: skip
        return reply

    def _asked_of(self, what: str) -> Caller:
        if self._caller is None:
            raise CallContextError(
                f"state.{what} has nobody to ask here: it asks the caller of a tool that a run"
                " calls (give the runtime an elicitor= for forms, or serve the tool with"
                " tl.mcp.serve)"
            )
        return self._caller

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

    def elicit(self, message: str, schema: Mapping[str, Any]) -> dict[str, Any] | None:
        """Blocking `state.elicit`."""
        return self._asked(lambda: self._state.elicit(message, schema))

    def sample(
        self, messages: str | Sequence[Message], *, max_tokens: int | None = None
    ) -> SampledReply:
        """Blocking `state.sample`."""
        return self._asked(lambda: self._state.sample(messages, max_tokens=max_tokens))

    def _asked(self, make: Callable[[], Coroutine[Any, Any, T]]) -> T:
        # In the context the call started in: the run's spending and the served call's client
        # are read from it.
        return self._state._started_in.copy().run(self._call, make)
