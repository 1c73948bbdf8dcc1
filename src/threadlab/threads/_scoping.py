"""Checking, at thread creation, the variables of the subagents a thread may start.

A child inherits its parent's values, except for names its own definitions declare `scoped`:
those resolve only from values given to the child (the relationship's `env`), then the child's
definitions' defaults. So a required scoped variable with no such source can never resolve:
`create_thread` reports it, naming the relationship.
"""

from __future__ import annotations

from ..definitions import (
    Registry,
    Resolve,
    ThreadDefinitions,
    relationship_enabled,
    resolve_variable,
)

__all__ = ["missing_in_descendants"]


def missing_in_descendants(
    registry: Registry,
    definitions: ThreadDefinitions,
    resolve: Resolve,
    _seen: frozenset[str] = frozenset(),
) -> list[tuple[str, str]]:
    """Required variables of the subagents `definitions` may start (and theirs, recursively) that
    can never resolve, each with its declarer and relationship."""
    missing: list[tuple[str, str]] = []
    for relationship in definitions.relationships:
        if relationship.name in _seen or not relationship_enabled(relationship, resolve):
            continue
        child = ThreadDefinitions(registry, relationship.name)
        given = dict(relationship.env or {})

        def resolve_child(
            name: str,
            tool: str | None = None,
            child: ThreadDefinitions = child,
            given: dict[str, str] = given,
        ) -> str | None:
            return resolve_variable(child, name, own=given, inherited=resolve, tool=tool)

        for declaration in child.declarations:
            name = declaration.variable.name
            if declaration.variable.required and not resolve_child(name, declaration.tool):
                missing.append((name, f"{declaration.declarer} in subagent {relationship.name!r}"))
        missing += missing_in_descendants(
            registry, child, resolve_child, _seen | {relationship.name}
        )
    return missing
