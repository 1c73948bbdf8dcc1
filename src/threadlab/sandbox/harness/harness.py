"""The Python side of state.run_code: runs as a fresh interpreter inside a bubblewrap jail.

It speaks JSON lines with the host on its stdin and stdout: a start message first, then
replies to bridged calls; it sends logs, reports, calls and one `done`. The code's own prints
become log lines: the real stdout is the host's channel.

Start-up time matters (one interpreter per run), so nothing heavy is imported up front: a
bridged call blocks until the host answers, which lets a coroutine that only awaits bridged
calls run without an event loop; code that imports asyncio gets `asyncio.run`.
"""

from __future__ import annotations

import io
import json
import os
import sys
from collections.abc import Callable, Generator
from typing import Any

_channel: io.TextIOWrapper = sys.__stdout__  # type: ignore[assignment]  # the real stdout
_replies = sys.stdin
_calls = [0]


def _send(message: dict[str, Any]) -> None:
    _channel.write(json.dumps(message) + "\n")
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


class _BridgedCall:
    """Awaiting it asks the host and waits for the answer, under any event loop or none."""

    def __init__(self, module: str, name: str, args: tuple[Any, ...]) -> None:
        self._message = {"module": module, "name": name, "args": list(args)}

    def __await__(self) -> Generator[Any, None, Any]:
        _calls[0] += 1
        _send({"t": "call", "id": _calls[0], **self._message})
        while True:
            reply = json.loads(_replies.readline() or "null")
            if reply is None:
                raise RuntimeError("the host went away")
            if reply.get("id") == _calls[0]:
                break
        if not reply.get("ok"):
            raise RuntimeError(reply.get("error"))
        return reply.get("value")
        yield  # a generator, so that `await` accepts it


def _bridged(module: str, name: str) -> Callable[..., _BridgedCall]:
    def call(*args: Any) -> _BridgedCall:
        return _BridgedCall(module, name, args)

    call.__name__ = name
    return call


def _report(value: Any) -> None:
    _send({"t": "report", "value": value})


def _describe(error: BaseException) -> dict[str, Any]:
    import traceback  # only on failure: it is slow to import

    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == "<code>"]
    location = f"line {frames[-1].lineno}" if frames else None
    if isinstance(error, SyntaxError) and error.filename == "<code>":
        location = f"line {error.lineno}, column {error.offset}"
    return {"name": type(error).__name__, "message": str(error), "location": location}


def _complete(value: Any) -> Any:
    """The value of a coroutine: driven here when it awaits only bridged calls."""
    if "asyncio" in sys.modules:
        return sys.modules["asyncio"].run(_await(value))
    try:
        yielded = value.send(None)
    except StopIteration as stop:
        return stop.value
    value.close()
    raise RuntimeError(
        f"the code awaits {yielded!r}, which needs an event loop: import asyncio in the code"
    )


async def _await(value: Any) -> Any:
    return await value


def _main() -> None:
    global _channel
    _channel = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    start = json.loads(_replies.readline())
    module_type = type(sys)
    for module, names in start["imports"].items():
        bridge = module_type(module)
        for name in names:
            setattr(bridge, name, _bridged(module, name))
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
        if hasattr(value, "__await__") and hasattr(value, "send"):
            value = _complete(value)
        try:
            encoded = json.dumps(value)
        except (TypeError, ValueError) as error:
            raise TypeError(f"the result is not JSON-serialisable: {error}") from None
        sys.stdout.flush()
        sys.stderr.flush()
        _channel.write('{"t": "done", "ok": true, "value": ' + encoded + "}\n")
        _channel.flush()
    except BaseException as error:  # the code's failure is the run's result
        sys.stdout.flush()
        sys.stderr.flush()
        _send({"t": "done", "ok": False, "error": _describe(error)})


if __name__ == "__main__":
    _main()
    os._exit(0)
