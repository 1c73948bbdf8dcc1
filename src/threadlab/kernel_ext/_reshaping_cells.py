"""Reshaping from the notebook: `%threadlab fork` (a branch run live) and `%threadlab diff`."""

from __future__ import annotations

import json
import shlex
from typing import Any

from IPython.core.error import UsageError

from .. import (
    ThreadlabError,
)
from ..widgets import ThreadDiff
from ._magics_host import MagicsHost
from ._thread_cells import check_definitions, run_live, thread_named

__all__ = ["diff", "fork_arguments", "run_fork_cell"]


async def run_fork_cell(magics: MagicsHost, line: str) -> None:
    """`%threadlab fork ID --at MSG_OR_CALL [--result JSON | --arguments JSON |
    --message TEXT] [--live]`, as a cell of its own: fork the thread and run the branch."""
    assert magics.shell is not None
    thread_id, at, options, keep_live = fork_arguments(magics, magics.shell.var_expand(line))
    thread = thread_named(magics, "fork", thread_id)
    try:
        branch = await thread.fork(at, **options)
    except ThreadlabError as exc:
        raise UsageError(f"%threadlab fork: {exc}") from None
    print(f"branch {branch.id} of {thread.id} at {at}")
    check_definitions(magics, branch)
    await run_live(magics, branch, None, keep_live=keep_live)


def fork_arguments(magics: MagicsHost, line: str) -> tuple[str, str, dict[str, Any], bool]:
    usage = (
        "usage: %threadlab fork ID --at MSG_OR_CALL [--result JSON | --arguments JSON |"
        " --message TEXT] [--live]"
    )
    try:
        words = shlex.split(line)
    except ValueError as exc:
        raise UsageError(f"%threadlab fork: {exc}\n{usage}") from None
    keep_live = "--live" in words
    words = [w for w in words if w != "--live"]
    if len(words) < 3 or words[1] != "--at" or len(words) not in (3, 5):
        raise UsageError(usage)
    options: dict[str, Any] = {}
    if len(words) == 5:
        flag, value = words[3], words[4]
        if flag == "--message":
            options["message"] = value
        elif flag in ("--result", "--arguments"):
            try:
                options[flag[2:]] = json.loads(value)
            except ValueError as exc:
                raise UsageError(f"%threadlab fork: {flag} is not JSON ({exc})") from None
        else:
            raise UsageError(usage)
    return words[0], words[2], options, keep_live


def diff(magics: MagicsHost, rest: list[str]) -> ThreadDiff:
    if len(rest) != 2:
        raise UsageError("usage: %threadlab diff THREAD_ID OTHER_THREAD_ID")
    return ThreadDiff(thread_named(magics, "diff", rest[0]), thread_named(magics, "diff", rest[1]))
