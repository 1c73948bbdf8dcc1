"""Sandboxed code execution for `state.run_code`: JavaScript and TypeScript in Deno with no
permissions, Python in a bubblewrap jail. The only way out of a sandbox is a bridged host
function. Where the isolation a language needs is missing, a run is refused with
`SandboxUnavailableError`; code is never run unsandboxed."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Literal

from .._errors import CodeOptionError
from ._code_run import Bridged, CodeRun, Plan, Redaction, on_loop
from ._deno import prepare_deno
from ._jail import prepare_jail
from ._results import CodeFailure, CodeResult, CodeStatus

__all__ = [
    "Bridged",
    "CodeFailure",
    "CodeResult",
    "CodeRun",
    "CodeStatus",
    "Language",
    "Redaction",
    "on_loop",
    "start_code_run",
]

Language = Literal["typescript", "javascript", "python"]

DEFAULT_TIMEOUT = 30.0
DEFAULT_MEMORY_MB = 256


def start_code_run(
    source: str,
    *,
    language: Language = "typescript",
    imports: Bridged | None = None,
    globals: Mapping[str, Any] | None = None,
    execute: str | Mapping[str, Any] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    memory_mb: int = DEFAULT_MEMORY_MB,
    redaction: Redaction | None = None,
    on_log: Callable[[str], None] | None = None,
) -> CodeRun:
    """Start `source` in a fresh sandbox and return its handle at once (see `CodeRun`).

    Raises `CodeOptionError` for options it cannot use and `SandboxUnavailableError` where the
    language's isolation is missing. Must be called with an event loop running.
    """
    if not isinstance(source, str):
        raise CodeOptionError(f"source must be a str, got {type(source).__name__}")
    if timeout <= 0 or memory_mb <= 0:
        raise CodeOptionError("timeout and memory_mb must be positive")
    bridged = dict(imports or {})
    names = {spec: list(functions) for spec, functions in bridged.items()}
    for spec, functions in bridged.items():
        for name, function in functions.items():
            if not callable(function):
                raise CodeOptionError(f"imports[{spec!r}][{name!r}] is not callable")
    values = dict(globals or {})
    try:
        json.dumps(values)
    except (TypeError, ValueError) as exc:
        raise CodeOptionError(f"globals must be JSON values: {exc}") from None
    plan = Plan(
        source=source,
        imports=names,
        globals=values,
        execute=_execute_plan(execute, "main" if language == "python" else "default"),
        timeout=timeout,
        memory_mb=memory_mb,
    )
    if language in ("typescript", "javascript"):
        launch = prepare_deno(plan, typescript=language == "typescript")
    elif language == "python":
        launch = prepare_jail(plan)
    else:
        raise CodeOptionError(
            f"language {language!r} is not run here: use 'typescript', 'javascript' or 'python'"
        )
    return CodeRun(
        launch, imports=bridged, timeout=timeout, redaction=redaction or Redaction(), on_log=on_log
    )


def _execute_plan(execute: str | Mapping[str, Any] | None, default: str) -> dict[str, Any]:
    if execute is None:
        return {"fn": default, "args": []}
    if isinstance(execute, str):
        return {"fn": execute, "args": []}
    fn = execute.get("fn", default)
    args = list(execute.get("args") or [])
    try:
        json.dumps(args)
    except (TypeError, ValueError) as exc:
        raise CodeOptionError(f"execute args must be JSON values: {exc}") from None
    return {"fn": str(fn), "args": args}
