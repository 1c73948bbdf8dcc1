"""The threadlab magics: define tools, prompts and agents in cells; run threads inline.

They call the same public API a script would (`tl.tool`, `tl.define_prompt`, ...), with the
process-wide default registry and the kernel's Runtime. This class holds the magics' names,
arguments and settings; what each does is in its topic's module: definitions
(`_definition_cells`), running (`_thread_cells`), reshaping (`_reshaping_cells`), decisions
(`_approval_cells`), evaluation (`_eval_cells`), MCP (`_mcp_cells`), the store and settings
(`_store_commands`).
"""

from __future__ import annotations

import asyncio
import importlib
import shlex
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NoReturn

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from traitlets import Bool, Float, Unicode, observe

from .. import ThreadlabError
from ._memory import KernelMemory
from ._misspelt import suggestion

if TYPE_CHECKING:
    from .. import mcp
    from ._defined import Defined

# What each magic does is imported when it first runs: `%load_ext threadlab` loads only this
# class, and a notebook that never evaluates or serves never imports those parts.

__all__ = ["ThreadlabMagics"]

_THREADLAB_USAGE = """%threadlab threads [--all | --here | --notebook PATH] | open ID | secret NAME
           | set NAME=VALUE | unset NAME | import NOTEBOOK | export ID PATH | tools | models
           | trace PROVIDER | trace off | diff ID OTHER_ID | pending | graph [TARGET] | play ID
           | grade ID CHECK [CHECK ...] | class [EXERCISE] [CHECK ...] | share ID PATH
           | approve CALL_ID [--arguments JSON] | reject CALL_ID [REASON]
           | fork ID --at MSG_OR_CALL [--result JSON | --arguments JSON | --message TEXT]
           | mcp serve [--port N] [--host H] [--tools A,B] [--no-token] | mcp stop | mcp status"""


@magics_class
class ThreadlabMagics(Magics):
    """`%%tool`, `%%prompt`, `%%agent`, `%%thread` and `%threadlab`."""

    default_model = Unicode(
        "offline", help="The model %%prompt uses when no --model is given."
    ).tag(config=True)
    update_rate = Float(15.0, help="Most view updates sent per second during a run.").tag(
        config=True
    )
    freeze_on_finish = Bool(
        False,
        help="Replace the view with static HTML when a run ends (it stays interactive"
        " otherwise, and reads the same from the saved notebook).",
    ).tag(config=True)
    store = Unicode(
        ".threadlab", help="The thread store: a directory (SQLite) or a postgresql:// URL."
    ).tag(config=True)

    engine = Unicode(
        "",
        help="Where runs that leave this kernel run (evaluation rows, non-blocking children):"
        ' "" (none leave it), "ray" (a local Ray started by this kernel, or the one already'
        ' running), or a Ray address ("auto", "ray://host:10001"; a PostgreSQL store).',
    ).tag(config=True)

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self.mcp_service: mcp.MCPService | None = None
        """What `%threadlab mcp serve` serves now."""
        self.memory = KernelMemory(store=self.store, engine=self.engine)

    @observe("store")
    def _store_changed(self, change: Any) -> None:
        # `%config ThreadlabMagics.store = ...` after loading: the next thread uses it.
        self.memory.use_store(change["new"])

    @observe("engine")
    def _engine_changed(self, change: Any) -> None:
        self.memory.use_engine(change["new"])

    # definitions

    @magic_arguments()
    @argument("--name", help="Tool name (default: the function's name).")
    @argument("--progress", help="The argument whose value describes the call in progress.")
    @argument(
        "--variable",
        action="append",
        help="A variable the tool declares: NAME[:secret][:required][:scoped]. Repeatable.",
    )
    @argument("--timeout", type=float, help="Seconds before the call times out.")
    @argument(
        "--approval",
        choices=["always"],
        help="Each call waits for a decision before it runs (Approve / Edit / Reject).",
    )
    @cell_magic
    def tool(self, line: str, cell: str) -> Defined:
        """Define a tool from the one function in the cell.

        The cell holds exactly one `def` or `async def` (imports and constants may come with
        it). Its first parameter receives the thread state (`tl.ThreadState`), whatever its
        name; every other parameter is an argument the model fills, typed by its annotation
        (pydantic types work) and described by the docstring's Args section (Google or NumPy
        style); the docstring's first paragraph is the tool's description. Return a str, any
        JSON value, or `tl.ToolResult`. The cell shows the tool as the model will see it.
        """
        from ._definition_cells import tool_cell

        return tool_cell(self, parse_argstring(self.tool, line), cell)

    @magic_arguments()
    @argument("name", help="Prompt name.")
    @argument("--model", help="Model name (default: ThreadlabMagics.default_model).")
    @argument("--tools", help="Comma-separated tool, prompt or agent names.")
    @argument("--expose-as-tool", action="store_true", help="Make the prompt callable as a tool.")
    @argument("--description", help="The description a caller sees when it is a tool.")
    @argument("--include-chat", action="store_true", help="See earlier turns' messages.")
    @argument("--include-past-tools", action="store_true", help="See earlier tool calls.")
    @argument("--parallel-tool-calls", action="store_true", help="Allow several calls a step.")
    @argument("--hooks", help="Comma-separated hook ids.")
    @argument("--variable", action="append", help="NAME[:secret][:required][:scoped].")
    @argument("--approval", choices=["always"], help="As a tool, each call waits for a decision.")
    @cell_magic
    def prompt(self, line: str, cell: str) -> Defined:
        """Define a prompt; the cell is its system prompt ({{env:NAME}}, {{include:other}})."""
        from ._definition_cells import prompt_cell

        return prompt_cell(self, parse_argstring(self.prompt, line), cell)

    @magic_arguments()
    @argument("name", help="Agent name.")
    @argument("--expose-as-tool", action="store_true", help="Make the agent callable as a tool.")
    @argument("--description", help="The description a caller sees when it is a tool.")
    @cell_magic
    def agent(self, line: str, cell: str) -> Defined:
        """Define an agent from TOML whose keys are define_agent's keyword names."""
        from ._definition_cells import agent_cell

        return agent_cell(self, parse_argstring(self.agent, line), cell)

    @magic_arguments()
    @argument("name", help="The server's name (a prompt lists its tools as mcp:NAME).")
    @cell_magic
    def mcp(self, line: str, cell: str) -> Defined:
        """Define an MCP server from TOML whose keys are define_mcp_server's keyword names
        (command and args, or url and headers; tools, prefix, env, timeout, approval)."""
        from ._definition_cells import mcp_server_cell

        return mcp_server_cell(self, parse_argstring(self.mcp, line), cell)

    @magic_arguments()
    @argument("target", help="The agent or prompt to evaluate.")
    @argument("--models", help="Comma-separated model names (default: the target's own).")
    @argument("--repeat", type=int, default=1, help="Runs of each case with each model.")
    @argument("--concurrency", type=int, default=4, help="Runs at a time.")
    @argument("--name", help="The evaluation's name (its threads' origin is eval:NAME).")
    @argument("--called", action="append", help="Score: the run called this tool. Repeatable.")
    @argument("--not-called", action="append", help="Score: the run never called this tool.")
    @argument("--contains", action="append", help="Score: the answer contains this text.")
    @argument("--scorer", action="append", help="A scorer the notebook defines, by name.")
    @cell_magic
    def eval(self, line: str, cell: str) -> None:
        """Evaluate the target on the cell's cases: a message per line (`message =>
        expected` scores whether the answer contains `expected`), into a live table."""
        raise UsageError("%%eval: run it as a cell of its own (it is awaited on the kernel loop)")

    @magic_arguments()
    @argument("target", help="The agent or prompt to run.")
    @argument("--id", help="Continue this thread.")
    @argument("--new", action="store_true", help="Start a new thread.")
    @argument("--env", action="append", help="NAME=VALUE for a new thread. Repeatable.")
    @argument("--secret", action="append", help="A secret to ask for (hidden). Repeatable.")
    @argument("--live", action="store_true", help="Keep the live view when the run ends.")
    @argument("--replay", help="Run a new thread on this thread's recorded model answers.")
    @argument(
        "--fallback",
        help="With --replay: the model once the conversation differs (default: the target's).",
    )
    @argument("--strict", action="store_true", help="With --replay: fail where it differs.")
    @argument(
        "--step",
        nargs="?",
        const="tools",
        default=False,
        choices=("tools", "model", "all"),
        help="Pause before every tool call (tools, the default), before every model step"
        " (model: Continue / Stop in the view), or both (all).",
    )
    @cell_magic
    def thread(self, line: str, cell: str) -> None:
        """Run the cell's text as a user message. (Cells are run with top-level await.)"""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.thread_cell(line, cell))
        raise UsageError("%%thread: run it as a cell of its own (it is awaited on the kernel loop)")

    @line_magic
    def threadlab(self, line: str) -> Any:
        """%threadlab threads [--all | --here | --notebook PATH] | open ID | secret NAME |
        set NAME=VALUE | unset NAME | import NOTEBOOK | export ID PATH | tools | models |
        trace PROVIDER | trace off | diff ID OTHER_ID | grade ID CHECK... | fork ID --at
        MSG_OR_CALL [--result JSON | --arguments JSON | --message TEXT] | pending | approve
        CALL_ID [--arguments JSON] | reject CALL_ID [REASON] (fork, approve and reject: a cell
        of their own)"""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise UsageError(f"%threadlab: {exc}\nusage: {_THREADLAB_USAGE}") from None
        if not words:
            raise UsageError(f"usage: {_THREADLAB_USAGE}")
        command, rest = words[0], words[1:]
        handler = _COMMANDS.get(command)
        if handler is None:
            raise UsageError(f"%threadlab: unknown command {command!r}\nusage: {_THREADLAB_USAGE}")
        if isinstance(handler, tuple):
            handler = _topic(*handler)
        return handler(self, rest)

    # the cells awaited on the kernel loop (see _cell_transform.py)

    async def thread_cell(self, line: str, cell: str) -> None:
        # The cell reached us as an awaited call, so expand {variables} as a magic line would.
        assert self.shell is not None
        from ._thread_cells import run_thread_cell

        args = parse_argstring(self.thread, self.shell.var_expand(line))
        await run_thread_cell(self, args, cell)

    async def eval_cell(self, line: str, cell: str) -> None:
        assert self.shell is not None
        from ._eval_cells import run_eval_cell

        args = parse_argstring(self.eval, self.shell.var_expand(line))
        try:
            await run_eval_cell(self.memory.runtime, args, cell, self.shell.user_ns)
        except ThreadlabError as exc:
            raise UsageError(f"%%eval: {exc}") from None

    async def fork_cell(self, line: str) -> None:
        from ._reshaping_cells import run_fork_cell

        await run_fork_cell(self, line)

    async def decide_cell(self, line: str) -> None:
        from ._approval_cells import run_decide_cell

        await run_decide_cell(self, line)

    async def mcp_cell(self, line: str) -> None:
        from ._mcp_cells import run_mcp_cell

        await run_mcp_cell(self, line)

    def misspelt(self, name: str, kind: str) -> NoReturn:
        """What a cell that starts with a misspelt threadlab magic runs (see `_misspelt`)."""
        marks = "%%" if kind == "cell" else "%"
        meant = suggestion(name, kind)
        raise UsageError(f"{marks}{name} is not a magic: did you mean {marks}{meant}?")


def _in_a_cell_of_its_own(message: str) -> Callable[[ThreadlabMagics, list[str]], Any]:
    def refuse(magics: ThreadlabMagics, rest: list[str]) -> NoReturn:
        raise UsageError(message)

    return refuse


def _topic(module: str, name: str) -> Any:
    """`name` of the topic module `module`, imported on first use."""
    return getattr(importlib.import_module(f".{module}", __package__), name)


# `%threadlab COMMAND ...`: each command's handler takes the magics and the words after it;
# given as (topic module, function), imported when the command first runs.
_COMMANDS: dict[str, Callable[[ThreadlabMagics, list[str]], Any] | tuple[str, str]] = {
    "threads": ("_store_commands", "threads"),
    "open": ("_store_commands", "open_thread"),
    "secret": ("_store_commands", "secret"),
    "set": ("_store_commands", "set_values"),
    "unset": ("_store_commands", "unset"),
    "import": ("_store_commands", "import_notebook"),
    "export": ("_store_commands", "export"),
    "trace": ("_store_commands", "trace"),
    "tools": ("_store_commands", "tools"),
    "models": ("_store_commands", "models"),
    "graph": ("_store_commands", "graph"),
    "play": ("_store_commands", "play"),
    "grade": ("_grading_commands", "grade"),
    "class": ("_grading_commands", "class_overview"),
    "share": ("_store_commands", "share_thread"),
    "diff": ("_reshaping_cells", "diff"),
    "pending": ("_approval_cells", "pending"),
    "approve": _in_a_cell_of_its_own(
        "%threadlab approve resumes the thread: put it in a cell of its own"
    ),
    "reject": _in_a_cell_of_its_own(
        "%threadlab reject resumes the thread: put it in a cell of its own"
    ),
    "mcp": _in_a_cell_of_its_own(
        "%threadlab mcp serves on the kernel loop: put it in a cell of its own"
    ),
    "fork": _in_a_cell_of_its_own(
        "%threadlab fork runs the branch: put it in a cell of its own (it is awaited on the"
        " kernel loop)"
    ),
}
