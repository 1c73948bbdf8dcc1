"""The API reference covers every exported name, and its error tree is the real hierarchy."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import threadlab as tl
import threadlab.store
import threadlab.testing

PAGE = (Path(__file__).parents[1] / "docs" / "reference" / "api.md").read_text()
DOCUMENTED = set(re.findall(r"^::: (threadlab(?:\.\w+)+)$", PAGE, re.M))
MODULES = {"mcp", "models", "scorers"}


def test_every_exported_name_is_in_the_reference() -> None:
    wanted = {f"threadlab.{n}" for n in tl.__all__ if n not in MODULES | {"__version__"}}
    wanted |= {"threadlab.models"}  # the models page lists tl.models' names itself
    wanted |= {f"threadlab.mcp.{n}" for n in ("serve", "MCPService")}
    wanted |= {f"threadlab.store.{n}" for n in threadlab.store.__all__} - {
        # the shipped stores and FileRecord are documented as tl.*; open_store is the Runtime's
        f"threadlab.store.{n}"
        for n in ("Store", "SQLiteStore", "PostgresStore", "FileRecord", "open_store")
    }
    wanted |= {f"threadlab.testing.{n}" for n in threadlab.testing.__all__}
    assert wanted - DOCUMENTED == set()
    assert "threadlab.evaluation.scorers" in DOCUMENTED
    assert "`tl.__version__`" in PAGE


def test_the_error_tree_is_the_class_hierarchy() -> None:
    tree = PAGE.split("```text\n", 1)[1].split("```", 1)[0]
    drawn: dict[str, tuple[str, str | None]] = {}  # name -> (drawn parent, built-in base)
    parents: list[str] = []
    for line in tree.splitlines():
        match = re.match(r"^([│├└─ ]*)(\w+)(?:\s+\((\w+)\))?", line)
        assert match is not None, line
        depth = len(match.group(1)) // 4
        parents[depth:] = [match.group(2)]
        drawn[match.group(2)] = (parents[depth - 1] if depth else "Exception", match.group(3))
    errors = {
        name: obj
        for name in tl.__all__
        if inspect.isclass(obj := getattr(tl, name)) and issubclass(obj, BaseException)
    }
    assert set(drawn) == set(errors)
    for name, error in errors.items():
        parent, builtin = drawn[name]
        bases = [b.__name__ for b in error.__bases__]
        assert bases[0] == parent, name
        assert (bases[1] if len(bases) > 1 else None) == builtin, name
