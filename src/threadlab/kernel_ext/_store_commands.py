"""The `%threadlab` commands about the store and the kernel's settings: the thread list, a
thread reopened, variables and secrets for new threads, notebooks imported and exported,
tracing, and what tools and models are defined (and how the definitions fit together)."""

from __future__ import annotations

import os
from pathlib import Path

from IPython.core.error import UsageError

from .. import DefinitionError, default_registry
from .. import graph as definitions_graph
from ..widgets import (
    GraphView,
    PlayerView,
    ThreadListView,
    ThreadView,
    player,
    relate,
    replay,
    share,
)
from ._arguments import parse_assignments
from ._defined import Defined
from ._magics_host import MagicsHost
from ._notebooks import definition_cells, thread_notebook
from ._thread_cells import ask_secret, this_notebook, thread_named

__all__ = [
    "export",
    "graph",
    "import_notebook",
    "key_source",
    "models",
    "open_thread",
    "play",
    "secret",
    "set_values",
    "share_thread",
    "threads",
    "tools",
    "trace",
    "unset",
]


def threads(magics: MagicsHost, rest: list[str]) -> ThreadListView:
    """This notebook's threads (every thread where the kernel does not know its
    notebook); `--all`, `--here`, `--notebook PATH`."""
    if rest == ["--here"]:
        here = this_notebook()
        if here is None:
            raise UsageError("%threadlab threads --here: this kernel does not know its notebook")
        return ThreadListView(magics.memory.runtime, origin=here)
    if len(rest) == 2 and rest[0] == "--notebook":
        return ThreadListView(magics.memory.runtime, origin=rest[1])
    if rest == ["--all"]:
        return ThreadListView(magics.memory.runtime)
    if rest:
        raise UsageError("usage: %threadlab threads [--all | --here | --notebook PATH]")
    return ThreadListView(magics.memory.runtime, origin=this_notebook())


def open_thread(magics: MagicsHost, rest: list[str]) -> ThreadView:
    if len(rest) != 1:
        raise UsageError("usage: %threadlab open THREAD_ID")
    thread = thread_named(magics, "open", rest[0])
    # Where it came from and its branches, as in the view that made it.
    return ThreadView(magics.memory.runtime, relate(replay(thread), thread))


def share_thread(magics: MagicsHost, rest: list[str]) -> Defined:
    """`%threadlab share ID PATH`: the thread as one HTML file (`tl.share`)."""
    if len(rest) != 2:
        raise UsageError("usage: %threadlab share THREAD_ID PATH")
    thread = thread_named(magics, "share", rest[0])
    written = share(thread, rest[1])
    size = written.stat().st_size
    return Defined(f"wrote {written} ({size:,} bytes): it opens in a browser, offline")


def secret(magics: MagicsHost, rest: list[str]) -> Defined:
    if len(rest) != 1:
        raise UsageError("usage: %threadlab secret NAME  (the value is asked, hidden)")
    ask_secret(magics, rest[0])
    return Defined(f"secret {rest[0]} set for new threads (not stored in the notebook)")


def set_values(magics: MagicsHost, rest: list[str]) -> Defined:
    values = parse_assignments(rest, "%threadlab set")
    if not values:
        raise UsageError("usage: %threadlab set NAME=VALUE")
    magics.memory.env.update(values)
    return Defined(f"set {', '.join(values)} for new threads")


def unset(magics: MagicsHost, rest: list[str]) -> Defined:
    for name in rest:
        magics.memory.env.pop(name, None)
        magics.memory.secrets.pop(name, None)
    return Defined(f"unset {', '.join(rest)}")


def import_notebook(magics: MagicsHost, rest: list[str]) -> Defined:
    if len(rest) != 1:
        raise UsageError("usage: %threadlab import NOTEBOOK.ipynb")
    path = Path(rest[0])
    if not path.exists():
        raise UsageError(f"%threadlab import: {path} does not exist")
    cells = definition_cells(path)
    assert magics.shell is not None
    for source in cells:
        first, _, body = source.lstrip().partition("\n")
        name, _, line = first[2:].partition(" ")
        magics.shell.run_cell_magic(name, line, body)
    return Defined(f"imported {len(cells)} definition cells from {path}")


def export(magics: MagicsHost, rest: list[str]) -> Defined:
    if len(rest) != 2:
        raise UsageError("usage: %threadlab export THREAD_ID PATH.ipynb")
    thread = thread_named(magics, "export", rest[0])
    import nbformat

    nbformat.write(thread_notebook(thread), rest[1])
    return Defined(f"exported thread {thread.id} to {rest[1]}")


def trace(magics: MagicsHost, rest: list[str]) -> Defined:
    # The provider is an object in the notebook: named here, as `%config` cannot hold one.
    usage = "usage: %threadlab trace PROVIDER | %threadlab trace off"
    if len(rest) != 1:
        raise UsageError(usage)
    if rest[0] == "off":
        magics.memory.use_tracer_provider(None)
        return Defined("runs are no longer traced")
    assert magics.shell is not None
    if rest[0] not in magics.shell.user_ns:
        raise UsageError(f"%threadlab trace: no name {rest[0]!r} in this notebook\n{usage}")
    provider = magics.shell.user_ns[rest[0]]
    if not callable(getattr(provider, "get_tracer", None)):
        raise UsageError(
            f"%threadlab trace: {rest[0]} is a {type(provider).__name__}, not an"
            " OpenTelemetry TracerProvider"
        )
    try:
        magics.memory.use_tracer_provider(provider)
        magics.memory.runtime  # noqa: B018 - opened now, so a missing extra says so now
    except ImportError as exc:
        magics.memory.use_tracer_provider(None)
        raise UsageError(f"%threadlab trace: {exc}") from None
    return Defined(f"each run's spans go through {rest[0]} as the run ends")


def tools(magics: MagicsHost, rest: list[str]) -> Defined:
    tools = default_registry().tools()
    lines = [f"{t.name}: {t.description}" for t in tools]
    return Defined("\n".join(lines) or "no tools defined")


def graph(magics: MagicsHost, rest: list[str]) -> GraphView:
    """`%threadlab graph [TARGET]`: the definitions (or what TARGET uses) as a picture."""
    if len(rest) > 1:
        raise UsageError("usage: %threadlab graph [AGENT | PROMPT | TOOL]")
    try:
        drawn = definitions_graph(rest[0] if rest else None, registry=default_registry())
    except DefinitionError as exc:
        raise UsageError(f"%threadlab graph: {exc}") from None
    return GraphView(magics.memory.runtime, drawn)


def play(magics: MagicsHost, rest: list[str]) -> PlayerView:
    """`%threadlab play ID`: the thread's history to step through, its narration beside it."""
    if len(rest) != 1:
        raise UsageError("usage: %threadlab play THREAD_ID")
    return player(thread_named(magics, "play", rest[0]))


def models(magics: MagicsHost, rest: list[str]) -> Defined:
    lines = ["offline (built in): deterministic, no key"]
    for model in default_registry().models():
        line = f"{model.name}: {model.provider} {model.model}"
        if model.base_url:
            line += f" at {model.shown_base_url}"
        key = model.key_variable()
        if key is not None:
            # Whether a new thread will find the key, never the key itself.
            where = key_source(magics, key.name)
            line += f"; key {key.name} " + (f"set ({where})" if where else "NOT SET")
        lines.append(line)
    return Defined("\n".join(lines))


def key_source(magics: MagicsHost, name: str) -> str | None:
    if name in magics.memory.secrets:
        return "%threadlab secret"
    if name in magics.memory.env:
        return "%threadlab set"
    if os.environ.get(name):
        return "environment"
    return None
