"""Every error threadlab raises on purpose: a `ThreadlabError`, each naming the thing at fault
and the fix. Where a builtin exception says the same thing, it is a second base, so code that
catches `LookupError` or `RuntimeError` keeps working."""

from __future__ import annotations

__all__ = [
    "CallContextError",
    "CodeOptionError",
    "DefinitionError",
    "ElicitationError",
    "MCPServerError",
    "MissingVariableError",
    "ModelError",
    "PathError",
    "ReplayDivergedError",
    "SamplingError",
    "SandboxUnavailableError",
    "SecretKeyError",
    "SecretValueError",
    "StoreError",
    "StoreURLError",
    "StoreVersionError",
    "ThreadBusyError",
    "ThreadNotFoundError",
    "ThreadlabError",
]


class ThreadlabError(Exception):
    """Base class of every error threadlab raises on purpose."""


class DefinitionError(ThreadlabError, ValueError):
    """A definition is invalid by itself, or refers to a name that is not defined."""


class MCPServerError(ThreadlabError, ConnectionError):
    """An MCP server could not be started or reached, or broke the protocol."""

    def __init__(self, message: str) -> None:
        # The SDK's words quote the URL it used: its userinfo and credential parameters go.
        from ._urls import scrub

        super().__init__(scrub(message))


class MissingVariableError(ThreadlabError):
    """Required variables that do not resolve, each with the definition that declared it.

    Examples:
        >>> print(MissingVariableError([("API_KEY", "tool 'search'")]).missing)
        [('API_KEY', "tool 'search'")]
    """

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


class ThreadNotFoundError(ThreadlabError, LookupError):
    """No thread with that id in the store."""


class CallContextError(ThreadlabError, RuntimeError):
    """A call made where it cannot work: `tl.run` inside a running event loop, `state.sync`
    on the loop's own thread, `notify_parent` on a thread that has no parent."""


class SecretValueError(ThreadlabError, ValueError):
    """A secret value that cannot be a secret: shorter than 8 characters."""


class SecretKeyError(ThreadlabError, ValueError):
    """The key that encrypts secrets at rest cannot be used (its file is empty or damaged)."""


class StoreURLError(ThreadlabError, ValueError):
    """A store was named by a URL no store understands (only postgresql:// is a URL; a
    path names a SQLite store)."""


class StoreError(ThreadlabError, OSError):
    """The store cannot be read or written: its disk is full, or its file is damaged. The
    message names the file and what to do; what was being written was not stored."""


class StoreVersionError(ThreadlabError, RuntimeError):
    """The store was written by a newer threadlab than this one."""


class ModelError(ThreadlabError, RuntimeError):
    """A model or its provider failed: rejected the key, does not know the model, answered an
    error after its retries, timed out, or streamed something that is not its protocol. The
    message says which, for a person to act on; it never holds a key."""


class ReplayDivergedError(ModelError, LookupError):
    """A `ReplayModel` was asked for a step its recording does not have, and has no fallback:
    the message says at which step and names the first difference."""


class ThreadBusyError(ThreadlabError, RuntimeError):
    """The thread is running (here or in another process) and cannot be changed now: wait for
    its run to end."""


class CodeOptionError(ThreadlabError, ValueError):
    """`state.run_code` was given options it cannot use (a language it does not run, a bridged
    name that is not an identifier, globals that are not JSON)."""


class SandboxUnavailableError(ThreadlabError, RuntimeError):
    """Code execution was asked for, but the isolation it needs is not available here."""


class ElicitationError(ThreadlabError, ValueError):
    """A form `state.elicit` cannot ask — its schema is not an object of flat fields (text,
    numbers, booleans, choices) as MCP's forms are —, or an answer that does not fit it. The
    message names the field and what is wrong with it."""


class SamplingError(ThreadlabError, RuntimeError):
    """`state.sample` got no answer: its messages cannot be sent as they are, the run's budget
    has too little left, or the caller's model (or the MCP client asking it) refused or failed.
    The message says which."""
