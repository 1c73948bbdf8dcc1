"""Checking, at thread creation, the variables of the subagents a thread may start.

A child inherits its parent's values, except for names its own definitions declare `scoped`:
those resolve only from values given to the child (the relationship's `env`), then the child's
definitions' defaults. So a required scoped variable with no such source can never resolve:
`create_thread` reports it, naming the relationship.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from ._graph import ThreadGraph
from ._registry import Registry
from ._subagents import enabled

__all__ = ["missing_in_descendants"]

Resolve = Callable[[str], "str | None"]


def missing_in_descendants(
    registry: Registry, graph: ThreadGraph, resolve: Resolve, _seen: frozenset[str] = frozenset()
) -> list[tuple[str, str]]:
    missing: list[tuple[str, str]] = []
    for relationship in graph.relationships:
        if relationship.name in _seen or not enabled(relationship, resolve):
            continue
        child = ThreadGraph(registry, relationship.name)
        given = dict(relationship.env or {})

        def resolve_child(
            name: str, child: ThreadGraph = child, given: dict[str, str] = given
        ) -> str | None:
            if name in given:
                return given[name]
            scoped = any(d.variable.scoped for d in child.declared(name))
            if not scoped:
                inherited = resolve(name)
                if inherited:
                    return inherited
            default = child.default_value(name)
            if default is not None or scoped:
                return default
            return os.environ.get(name) if child.declared(name) else None

        for declaration in child.declarations:
            name = declaration.variable.name
            if declaration.variable.required and not resolve_child(name):
                missing.append((name, f"{declaration.declarer} in subagent {relationship.name!r}"))
        missing += missing_in_descendants(
            registry, child, resolve_child, _seen | {relationship.name}
        )
    return missing
