"""The threadlab magics: define tools, prompts and agents in cells; run threads inline.

They call the same public API a script would (`tl.tool`, `tl.define_prompt`, ...), with the
process-wide default registry and the kernel's Runtime.
"""

from __future__ import annotations

import ast
import asyncio
import getpass
import inspect
import json
import os
import shlex
import tomllib
from pathlib import Path
from typing import Any, Literal

from IPython.core.error import UsageError
from IPython.core.magic import Magics, cell_magic, line_magic, magics_class
from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring
from IPython.display import display
from traitlets import Bool, Enum, Float, Unicode, observe

from .. import (
    DefinitionError,
    MissingVariableError,
    Runtime,
    Thread,
    ThreadlabError,
    ThreadNotFoundError,
    default_registry,
    define_agent,
    define_mcp_server,
    define_prompt,
    mcp,
    tool,
)
from ..models import ReplayModel
from ..widgets import LiveRun, StaticView, ThreadDiff, ThreadListView, ThreadView, replay
from ._arguments import parse_assignments, parse_variable, split_names, unquote
from ._busy import KeepBusy
from ._checks import warn_unknown
from ._defined import Defined, tool_summary
from ._eval_cells import run_eval_cell
from ._memory import KernelMemory
from ._notebooks import definition_cells, thread_notebook

__all__ = ["ThreadlabMagics"]

_THREADLAB_USAGE = """%threadlab threads [--all | --here | --notebook PATH] | open ID | secret NAME
           | set NAME=VALUE | unset NAME | import NOTEBOOK | export ID PATH | tools | models
           | trace PROVIDER | trace off | diff ID OTHER_ID | pending
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

    children = Enum(
        ["here", "workers"],
        "here",
        help='Where non-blocking children run: "here" (this kernel) or "workers" (left in'
        " the store for Runtime.serve in other processes).",
    ).tag(config=True)

    def __init__(self, shell: Any = None, **kwargs: Any) -> None:
        super().__init__(shell=shell, **kwargs)
        self._mcp_service: mcp.MCPService | None = None
        where: Literal["here", "workers"] = "workers" if self.children == "workers" else "here"
        self.memory = KernelMemory(store=self.store, children=where)

    @observe("store")
    def _store_changed(self, change: Any) -> None:
        # `%config ThreadlabMagics.store = ...` after loading: the next thread uses it.
        self.memory.use_store(change["new"])

    @observe("children")
    def _children_changed(self, change: Any) -> None:
        self.memory.use_children(change["new"])

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
        args = parse_argstring(self.tool, line)
        names = _defined_functions(cell)
        if len(names) != 1:
            raise UsageError(
                f"%%tool: the cell must define exactly one function (found {len(names)})"
            )
        assert self.shell is not None
        # Compiled as IPython compiles a cell, a line above it for the %%tool line: a
        # traceback through the tool names "Cell In[n]" and the line as the editor counts it.
        source = "\n" + cell
        filename = self.shell.compile.cache(source, self.shell.execution_count, raw_code=source)
        exec(self.shell.compile(source, filename, "exec"), self.shell.user_ns)
        fn = self.shell.user_ns[names[0]]
        options: dict[str, Any] = {
            "variables": [parse_variable(v) for v in args.variable or []],
            "progress_argument": args.progress,
        }
        if args.name:
            options["name"] = args.name
        if args.timeout is not None:
            options["timeout"] = args.timeout
        if args.approval:
            options["approval"] = args.approval
        definition = _definition(lambda: tool(**options)(fn))
        return tool_summary(definition)

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
        args = parse_argstring(self.prompt, line)
        definition = _definition(
            lambda: define_prompt(
                args.name,
                prompt=cell.strip("\n"),
                model=args.model or self.default_model,
                tools=split_names(args.tools),
                expose_as_tool=args.expose_as_tool,
                tool_description=unquote(args.description),
                include_chat=args.include_chat,
                include_past_tools=args.include_past_tools,
                parallel_tool_calls=args.parallel_tool_calls,
                hooks=split_names(args.hooks),
                variables=[parse_variable(v) for v in args.variable or []],
                approval=args.approval,
            )
        )
        warn_unknown(
            f"prompt {definition.name!r}", "tool", definition.tool_names(), default_registry()
        )
        tools = ", ".join(definition.tool_names()) or "no tools"
        return Defined(f"prompt {definition.name} (model {definition.model}; {tools})")

    @magic_arguments()
    @argument("name", help="Agent name.")
    @argument("--expose-as-tool", action="store_true", help="Make the agent callable as a tool.")
    @argument("--description", help="The description a caller sees when it is a tool.")
    @cell_magic
    def agent(self, line: str, cell: str) -> Defined:
        """Define an agent from TOML whose keys are define_agent's keyword names."""
        args = parse_argstring(self.agent, line)
        data = _toml_cell(f"%%agent {args.name}", cell, _AGENT_KEYS)
        if args.expose_as_tool:
            data["expose_as_tool"] = True
        if args.description:
            data["tool_description"] = unquote(args.description)
        if "side_a" not in data:
            raise UsageError(f"%%agent {args.name}: the TOML needs a [side_a] table (or key)")
        definition = _definition(lambda: define_agent(args.name, **data))
        configs = [definition.side_a] + ([definition.side_b] if definition.side_b else [])
        owner = f"agent {definition.name!r}"
        warn_unknown(owner, "prompt", [c.prompt for c in configs], default_registry())
        warn_unknown(
            owner, "subagent", [r.name for c in configs for r in c.subagents], default_registry()
        )
        sides = f"{definition.type}, side A {definition.side_a.prompt}"
        if definition.side_b is not None:
            sides += f", side B {definition.side_b.prompt}"
        return Defined(f"agent {definition.name} ({sides})")

    @magic_arguments()
    @argument("name", help="The server's name (a prompt lists its tools as mcp:NAME).")
    @cell_magic
    def mcp(self, line: str, cell: str) -> Defined:
        """Define an MCP server from TOML whose keys are define_mcp_server's keyword names
        (command and args, or url and headers; tools, prefix, env, timeout, approval)."""
        args = parse_argstring(self.mcp, line)
        data = _toml_cell(f"%%mcp {args.name}", cell, _MCP_KEYS)
        definition = _definition(lambda: define_mcp_server(args.name, **data))
        named = f"tools {', '.join(definition.tools)}" if definition.tools else "all its tools"
        return Defined(
            f"MCP server {definition.name} ({definition.where}; {named}, listed on first"
            f" use: list mcp:{definition.name} in a prompt's tools)"
        )

    async def mcp_cell(self, line: str) -> None:
        """`%threadlab mcp serve [--port N] [--host H] [--tools A,B] [--no-token]`, `mcp
        stop` or `mcp status`, as a cell of its own (the endpoint runs on the kernel loop)."""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise UsageError(f"%threadlab mcp: {exc}") from None
        usage = (
            "usage: %threadlab mcp serve [--port N] [--host H] [--tools A,B] [--no-token]"
            " | mcp stop | mcp status"
        )
        if words[:1] == ["stop"] and len(words) == 1:
            if self._mcp_service is None:
                raise UsageError("%threadlab mcp stop: nothing is served")
            await self._mcp_service.close()
            print(f"stopped serving at {self._mcp_service.url}")
            self._mcp_service = None
            return
        if words[:1] == ["status"] and len(words) == 1:
            served = self._mcp_service
            if served is None:
                print("nothing is served (%threadlab mcp serve starts it)")
            else:
                print(f"serving {', '.join(n for n, _, _ in served.offered())} at {served.url}")
            return
        if words[:1] != ["serve"]:
            raise UsageError(usage)
        options = _serve_options(words[1:], usage)
        if self._mcp_service is not None:
            await self._mcp_service.close()
        try:
            service = await mcp.serve(default_registry(), runtime=self.memory.runtime, **options)
        except (ThreadlabError, ValueError, OSError) as exc:
            raise UsageError(f"%threadlab mcp serve: {exc}") from None
        self._mcp_service = service
        names = ", ".join(n for n, _, _ in service.offered()) or "no tools yet"
        print(f"serving {names} at {service.url} (each call is a thread: %threadlab threads --all)")
        if service.token:
            print(f"bearer token (shown once): {service.token}")
        print("client configuration (Claude Code, Cursor, VS Code):")
        print(json.dumps(service.client_config(), indent=2))

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

    async def eval_cell(self, line: str, cell: str) -> None:
        assert self.shell is not None
        args = parse_argstring(self.eval, self.shell.var_expand(line))
        try:
            await run_eval_cell(self.memory.runtime, args, cell, self.shell.user_ns)
        except ThreadlabError as exc:
            raise UsageError(f"%%eval: {exc}") from None

    # running

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
    @argument("--step", action="store_true", help="Ask before every tool call runs.")
    @cell_magic
    def thread(self, line: str, cell: str) -> None:
        """Run the cell's text as a user message. (Cells are run with top-level await.)"""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.thread_cell(line, cell))
        raise UsageError("%%thread: run it as a cell of its own (it is awaited on the kernel loop)")

    async def thread_cell(self, line: str, cell: str) -> None:
        # The cell reached us as an awaited call, so expand {variables} as a magic line would.
        assert self.shell is not None
        args = parse_argstring(self.thread, self.shell.var_expand(line))
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
            recorded = self._thread_named("thread --replay", args.replay)
            if not message:  # the recorded conversation's own first message
                message = next((m.content or "" for m in recorded.messages if m.role == "user"), "")
            args.new = True
            # After a fix the conversation changes at the fixed step: the target's own model
            # answers from there, unless --strict asks for the replay to fail instead.
            fallback = None if args.strict else args.fallback or self._own_model(args.target)
            args.model = replay = ReplayModel(recorded, fallback=fallback)
        if not message:
            raise UsageError("%%thread: the cell is the user message, and it is empty")
        thread = await self._thread_for(args)
        self._check_definitions(thread)
        self.memory.last_thread[args.target] = thread.id
        await self._run_live(thread, message, keep_live=args.live, step=args.step)
        if replay is not None:
            print(
                f"replayed {replay.calls_replayed} model calls from {args.replay},"
                f" {replay.calls_forwarded} answered by the model"
            )

    def _own_model(self, target: str) -> Any:
        """The model the target's first prompt names (a replay's fallback in a notebook)."""
        registry = self.memory.runtime.registry
        agent = registry.agent(target)
        prompt = registry.prompt(agent.side_a.prompt if agent is not None else target)
        return prompt.model if prompt is not None else "offline"

    async def fork_cell(self, line: str) -> None:
        """`%threadlab fork ID --at MSG_OR_CALL [--result JSON | --arguments JSON |
        --message TEXT] [--live]`, as a cell of its own: fork the thread and run the branch."""
        assert self.shell is not None
        thread_id, at, options, keep_live = self._fork_arguments(self.shell.var_expand(line))
        thread = self._thread_named("fork", thread_id)
        try:
            branch = await thread.fork(at, **options)
        except ThreadlabError as exc:
            raise UsageError(f"%threadlab fork: {exc}") from None
        print(f"branch {branch.id} of {thread.id} at {at}")
        self._check_definitions(branch)
        await self._run_live(branch, None, keep_live=keep_live)

    def _fork_arguments(self, line: str) -> tuple[str, str, dict[str, Any], bool]:
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

    async def _run_live(
        self, thread: Thread, message: str | None, *, keep_live: bool, step: bool = False
    ) -> None:
        """Run `thread` (on `message`, or resuming) with a live view in the cell's output."""
        live = LiveRun(self.memory.runtime, thread, self.update_rate)
        busy = KeepBusy(getattr(self.shell, "kernel", None))
        live.view.after_message = busy.touch
        display(live.view)  # under a display id of its own: see refresh_output
        try:
            await live.run(message, step=step)
        except (asyncio.CancelledError, KeyboardInterrupt):
            # A kernel interrupt: the runtime has already given every unfinished call its
            # "interrupted" result (a call still waiting for a decision stays waiting); end
            # the cell quietly with the trace as it stands.
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
            frozen = self.freeze_on_finish and not keep_live and not waiting
            live.view.refresh_output(StaticView(live.state) if frozen else None)
        for request in waiting:
            print(
                f"{request.name} ({request.tool_call_id}) waits for a decision: decide in its"
                f" card, or %threadlab approve {request.tool_call_id}"
                f" / %threadlab reject {request.tool_call_id} REASON"
            )

    def _check_definitions(self, thread: Thread) -> None:
        """A thread from the store runs on the definitions of this kernel: say what to do when
        they are missing (after a kernel restart, say), instead of failing inside the run."""
        try:
            self.memory.runtime.check(thread.answering_agent)
        except DefinitionError as exc:
            raise UsageError(
                f"%%thread: thread {thread.id} cannot continue in this kernel: {exc}\n"
                "Definitions live in the kernel, not in the store: re-run the cells that define"
                " them, or `%threadlab import NOTEBOOK.ipynb` to run another notebook's"
                " definition cells."
            ) from None

    async def _thread_for(self, args: Any) -> Thread:
        rt = self.memory.runtime
        if args.id:
            try:
                return rt.thread(args.id)
            except ThreadNotFoundError as exc:
                raise UsageError(f"%%thread: {exc}") from None
        last = self.memory.last_thread.get(args.target)
        if last and not args.new:
            return rt.thread(last)
        env = dict(self.memory.env)
        env.update(parse_assignments(args.env, "--env"))
        secrets = dict(self.memory.secrets)
        for name in args.secret or []:
            if name not in secrets:
                secrets[name] = self._ask_secret(name)
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
                if not self._can_ask():
                    raise UsageError(
                        f"%%thread: {exc}\nSet them with %threadlab set NAME=VALUE,"
                        " %threadlab secret NAME, or --env/--secret."
                    ) from None
                for name, _ in exc.missing:
                    if _declared_type(rt, args.target, name) == "secret":
                        secrets[name] = self._ask_secret(name)
                    else:
                        # The kernel forwards input() to the front end; the run has not started.
                        env[name] = input(f"{name}: ")  # noqa: ASYNC250

    def _can_ask(self) -> bool:
        kernel = getattr(self.shell, "kernel", None)
        return bool(getattr(kernel, "_allow_stdin", False))

    def _ask_secret(self, name: str) -> str:
        if not self._can_ask():
            raise UsageError(f"secret {name} has no value and this kernel cannot ask for it")
        value = getpass.getpass(f"{name} (hidden): ")
        self.memory.secrets[name] = value
        return value

    # %threadlab

    @line_magic
    def threadlab(self, line: str) -> Any:
        """%threadlab threads [--all | --here | --notebook PATH] | open ID | secret NAME |
        set NAME=VALUE | unset NAME | import NOTEBOOK | export ID PATH | tools | models |
        trace PROVIDER | trace off | diff ID OTHER_ID | fork ID --at MSG_OR_CALL [--result
        JSON | --arguments JSON | --message TEXT] | pending | approve CALL_ID [--arguments
        JSON] | reject CALL_ID [REASON] (fork, approve and reject: a cell of their own)"""
        try:
            words = shlex.split(line)
        except ValueError as exc:
            raise UsageError(f"%threadlab: {exc}\nusage: {_THREADLAB_USAGE}") from None
        if not words:
            raise UsageError(f"usage: {_THREADLAB_USAGE}")
        command, rest = words[0], words[1:]
        handler = getattr(self, f"_cmd_{command}", None)
        if handler is None:
            raise UsageError(f"%threadlab: unknown command {command!r}\nusage: {_THREADLAB_USAGE}")
        return handler(rest)

    def _thread_named(self, command: str, thread_id: str) -> Thread:
        try:
            return self.memory.runtime.thread(thread_id)
        except ThreadNotFoundError as exc:
            raise UsageError(f"%threadlab {command}: {exc}") from None

    def _cmd_threads(self, rest: list[str]) -> ThreadListView:
        """This notebook's threads (every thread where the kernel does not know its
        notebook); `--all`, `--here`, `--notebook PATH`."""
        if rest == ["--here"]:
            here = this_notebook()
            if here is None:
                raise UsageError(
                    "%threadlab threads --here: this kernel does not know its notebook"
                )
            return ThreadListView(self.memory.runtime, origin=here)
        if len(rest) == 2 and rest[0] == "--notebook":
            return ThreadListView(self.memory.runtime, origin=rest[1])
        if rest == ["--all"]:
            return ThreadListView(self.memory.runtime)
        if rest:
            raise UsageError("usage: %threadlab threads [--all | --here | --notebook PATH]")
        return ThreadListView(self.memory.runtime, origin=this_notebook())

    def _cmd_open(self, rest: list[str]) -> ThreadView:
        if len(rest) != 1:
            raise UsageError("usage: %threadlab open THREAD_ID")
        thread = self._thread_named("open", rest[0])
        return ThreadView(self.memory.runtime, replay(thread))

    def _cmd_pending(self, rest: list[str]) -> Defined:
        if rest:
            raise UsageError("usage: %threadlab pending")
        lines = [
            f"{request.tool_call_id}  {request.name}({json.dumps(request.arguments)})"
            f"  in thread {request.thread_id}"
            for thread in self._waiting_threads()
            for request in thread.pending
        ]
        return Defined("\n".join(lines) or "no tool call waits for a decision")

    def _waiting_threads(self) -> list[Thread]:
        """Root threads with calls (theirs or their descendants') waiting for a decision."""
        return [t for t in self.memory.runtime.threads() if t.parent_id is None and t.pending]

    def _thread_waiting_on(self, command: str, call_id: str) -> Thread:
        for thread in self._waiting_threads():
            if any(r.tool_call_id == call_id for r in thread.pending):
                return thread
        raise UsageError(
            f"%threadlab {command}: no tool call {call_id!r} waits for a decision"
            " (%threadlab pending lists those that do)"
        )

    async def decide_cell(self, line: str) -> None:
        """`%threadlab approve CALL_ID [--arguments JSON]` or `%threadlab reject CALL_ID
        [REASON]`, as a cell of its own: record the decision and resume the thread live."""
        assert self.shell is not None
        try:
            words = shlex.split(self.shell.var_expand(line))
        except ValueError as exc:
            raise UsageError(f"%threadlab: {exc}") from None
        usage = "usage: %threadlab approve CALL_ID [--arguments JSON] | reject CALL_ID [REASON]"
        if len(words) < 2 or words[0] not in ("approve", "reject"):
            raise UsageError(usage)
        command, call_id, rest = words[0], words[1], words[2:]
        thread = self._thread_waiting_on(command, call_id)
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
        await self._run_live(thread, None, keep_live=False)

    def _cmd_approve(self, rest: list[str]) -> None:
        raise UsageError("%threadlab approve resumes the thread: put it in a cell of its own")

    def _cmd_reject(self, rest: list[str]) -> None:
        raise UsageError("%threadlab reject resumes the thread: put it in a cell of its own")

    def _cmd_mcp(self, rest: list[str]) -> None:
        raise UsageError("%threadlab mcp serves on the kernel loop: put it in a cell of its own")

    def _cmd_fork(self, rest: list[str]) -> None:
        raise UsageError(
            "%threadlab fork runs the branch: put it in a cell of its own (it is awaited on"
            " the kernel loop)"
        )

    def _cmd_diff(self, rest: list[str]) -> ThreadDiff:
        if len(rest) != 2:
            raise UsageError("usage: %threadlab diff THREAD_ID OTHER_THREAD_ID")
        return ThreadDiff(self._thread_named("diff", rest[0]), self._thread_named("diff", rest[1]))

    def _cmd_secret(self, rest: list[str]) -> Defined:
        if len(rest) != 1:
            raise UsageError("usage: %threadlab secret NAME  (the value is asked, hidden)")
        self._ask_secret(rest[0])
        return Defined(f"secret {rest[0]} set for new threads (not stored in the notebook)")

    def _cmd_set(self, rest: list[str]) -> Defined:
        values = parse_assignments(rest, "%threadlab set")
        if not values:
            raise UsageError("usage: %threadlab set NAME=VALUE")
        self.memory.env.update(values)
        return Defined(f"set {', '.join(values)} for new threads")

    def _cmd_unset(self, rest: list[str]) -> Defined:
        for name in rest:
            self.memory.env.pop(name, None)
            self.memory.secrets.pop(name, None)
        return Defined(f"unset {', '.join(rest)}")

    def _cmd_import(self, rest: list[str]) -> Defined:
        if len(rest) != 1:
            raise UsageError("usage: %threadlab import NOTEBOOK.ipynb")
        path = Path(rest[0])
        if not path.exists():
            raise UsageError(f"%threadlab import: {path} does not exist")
        cells = definition_cells(path)
        assert self.shell is not None
        for source in cells:
            first, _, body = source.lstrip().partition("\n")
            name, _, line = first[2:].partition(" ")
            self.shell.run_cell_magic(name, line, body)
        return Defined(f"imported {len(cells)} definition cells from {path}")

    def _cmd_export(self, rest: list[str]) -> Defined:
        if len(rest) != 2:
            raise UsageError("usage: %threadlab export THREAD_ID PATH.ipynb")
        thread = self._thread_named("export", rest[0])
        import nbformat

        nbformat.write(thread_notebook(thread), rest[1])
        return Defined(f"exported thread {thread.id} to {rest[1]}")

    def _cmd_trace(self, rest: list[str]) -> Defined:
        # The provider is an object in the notebook: named here, as `%config` cannot hold one.
        usage = "usage: %threadlab trace PROVIDER | %threadlab trace off"
        if len(rest) != 1:
            raise UsageError(usage)
        if rest[0] == "off":
            self.memory.use_tracer_provider(None)
            return Defined("runs are no longer traced")
        assert self.shell is not None
        if rest[0] not in self.shell.user_ns:
            raise UsageError(f"%threadlab trace: no name {rest[0]!r} in this notebook\n{usage}")
        provider = self.shell.user_ns[rest[0]]
        if not callable(getattr(provider, "get_tracer", None)):
            raise UsageError(
                f"%threadlab trace: {rest[0]} is a {type(provider).__name__}, not an"
                " OpenTelemetry TracerProvider"
            )
        try:
            self.memory.use_tracer_provider(provider)
            self.memory.runtime  # noqa: B018 - opened now, so a missing extra says so now
        except ImportError as exc:
            self.memory.use_tracer_provider(None)
            raise UsageError(f"%threadlab trace: {exc}") from None
        return Defined(f"each run's spans go through {rest[0]} as the run ends")

    def _cmd_tools(self, rest: list[str]) -> Defined:
        tools = default_registry().tools()
        lines = [f"{t.name}: {t.description}" for t in tools]
        return Defined("\n".join(lines) or "no tools defined")

    def _cmd_models(self, rest: list[str]) -> Defined:
        lines = ["offline (built in): deterministic, no key"]
        for model in default_registry().models():
            line = f"{model.name}: {model.provider} {model.model}"
            if model.base_url:
                line += f" at {model.shown_base_url}"
            key = model.key_variable()
            if key is not None:
                # Whether a new thread will find the key, never the key itself.
                where = self._key_source(key.name)
                line += f"; key {key.name} " + (f"set ({where})" if where else "NOT SET")
            lines.append(line)
        return Defined("\n".join(lines))

    def _key_source(self, name: str) -> str | None:
        if name in self.memory.secrets:
            return "%threadlab secret"
        if name in self.memory.env:
            return "%threadlab set"
        if os.environ.get(name):
            return "environment"
        return None


def this_notebook() -> str | None:
    """The path of the notebook this kernel runs for, as the Jupyter server gives it to the
    kernels it starts (None in a plain IPython or a kernel started by hand)."""
    return os.environ.get("JPY_SESSION_NAME") or None


_AGENT_KEYS = frozenset(inspect.signature(define_agent).parameters) - {"name", "registry"}


def _defined_functions(cell: str) -> list[str]:
    try:
        tree = ast.parse(cell)
    except SyntaxError as exc:
        line = (exc.text or "").rstrip("\n")
        caret = " " * max(0, (exc.offset or 1) - 1) + "^"
        raise UsageError(
            # Counted as the editor counts: the %%tool line is line 1.
            f"%%tool: the cell is not valid Python, line {(exc.lineno or 0) + 1}: {exc.msg}\n"
            f"    {line}\n    {caret}"
        ) from None
    return [
        node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def _definition(make: Any) -> Any:
    try:
        return make()
    except DefinitionError as exc:
        raise UsageError(str(exc)) from None


def _toml_cell(magic: str, cell: str, keys: set[str] | frozenset[str]) -> dict[str, Any]:
    """A definition cell's TOML, its keys checked against the definer's keyword names."""
    try:
        data = tomllib.loads(cell)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{magic}: the cell is not valid TOML: {exc}") from None
    unknown = sorted(set(data) - keys)
    if unknown:
        raise UsageError(
            f"{magic}: unknown keys {', '.join(unknown)}; the keys are {', '.join(sorted(keys))}"
        )
    return data


def _declared_type(rt: Runtime, target: str, name: str) -> str:
    return rt.variable_type(target, name) or "text"


_MCP_KEYS = {"command", "args", "env", "url", "headers", "tools", "prefix", "timeout", "approval"}


def _serve_options(words: list[str], usage: str) -> dict[str, Any]:
    """`tl.mcp.serve`'s keywords from `%threadlab mcp serve`'s options."""
    options: dict[str, Any] = {}
    flags = iter(words)
    for flag in flags:
        if flag == "--no-token":
            options["token"] = None
            continue
        value = next(flags, None)
        if value is None or flag not in ("--port", "--host", "--tools"):
            raise UsageError(usage)
        if flag == "--port":
            if not value.isdigit():
                raise UsageError(f"%threadlab mcp serve: --port takes a number\n{usage}")
            options["port"] = int(value)
        elif flag == "--host":
            options["host"] = value
        else:
            options["tools"] = split_names(value)
    return options
