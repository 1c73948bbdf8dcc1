"""Decisions from the notebook: `%threadlab pending`, and `%threadlab approve` / `reject` in a
cell of their own, which record the decision and resume the thread live."""

from __future__ import annotations

import json
import shlex

from IPython.core.error import UsageError

from .. import (
    Thread,
    ThreadlabError,
)
from ._defined import Defined
from ._magics_host import MagicsHost
from ._thread_cells import run_live

__all__ = ["pending", "run_decide_cell", "thread_waiting_on", "waiting_threads"]


def pending(magics: MagicsHost, rest: list[str]) -> Defined:
    if rest:
        raise UsageError("usage: %threadlab pending")
    lines = [
        f"{request.tool_call_id}  {request.name}({json.dumps(request.arguments)})"
        f"  in thread {request.thread_id}"
        for thread in waiting_threads(magics)
        for request in thread.pending
    ]
    return Defined("\n".join(lines) or "no tool call waits for a decision")


def waiting_threads(magics: MagicsHost) -> list[Thread]:
    """Root threads with calls (theirs or their descendants') waiting for a decision."""
    return [t for t in magics.memory.runtime.threads() if t.parent_id is None and t.pending]


def thread_waiting_on(magics: MagicsHost, command: str, call_id: str) -> Thread:
    for thread in waiting_threads(magics):
        if any(r.tool_call_id == call_id for r in thread.pending):
            return thread
    raise UsageError(
        f"%threadlab {command}: no tool call {call_id!r} waits for a decision"
        " (%threadlab pending lists those that do)"
    )


async def run_decide_cell(magics: MagicsHost, line: str) -> None:
    """`%threadlab approve CALL_ID [--arguments JSON]` or `%threadlab reject CALL_ID
    [REASON]`, as a cell of its own: record the decision and resume the thread live."""
    assert magics.shell is not None
    try:
        words = shlex.split(magics.shell.var_expand(line))
    except ValueError as exc:
        raise UsageError(f"%threadlab: {exc}") from None
    usage = "usage: %threadlab approve CALL_ID [--arguments JSON] | reject CALL_ID [REASON]"
    if len(words) < 2 or words[0] not in ("approve", "reject"):
        raise UsageError(usage)
    command, call_id, rest = words[0], words[1], words[2:]
    thread = thread_waiting_on(magics, command, call_id)
    try:
        if command == "reject":
            await thread.reject(call_id, " ".join(rest))
        elif rest[:1] == ["--arguments"] and len(rest) == 2:
            await thread.approve(call_id, arguments=json.loads(rest[1]))
        elif rest:
            raise UsageError(usage)
        else:
            await thread.approve(call_id)
    except (ValueError, ThreadlabError) as exc:  # not JSON, or arguments it refuses
        raise UsageError(f"%threadlab {command}: {exc}") from None
    if thread.pending:
        print(f"decided; thread {thread.id} still waits on {len(thread.pending)} call(s)")
        return
    await run_live(magics, thread, None, keep_live=False)
