"""The Python side of state.run_code: runs as a fresh interpreter inside a bubblewrap jail.

It speaks JSON lines with the host on its stdin and stdout: a start message first, then
replies to bridged calls; it sends logs, reports, calls and one `done`. The code's own prints
become log lines: the real stdout is the host's channel.
"""

from __future__ import annotations

import asyncio
import io
import json
import os
import sys
import threading
import traceback
import types
from collections.abc import Awaitable, Callable
from typing import Any

_channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
_lock = threading.Lock()


def _send(message: dict[str, Any]) -> None:
    line = json.dumps(message)
    with _lock:
        _channel.write(line + "\n")
        _channel.flush()


class _LogStream(io.TextIOBase):
    def __init__(self, level: str) -> None:
        self._level = level
        self._buffer = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._buffer += text
        while "\n" in self._buffer:
            line, self._buffer = self._buffer.split("\n", 1)
            _send({"t": "log", "level": self._level, "text": line})
        return len(text)

    def flush(self) -> None:
        if self._buffer:
            _send({"t": "log", "level": self._level, "text": self._buffer})
            self._buffer = ""


def _describe(error: BaseException) -> dict[str, Any]:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == "<code>"]
    location = f"line {frames[-1].lineno}" if frames else None
    if isinstance(error, SyntaxError) and error.filename == "<code>":
        location = f"line {error.lineno}, column {error.offset}"
    return {"name": type(error).__name__, "message": str(error), "location": location}


async def _main() -> None:
    loop = asyncio.get_running_loop()
    start = json.loads(sys.stdin.readline())
    pending: dict[int, asyncio.Future[Any]] = {}
    counter = [0]

    def read_replies() -> None:
        for line in sys.stdin:
            reply = json.loads(line)
            future = pending.pop(reply["id"], None)
            if future is not None:
                loop.call_soon_threadsafe(_settle, future, reply)

    threading.Thread(target=read_replies, daemon=True).start()

    def bridged(module: str, name: str) -> Callable[..., Awaitable[Any]]:
        async def call(*args: Any) -> Any:
            counter[0] += 1
            future = loop.create_future()
            pending[counter[0]] = future
            _send({"t": "call", "id": counter[0], "module": module, "name": name, "args": args})
            return await future

        call.__name__ = name
        return call

    for module, names in start["imports"].items():
        bridge = types.ModuleType(module)
        for name in names:
            setattr(bridge, name, bridged(module, name))
        sys.modules[module] = bridge
    namespace: dict[str, Any] = {"__name__": "__sandbox__", "report": _report}
    namespace.update(start["globals"])
    sys.stdout = _LogStream("log")
    sys.stderr = _LogStream("error")
    try:
        exec(compile(start["source"], "<code>", "exec"), namespace)
        execute = start["execute"]
        target = namespace.get(execute["fn"])
        if target is None:
            raise NameError(f"the code defines no {execute['fn']!r}")
        value = target(*execute["args"]) if callable(target) else target
        if asyncio.iscoroutine(value):
            value = await value
        try:
            encoded = json.dumps(value)
        except (TypeError, ValueError) as error:
            raise TypeError(f"the result is not JSON-serialisable: {error}") from None
        sys.stdout.flush()
        sys.stderr.flush()
        with _lock:
            _channel.write('{"t": "done", "ok": true, "value": ' + encoded + "}\n")
            _channel.flush()
    except BaseException as error:  # the code's failure is the run's result
        sys.stdout.flush()
        sys.stderr.flush()
        _send({"t": "done", "ok": False, "error": _describe(error)})


def _report(value: Any) -> None:
    _send({"t": "report", "value": value})


def _settle(future: asyncio.Future[Any], reply: dict[str, Any]) -> None:
    if future.done():
        return
    if reply.get("ok"):
        future.set_result(reply.get("value"))
    else:
        future.set_exception(RuntimeError(reply.get("error")))


asyncio.run(_main())
os._exit(0)
