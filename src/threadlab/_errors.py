"""Exceptions a user can cause, each naming the thing at fault and the fix."""

from __future__ import annotations

__all__ = [
    "DefinitionError",
    "MissingVariableError",
    "PathError",
    "SandboxUnavailableError",
    "ThreadlabError",
]


class ThreadlabError(Exception):
    """Base class of every error threadlab raises on purpose."""


class DefinitionError(ThreadlabError, ValueError):
    """A definition is invalid by itself, or refers to a name that is not defined."""


class MissingVariableError(ThreadlabError):
    """Required variables that do not resolve, each with the definition that declared it."""

    def __init__(self, missing: list[tuple[str, str]]) -> None:
        self.missing = list(missing)
        lines = [f"  {name} (declared by {declarer})" for name, declarer in self.missing]
        names = ", ".join(sorted({name for name, _ in self.missing}))
        super().__init__(
            f"required variables have no value: {names}\n"
            + "\n".join(lines)
            + "\nGive them with env=/secrets= when creating the thread, set them in the"
            " process environment, or declare a default."
        )


class PathError(ThreadlabError, ValueError):
    """A thread filesystem path that is invalid, or that does not exist in that thread."""


class SandboxUnavailableError(ThreadlabError, RuntimeError):
    """Code execution was asked for, but the isolation it needs is not available here."""
