"""`ToolResult`: what a tool returns when it wants to say more than a value."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

__all__ = ["ToolResult"]


class ToolResult(BaseModel):
    """A success with a result, or an error with a message; both may name attachments.

    `status` may be given positionally or by keyword.

    Examples:
        >>> ToolResult("error", error="no such city").status
        'error'
        >>> ToolResult(status="success", result={"temp": 21}).result
        {'temp': 21}
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    status: Literal["success", "error"] = "success"
    """"success" or "error"."""
    result: Any = None
    """The value of a success: a str is stored verbatim, anything else as its JSON."""
    error: str | None = None
    """The message of an error, as the model will read it."""
    attachments: tuple[str, ...] = ()
    """Paths of files in the thread that go with the result."""

    def __init__(self, status: Literal["success", "error"] = "success", **data: Any) -> None:
        super().__init__(status=status, **data)
