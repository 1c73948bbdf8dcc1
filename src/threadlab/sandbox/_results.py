"""What a run of `state.run_code` ends with."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["CodeFailure", "CodeResult", "CodeStatus"]

CodeStatus = Literal["success", "error", "timeout", "terminated", "memory"]
"""How a run ended: "success"; "error" (the code raised, or the result was not JSON);
"timeout" (the wall-clock or CPU limit); "terminated" (`CodeRun.terminate()`); "memory" (the
memory cap)."""


class CodeFailure(BaseModel):
    """Why a run did not succeed."""

    model_config = ConfigDict(frozen=True)
    name: str
    """The error's type, e.g. "TypeError", or "Timeout" for the sandbox's own verdicts."""
    message: str
    """What went wrong, in words (secrets redacted)."""
    location: str | None = None
    """Where in the code, e.g. "line 3, column 7", when known."""


class CodeResult(BaseModel):
    """The outcome of one `state.run_code` run.

    Examples:
        >>> CodeResult(status="success", result=42, duration_ms=12.5).result
        42
    """

    model_config = ConfigDict(frozen=True)
    status: CodeStatus
    """How the run ended."""
    result: Any = None
    """The exported (JS/TS) or returned (Python) value, JSON-decoded; None unless success."""
    logs: list[str] = Field(default_factory=list)
    """What the code printed or logged, one entry a line (bounded, secrets redacted)."""
    reports: list[Any] = Field(default_factory=list)
    """Values the code sent with `report(value)`, in order."""
    error: CodeFailure | None = None
    """Why it did not succeed."""
    duration_ms: float = 0.0
    """Wall-clock time from start to end."""
