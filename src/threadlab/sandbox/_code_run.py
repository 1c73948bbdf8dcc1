"""`CodeRun`: the handle `state.run_code` returns. It drives one sandbox process: sends the
start message, answers bridged calls, collects logs and reports, enforces the wall-clock
limit, and kills the process group when the run ends, times out or is terminated."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
import os
import shutil
import signal
import time
from collections import deque
from collections.abc import Callable, Generator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .._errors import CallContextError
from ._lines import bounded_lines
from ._resident import watch_resident
from ._results import CodeFailure, CodeResult, CodeStatus

__all__ = ["Bridged", "CodeRun", "Launch", "Plan", "Redaction", "on_loop"]

Bridged = Mapping[str, Mapping[str, Callable[..., Any]]]
"""Host functions the code may import: {module specifier: {name: function}}."""

MAX_LINE = 16 << 20  # a protocol line (a result, a report) may be this long, in characters
# What the code can make the host hold or do: reports are kept for the run's whole life, so
# their total is capped; bridged calls run a few at a time, and only so many may wait.
MAX_REPORT_CHARS = 16 << 20
MAX_CALLS_RUNNING = 16
MAX_CALLS_WAITING = 256
MAX_WAITING_CHARS = 16 << 20
MAX_LOG_LINES = 1000
MAX_LOG_CHARS = 64 << 10
STDERR_KEPT = 8 << 10


@dataclass(frozen=True)
class Redaction:
    """How secrets are scrubbed from what leaves the sandbox."""

    text: Callable[[str], str] = lambda text: text
    value: Callable[[Any], Any] = lambda value: value


@dataclass(frozen=True)
class Plan:
    """What to run and how, as the backends receive it (options already checked)."""

    source: str
    imports: Mapping[str, list[str]]  # bridged names by module specifier
    globals: Mapping[str, Any]
    execute: dict[str, Any]  # {"fn": name, "args": [...]}
    timeout: float
    memory_mb: int


@dataclass
class Launch:
    """A sandbox process ready to start: its command, environment and first message."""

    argv: list[str]
    env: dict[str, str]
    cwd: str
    preexec: Callable[[], None]
    start: dict[str, Any]
    workdir: str  # removed when the run ends
    memory_markers: tuple[str, ...] = ()  # stderr text that means the memory cap was hit
    memory_errors: tuple[str, ...] = ()  # error names/messages that mean the same
    memory_signals: tuple[int, ...] = ()
    cpu_signals: tuple[int, ...] = (signal.SIGXCPU, signal.SIGKILL)
    resident_cap: int | None = None
    """Bytes the run's processes may hold resident before it is stopped as over its memory
    cap (None: the rlimits alone bound it)."""


@dataclass
class _Calls:
    """Bridged calls: those running on the host and those waiting for a place."""

    running: set[asyncio.Task[None]] = field(default_factory=set)
    waiting: deque[tuple[dict[str, Any], int]] = field(default_factory=deque)
    waiting_chars: int = 0

    def cancel(self) -> list[asyncio.Task[None]]:
        self.waiting.clear()
        return list(self.running)


@dataclass
class _Logs:
    lines: list[str] = field(default_factory=list)
    chars: int = 0
    dropped: int = 0

    def add(self, text: str) -> bool:
        """Keep `text` if the bounds allow; False when it was dropped."""
        if len(self.lines) >= MAX_LOG_LINES or self.chars + len(text) > MAX_LOG_CHARS:
            self.dropped += 1
            return False
        self.lines.append(text)
        self.chars += len(text)
        return True

    def final(self) -> list[str]:
        if not self.dropped:
            return list(self.lines)
        return [*self.lines, f"... {self.dropped} more lines not kept"]


class CodeRun:
    """A running snippet: await it for its `CodeResult`; `terminate()` ends it at once;
    `reports` lists what it has reported so far.

    Examples:
        Inside a tool::

            run = state.run_code("export default 6 * 7")
            result = await run          # CodeResult(status="success", result=42, ...)
    """

    def __init__(
        self,
        launch: Launch,
        *,
        imports: Bridged,
        timeout: float,
        redaction: Redaction,
        on_log: Callable[[str], None] | None = None,
    ) -> None:
        self.reports: list[Any] = []
        """Values the code has sent with `report(value)` so far."""
        self._launch = launch
        self._imports = imports
        self._timeout = timeout
        self._redaction = redaction
        self._on_log = on_log
        self._logs = _Logs()
        self._terminated = asyncio.Event()
        self._reason: str | None = None
        self._limit: str | None = None  # set when the code went over what the host holds
        self._report_chars = 0
        self._loop = asyncio.get_running_loop()
        self._task: asyncio.Task[CodeResult] = self._loop.create_task(self._run())

    def terminate(self, reason: str | None = None) -> None:
        """End the run now; it resolves with status "terminated". Safe from any thread."""
        if on_loop(self._loop):
            self._terminate(reason)
        else:
            self._loop.call_soon_threadsafe(self._terminate, reason)

    def _terminate(self, reason: str | None) -> None:
        if not self._task.done():
            self._reason = reason
            self._terminated.set()

    def wait(self, timeout: float | None = None) -> CodeResult:
        """Block until the result is in, from a thread other than the run's event loop (a sync
        tool's pooled thread); `await run` is the way on the loop."""
        if on_loop(self._loop):
            raise CallContextError(
                "CodeRun.wait() would block the event loop the run needs; await the run instead"
            )

        async def result() -> CodeResult:
            return await self._task

        return asyncio.run_coroutine_threadsafe(result(), self._loop).result(timeout)

    @property
    def done(self) -> bool:
        """Whether the run has ended."""
        return self._task.done()

    def add_done_callback(self, callback: Callable[[CodeResult], None]) -> None:
        """Call `callback(result)` once the run has ended normally."""

        def relay(task: asyncio.Task[CodeResult]) -> None:
            if not task.cancelled() and task.exception() is None:
                callback(task.result())

        self._task.add_done_callback(relay)

    def __await__(self) -> Generator[Any, None, CodeResult]:
        return self._task.__await__()

    # the run

    async def _run(self) -> CodeResult:
        launch = self._launch
        started = time.perf_counter()
        process: asyncio.subprocess.Process | None = None
        try:
            process = await asyncio.create_subprocess_exec(
                *launch.argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=launch.env,
                cwd=launch.cwd,
                preexec_fn=launch.preexec,
            )
            return await self._supervise(process, started)
        except OSError as exc:
            return self._result(
                "error", started, CodeFailure(name="SandboxError", message=str(exc))
            )
        finally:
            if process is not None:
                await _kill(process)
            shutil.rmtree(launch.workdir, ignore_errors=True)

    async def _supervise(self, process: asyncio.subprocess.Process, started: float) -> CodeResult:
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        stderr: list[bytes] = []
        outcome: dict[str, Any] = {}
        calls = _Calls()
        stdin = process.stdin

        async def pump() -> None:
            assert process.stdout is not None
            async for line in bounded_lines(process.stdout, MAX_LINE):
                self._handle(line, outcome, calls, stdin)
            await process.wait()

        async def drain_stderr() -> None:
            assert process.stderr is not None
            while chunk := await process.stderr.read(1 << 16):
                stderr.append(chunk)
                while sum(map(len, stderr)) > STDERR_KEPT and len(stderr) > 1:
                    stderr.pop(0)

        with contextlib.suppress(ConnectionError):
            stdin.write((json.dumps(self._launch.start) + "\n").encode())
            await stdin.drain()
        pumping = asyncio.ensure_future(pump())
        draining = asyncio.ensure_future(drain_stderr())
        stopping = asyncio.ensure_future(self._terminated.wait())
        cap = self._launch.resident_cap
        watching = asyncio.ensure_future(
            watch_resident(process.pid, cap) if cap is not None else asyncio.Event().wait()
        )
        try:
            finished, _ = await asyncio.wait(
                {pumping, stopping, watching},
                timeout=self._timeout,
                return_when=asyncio.FIRST_COMPLETED,
            )
        finally:
            for task in (pumping, stopping, watching, *calls.cancel()):
                task.cancel()
            await _kill(process)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(draining, 1.0)
        if watching in finished and pumping not in finished:
            held = watching.result() >> 20
            message = f"the code went over its memory cap ({held} MiB resident)"
            return self._result("memory", started, CodeFailure(name="MemoryLimit", message=message))
        if stopping in finished and self._limit is not None:
            return self._result(
                "error", started, CodeFailure(name="LimitExceeded", message=self._limit)
            )
        if stopping in finished:
            message = f"terminated: {self._reason}" if self._reason else "terminated by the caller"
            return self._result(
                "terminated", started, CodeFailure(name="Terminated", message=message)
            )
        if pumping not in finished:
            return self._result(
                "timeout",
                started,
                CodeFailure(
                    name="Timeout", message=f"the code ran past its {self._timeout:g} s limit"
                ),
            )
        return self._verdict(process, outcome, b"".join(stderr).decode(errors="replace"), started)

    def _handle(
        self,
        line: str,
        outcome: dict[str, Any],
        calls: _Calls,
        stdin: asyncio.StreamWriter,
    ) -> None:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if not isinstance(message, dict) or "t" not in message:
            # Anything the code wrote to the channel itself is only output.
            self._log(line)
            return
        kind = message["t"]
        if kind == "log":
            self._log(str(message.get("text", "")))
        elif kind == "report":
            self._report_chars += len(line)
            if self._report_chars > MAX_REPORT_CHARS:
                self._over_limit(f"the code's reports went over {MAX_REPORT_CHARS >> 20} MiB")
                return
            self.reports.append(self._redaction.value(message.get("value")))
        elif kind == "call":
            calls.waiting.append((message, len(line)))
            calls.waiting_chars += len(line)
            if len(calls.waiting) > MAX_CALLS_WAITING or calls.waiting_chars > MAX_WAITING_CHARS:
                self._over_limit(
                    f"the code made more than {MAX_CALLS_WAITING} bridged calls (or"
                    f" {MAX_WAITING_CHARS >> 20} MiB of them) waiting for the"
                    f" {MAX_CALLS_RUNNING} the host runs at once"
                )
                return
            self._start_calls(calls, stdin)
        elif kind == "done" and not outcome:
            outcome.update(message)

    def _start_calls(self, calls: _Calls, stdin: asyncio.StreamWriter) -> None:
        while calls.waiting and len(calls.running) < MAX_CALLS_RUNNING:
            message, chars = calls.waiting.popleft()
            calls.waiting_chars -= chars
            task = asyncio.ensure_future(self._answer(message, stdin))
            calls.running.add(task)
            task.add_done_callback(lambda done: self._call_done(done, calls, stdin))

    def _call_done(
        self, task: asyncio.Task[None], calls: _Calls, stdin: asyncio.StreamWriter
    ) -> None:
        calls.running.discard(task)
        if not self._terminated.is_set():
            self._start_calls(calls, stdin)

    def _over_limit(self, message: str) -> None:
        if not self._terminated.is_set():
            self._limit = message
            self._terminated.set()

    def _log(self, text: str) -> None:
        text = self._redaction.text(text)
        if self._logs.add(text) and self._on_log is not None:
            self._on_log(text)

    async def _answer(self, call: dict[str, Any], stdin: asyncio.StreamWriter) -> None:
        module, name = str(call.get("module")), str(call.get("name"))
        function = self._imports.get(module, {}).get(name)
        reply: dict[str, Any] = {"id": call.get("id")}
        try:
            if function is None:
                raise LookupError(f"no bridged function {name!r} in module {module!r}")
            args = call.get("args") or []
            value = function(*args)
            if inspect.isawaitable(value):
                value = await value
            json.dumps(value)
            reply.update(ok=True, value=value)
        except Exception as exc:  # the sandboxed code sees the failure and may handle it
            reply.update(ok=False, error=self._redaction.text(f"{type(exc).__name__}: {exc}"))
        with contextlib.suppress(ConnectionError):
            stdin.write((json.dumps(reply) + "\n").encode())
            await stdin.drain()

    def _verdict(
        self,
        process: asyncio.subprocess.Process,
        outcome: dict[str, Any],
        stderr: str,
        started: float,
    ) -> CodeResult:
        launch = self._launch
        if outcome.get("ok") is True:
            value = self._redaction.value(outcome.get("value"))
            return self._result("success", started, None, value)
        if outcome:
            raw = outcome.get("error") or {}
            error = CodeFailure(
                name=str(raw.get("name", "Error")),
                message=self._redaction.text(str(raw.get("message", ""))),
                location=raw.get("location"),
            )
            text = f"{error.name}: {error.message}"
            memory = any(marker in text for marker in launch.memory_errors)
            return self._result("memory" if memory else "error", started, error)
        code = process.returncode
        signal_number = -code if code is not None and code < 0 else None
        if signal_number in launch.cpu_signals:
            message = "the code used up its CPU time"
            return self._result("timeout", started, CodeFailure(name="Timeout", message=message))
        if signal_number in launch.memory_signals or any(
            m in stderr for m in launch.memory_markers
        ):
            message = "the code went over its memory cap"
            return self._result("memory", started, CodeFailure(name="MemoryLimit", message=message))
        tail = self._redaction.text(stderr.strip()[-500:])
        message = f"the sandbox process ended (exit status {code}) without a result: {tail}"
        return self._result("error", started, CodeFailure(name="SandboxError", message=message))

    def _result(
        self, status: CodeStatus, started: float, error: CodeFailure | None, value: Any = None
    ) -> CodeResult:
        return CodeResult(
            status=status,
            result=value,
            logs=self._logs.final(),
            reports=list(self.reports),
            error=error,
            duration_ms=(time.perf_counter() - started) * 1000,
        )


def on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether the caller runs on `loop`'s own thread (inside one of its callbacks or tasks)."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:
        return False


async def _kill(process: asyncio.subprocess.Process) -> None:
    """Kill the run's whole process group (it has its own session) and reap the leader."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(ProcessLookupError):
        process.kill()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(process.wait(), 5.0)
    # A pipe whose reader stopped early (a full buffer pauses it), or that a process of the
    # jail still held when the group was killed, is never seen to end, so its transport would
    # never close: close them all here (asyncio has no public way to close a process's pipes).
    transport = getattr(process, "_transport", None)
    if isinstance(transport, asyncio.BaseTransport):
        transport.close()
