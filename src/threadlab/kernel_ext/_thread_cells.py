"""`%%thread`: the thread a cell runs on (continued, new, or a replay's), the variables it
asks for, and a run shown live in the cell's output."""

from __future__ import annotations

import asyncio
import difflib
import getpass
import os
from typing import Any

from IPython.core.error import UsageError
from IPython.display import display

from .. import (
    DefinitionError,
    MissingVariableError,
    Runtime,
    Thread,
    ThreadNotFoundError,
)
from ..models import ReplayModel
from ..widgets import LiveRun, StaticView
from ._arguments import parse_assignments
from ._busy import KeepBusy
from ._magics_host import MagicsHost

__all__ = [
    "ask_secret",
    "can_ask",
    "check_definitions",
    "own_model",
    "run_live",
    "run_thread_cell",
    "this_notebook",
    "thread_for",
    "thread_named",
]


async def run_thread_cell(magics: MagicsHost, args: Any, cell: str) -> None:
    """`%%thread` with its parsed arguments."""
    if args.id and args.new:
        raise UsageError("%%thread: use --id or --new, not both")
    message = cell.strip()
    if (args.fallback or args.strict) and not args.replay:
        raise UsageError("%%thread: --fallback and --strict go with --replay ID")
    if args.fallback and args.strict:
        raise UsageError("%%thread: --strict replays without a fallback; give one or the other")
    replay: ReplayModel | None = None
    if args.replay:
        if args.id:
            raise UsageError("%%thread: --replay starts a new thread; it cannot take --id")
        recorded = thread_named(magics, "thread --replay", args.replay)
        if not message:  # the recorded conversation's own first message
            message = next((m.content or "" for m in recorded.messages if m.role == "user"), "")
        args.new = True
        # After a fix the conversation changes at the fixed step: the target's own model
        # answers from there, unless --strict asks for the replay to fail instead.
        fallback = None if args.strict else args.fallback or own_model(magics, args.target)
        args.model = replay = ReplayModel(recorded, fallback=fallback)
    if not message:
        raise UsageError("%%thread: the cell is the user message, and it is empty")
    thread = await thread_for(magics, args)
    check_definitions(magics, thread)
    magics.memory.last_thread[args.target] = thread.id
    await run_live(magics, thread, message, keep_live=args.live, step=args.step)
    if replay is not None:
        calls = "model call" if replay.calls_replayed == 1 else "model calls"
        print(
            f"replayed {replay.calls_replayed} {calls} from {args.replay},"
            f" {replay.calls_forwarded} answered by the model"
        )


def own_model(magics: MagicsHost, target: str) -> Any:
    """The model the target's first prompt names (a replay's fallback in a notebook)."""
    registry = magics.memory.runtime.registry
    agent = registry.agent(target)
    prompt = registry.prompt(agent.side_a.prompt if agent is not None else target)
    return prompt.model if prompt is not None else "offline"


async def run_live(
    magics: MagicsHost,
    thread: Thread,
    message: str | None,
    *,
    keep_live: bool,
    step: bool | str = False,
) -> None:
    """Run `thread` (on `message`, or resuming) with a live view in the cell's output."""
    live = LiveRun(magics.memory.runtime, thread, magics.update_rate)
    busy = KeepBusy(getattr(magics.shell, "kernel", None))
    live.view.after_message = busy.touch
    display(live.view)  # under a display id of its own: see refresh_output
    try:
        await live.run(message, step=step)
    except (asyncio.CancelledError, KeyboardInterrupt):
        # A kernel interrupt: the runtime has already given every unfinished call its
        # "interrupted" result (a call still waiting for a decision stays waiting); end
        # the cell quietly with the view state as it stands.
        status = "waiting" if thread.status == "waiting" else "interrupted"
        live.state.ended(status, "interrupted")
        live.view.finishing = True
        live.view.push()
        print(f"run interrupted; thread {thread.id} keeps a valid history")
    finally:
        busy.stop()
        live.view.after_message = None
        waiting = thread.pending
        # The view as the run left it: what the notebook file keeps (threadlab's own
        # output type, static HTML, text) brought up to date, the widget staying
        # interactive while the kernel lives. Frozen: static HTML only. A thread that
        # waits keeps its cards' buttons.
        frozen = magics.freeze_on_finish and not keep_live and not waiting
        live.view.refresh_output(StaticView(thread, live.state) if frozen else None)
    if thread.next_request is not None and thread.status == "waiting":
        live.view.watch_pause()  # a later cell that goes on from the pause redraws it
        print(
            f"thread {thread.id} paused before a model step: Continue or Stop in the view"
            f" (from Python: thread.resume(step={step!r}))"
        )
    for request in waiting:
        print(
            f"{request.name} ({request.tool_call_id}) waits for a decision: decide in its"
            f" card, or %threadlab approve {request.tool_call_id}"
            f" / %threadlab reject {request.tool_call_id} REASON"
        )


def check_definitions(magics: MagicsHost, thread: Thread) -> None:
    """A thread from the store runs on the definitions of this kernel: say what to do when
    they are missing (after a kernel restart, say), instead of failing inside the run."""
    try:
        magics.memory.runtime.check(thread.answering_agent)
    except DefinitionError as exc:
        raise UsageError(
            f"%%thread: thread {thread.id} cannot continue in this kernel: {exc}\n"
            "Definitions live in the kernel, not in the store: re-run the cells that define"
            " them, or `%threadlab import NOTEBOOK.ipynb` to run another notebook's"
            " definition cells."
        ) from None


async def thread_for(magics: MagicsHost, args: Any) -> Thread:
    rt = magics.memory.runtime
    if args.id:
        try:
            return rt.thread(args.id)
        except ThreadNotFoundError as exc:
            raise UsageError(f"%%thread: {exc}") from None
    last = magics.memory.last_thread.get(args.target)
    if last and not args.new:
        return rt.thread(last)
    env = dict(magics.memory.env)
    env.update(parse_assignments(args.env, "--env"))
    secrets = dict(magics.memory.secrets)
    for name in args.secret or []:
        if name not in secrets:
            secrets[name] = ask_secret(magics, name)
    while True:
        try:
            return await rt.create_thread(
                args.target,
                env=env,
                secrets=secrets,
                model=getattr(args, "model", None),
                origin=this_notebook(),
            )
        except DefinitionError as exc:
            raise UsageError(f"%%thread: {exc}") from None
        except MissingVariableError as exc:
            if not can_ask(magics):
                raise UsageError(
                    f"%%thread: {exc}\nSet them with %threadlab set NAME=VALUE,"
                    " %threadlab secret NAME, or --env/--secret."
                ) from None
            for name, _ in exc.missing:
                if _declared_type(rt, args.target, name) == "secret":
                    secrets[name] = ask_secret(magics, name)
                else:
                    # The kernel forwards input() to the front end; the run has not started.
                    env[name] = input(f"{name}: ")  # noqa: ASYNC250


def can_ask(magics: MagicsHost) -> bool:
    kernel = getattr(magics.shell, "kernel", None)
    return bool(getattr(kernel, "_allow_stdin", False))


def ask_secret(magics: MagicsHost, name: str) -> str:
    if not can_ask(magics):
        raise UsageError(f"secret {name} has no value and this kernel cannot ask for it")
    value = getpass.getpass(f"{name} (hidden): ")
    magics.memory.secrets[name] = value
    return value


def thread_named(magics: MagicsHost, command: str, thread_id: str) -> Thread:
    rt = magics.memory.runtime
    try:
        return rt.thread(thread_id)
    except ThreadNotFoundError as exc:
        # An id mistyped or cut short: the closest of the recent threads' ids, if one is.
        recent = [t.id for t in rt.threads()[:_RECENT]]
        close = difflib.get_close_matches(thread_id, recent, n=1, cutoff=0.75)
        hint = f"; did you mean {close[0]}?" if close else ""
        raise UsageError(f"%threadlab {command}: {exc}{hint}") from None


_RECENT = 200  # how many of the newest threads a mistyped id is compared with


def this_notebook() -> str | None:
    """The path of the notebook this kernel runs for, as the Jupyter server gives it to the
    kernels it starts (None in a plain IPython or a kernel started by hand)."""
    return os.environ.get("JPY_SESSION_NAME") or None


def _declared_type(rt: Runtime, target: str, name: str) -> str:
    return rt.variable_type(target, name) or "text"
