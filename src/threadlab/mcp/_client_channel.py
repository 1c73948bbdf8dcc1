"""What a served call may say to the MCP client that made it, while it runs: progress, log
messages (at the level the client set), and — when the client can answer — a form for a person
(elicitation) or a request for its model (sampling). Written against this small surface, the
calls do not depend on the SDK's request context."""

from __future__ import annotations

import contextlib
import warnings
from typing import Any, Literal, Protocol

from .._data import SampledReply
from ..threads import SamplingRequest

__all__ = [
    "LOG_LEVELS",
    "Asks",
    "ClientChannel",
    "FormAnswer",
    "RequestChannel",
    "log_level",
    "session_id",
]

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
_ALIASES = {"warn": "warning", "fatal": "critical", "trace": "debug"}


def log_level(value: object) -> str:
    """An MCP log level from what a tool said ("warn", "INFO", …); "info" when unknown."""
    name = str(value).lower() if value is not None else "info"
    name = _ALIASES.get(name, name)
    return name if name in LOG_LEVELS else "info"


FormAnswer = tuple[Literal["accept", "decline", "cancel"], dict[str, Any]]
Asks = Literal["inline", "again"] | None


class ClientChannel(Protocol):
    async def progress(self, done: float, total: float | None, message: str | None) -> None: ...

    async def log(self, level: str, data: Any, logger: str) -> None: ...

    @property
    def asks(self) -> Asks:
        """How the client answers a form for its person: "inline" (a request while the call
        runs), "again" (the call returns the forms and the client makes it again with the
        answers: the 2026-07-28 protocol), or None (it does not answer forms)."""
        ...

    async def ask(self, message: str, schema: dict[str, Any]) -> FormAnswer: ...

    @property
    def samples(self) -> Asks:
        """How the client answers a request for its model, as `asks` says of forms (None: it
        declared no sampling)."""
        ...

    async def sample(self, request: SamplingRequest) -> SampledReply:
        """The client's model's answer (the SDK's `MCPError` when the client refuses)."""
        ...


class RequestChannel:
    """The client of one `tools/call` request, over the SDK's request context. Log messages
    below the level the client set for its session (`minimum`) are not sent."""

    def __init__(self, ctx: Any, minimum: str) -> None:
        self._ctx = ctx
        self._minimum = LOG_LEVELS.index(minimum) if minimum in LOG_LEVELS else 1

    async def progress(self, done: float, total: float | None, message: str | None) -> None:
        with contextlib.suppress(Exception):  # a client that went away
            await self._ctx.session.report_progress(done, total, message)

    async def log(self, level: str, data: Any, logger: str) -> None:
        if LOG_LEVELS.index(level) < self._minimum:
            return
        with contextlib.suppress(Exception), warnings.catch_warnings():
            # deprecated from the 2026-07-28 protocol on, where the SDK drops what the request
            # did not opt in to; the 2025 protocols' clients read them
            warnings.simplefilter("ignore")
            await self._ctx.session.send_log_message(
                level, data, logger=logger, related_request_id=self._ctx.request_id
            )

    @property
    def asks(self) -> Asks:
        session = self._ctx.session
        capabilities = session.client_capabilities
        if capabilities is None or capabilities.elicitation is None:
            return None
        return "inline" if session.can_send_request else "again"

    async def ask(self, message: str, schema: dict[str, Any]) -> FormAnswer:
        answer = await self._ctx.session.elicit_form(
            message, schema, related_request_id=self._ctx.request_id
        )
        return answer.action, dict(answer.content or {})

    @property
    def samples(self) -> Asks:
        session = self._ctx.session
        capabilities = session.client_capabilities
        if capabilities is None or capabilities.sampling is None:
            return None
        return "inline" if session.can_send_request else "again"

    async def sample(self, request: SamplingRequest) -> SampledReply:
        from mcp import types

        messages = [
            types.SamplingMessage(
                role="assistant" if m.role == "assistant" else "user",
                content=types.TextContent(type="text", text=m.content or ""),
            )
            for m in request.messages
        ]
        with warnings.catch_warnings():
            # deprecated from the 2026-07-28 protocol on; the 2025 protocols' clients answer it
            warnings.simplefilter("ignore")
            result = await self._ctx.session.create_message(
                messages, max_tokens=request.max_tokens, system_prompt=request.system,
                related_request_id=self._ctx.request_id,
            )  # fmt: skip
        blocks = result.content if isinstance(result.content, list) else [result.content]
        text = "\n".join(
            block.text if block.type == "text" else f"[{block.type} content]" for block in blocks
        )
        return SampledReply(text, result.model, stop_reason=result.stop_reason)


def session_id(ctx: Any) -> str:
    """The MCP session a request belongs to (its `mcp-session-id` header)."""
    request = getattr(ctx, "request", None)
    headers = getattr(request, "headers", None)
    return str(headers.get("mcp-session-id", "")) if headers is not None else ""
