"""The definition cells: `%%tool` (the one function in the cell), `%%prompt` (the cell is the
system prompt), `%%agent` and `%%mcp` (TOML whose keys are the definers' keyword names). Each
calls the public definer a script would."""

from __future__ import annotations

import ast
import inspect
import sys
import tomllib
from typing import Any

from IPython.core.error import UsageError

from .. import (
    DefinitionError,
    OAuth,
    default_registry,
    define_agent,
    define_mcp_server,
    define_prompt,
    tool,
)
from ._arguments import parse_variable, split_names, unquote
from ._checks import warn_unknown
from ._defined import Defined, tool_summary
from ._magics_host import MagicsHost

__all__ = ["agent_cell", "mcp_server_cell", "prompt_cell", "tool_cell"]


_AGENT_KEYS = frozenset(inspect.signature(define_agent).parameters) - {"name", "registry"}
_MCP_KEYS = {
    "command", "args", "env", "url", "headers", "tools", "prefix", "timeout", "approval",
    "sampling_model", "oauth",
}  # fmt: skip
# An [oauth] table's keys: tl.OAuth's, but for a callable and for a secret, which a saved
# notebook would keep in the clear.
_OAUTH_KEYS = {"client_name", "client_id", "client_metadata_url", "redirect_uri"}


def _running_cell_number(shell: Any) -> int:
    """The number IPython gave the cell that runs now (its "In[n]"): read from the cell's own
    frame, as IPython named it, since `execution_count` already counts the next cell while
    one runs (IPython 9), and not when it runs outside the history; else that count."""
    frame = sys._getframe(1)
    while frame is not None:
        named = shell.compile.format_code_name(frame.f_code.co_filename)
        if named is not None:
            return int(named[1].removeprefix("In[").removesuffix("]"))
        frame = frame.f_back  # type: ignore[assignment]
    return int(shell.execution_count)


def tool_cell(magics: MagicsHost, args: Any, cell: str) -> Defined:
    """`%%tool` with its parsed arguments (its help is the magic's, in `_magics.py`)."""
    names = _defined_functions(cell)
    if len(names) != 1:
        raise UsageError(f"%%tool: the cell must define exactly one function (found {len(names)})")
    assert magics.shell is not None
    # Compiled as IPython compiles a cell, a line above it for the %%tool line: a
    # traceback through the tool names "Cell In[n]" and the line as the editor counts it.
    source = "\n" + cell
    number = _running_cell_number(magics.shell)
    filename = magics.shell.compile.cache(source, number, raw_code=source)
    exec(magics.shell.compile(source, filename, "exec"), magics.shell.user_ns)
    fn = magics.shell.user_ns[names[0]]
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


def prompt_cell(magics: MagicsHost, args: Any, cell: str) -> Defined:
    """`%%prompt` with its parsed arguments (its help is the magic's, in `_magics.py`)."""
    definition = _definition(
        lambda: define_prompt(
            args.name,
            prompt=cell.strip("\n"),
            model=args.model or magics.default_model,
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
    warn_unknown(f"prompt {definition.name!r}", "tool", definition.tool_names(), default_registry())
    tools = ", ".join(definition.tool_names()) or "no tools"
    return Defined(f"prompt {definition.name} (model {definition.model}; {tools})")


def agent_cell(magics: MagicsHost, args: Any, cell: str) -> Defined:
    """`%%agent` with its parsed arguments (its help is the magic's, in `_magics.py`)."""
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


def mcp_server_cell(magics: MagicsHost, args: Any, cell: str) -> Defined:
    """`%%mcp` with its parsed arguments (its help is the magic's, in `_magics.py`)."""
    data = _toml_cell(f"%%mcp {args.name}", cell, _MCP_KEYS)
    if "oauth" in data:
        data["oauth"] = _oauth_table(f"%%mcp {args.name}", data["oauth"])
    definition = _definition(lambda: define_mcp_server(args.name, **data))
    named = f"tools {', '.join(definition.tools)}" if definition.tools else "all its tools"
    return Defined(
        f"MCP server {definition.name} ({definition.where}; {named}, listed on first"
        f" use: list mcp:{definition.name} in a prompt's tools)"
    )


def _oauth_table(magic: str, table: Any) -> OAuth:
    if not isinstance(table, dict):
        raise UsageError(f"{magic}: oauth is a table ([oauth]) of {', '.join(sorted(_OAUTH_KEYS))}")
    unknown = sorted(set(table) - _OAUTH_KEYS)
    if unknown:
        raise UsageError(
            f"{magic}: unknown [oauth] keys {', '.join(unknown)}; the keys are"
            f" {', '.join(sorted(_OAUTH_KEYS))} (a client_secret or a sign_in callable is"
            " given in Python: tl.define_mcp_server(..., oauth=tl.OAuth(...)))"
        )
    return OAuth(**table)


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
