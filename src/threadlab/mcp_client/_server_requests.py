"""What a server asks of its client in the middle of a call, and what it tells: an elicitation
(a form for the user) is answered by the runtime's elicitor — or declined, never answered with
an error dressed as a result — and a log message becomes a "log" event of the call. Both are
recorded on the thread whose call the server is serving.

Which call that is: the call awaiting the answer (on the 2026 protocol the question comes back
as the call's own result, in the calling task), else the only call in flight on the session. A
question that could belong to several calls at once is declined: a form must not be shown
against the wrong call, nor a log line filed there."""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from .._data import Elicitation, Elicitor
from ..threads import ThreadState

__all__ = ["CallScope", "ServerRequests", "with_defaults"]

log = logging.getLogger("threadlab.mcp_client")


@dataclass(frozen=True)
class CallScope:
    """One call of a server's tool, by a thread."""

    state: ThreadState
    call_id: str | None


_CALLING: contextvars.ContextVar[CallScope | None] = contextvars.ContextVar(
    "threadlab_mcp_call", default=None
)


class ServerRequests:
    """The callbacks of one session with `server`: its elicitations and log messages."""

    def __init__(self, server: str, elicitor: Elicitor | None) -> None:
        self._server = server
        self._elicitor = elicitor
        self._in_flight: dict[int, CallScope] = {}

    @contextlib.contextmanager
    def calling(self, scope: CallScope) -> Iterator[None]:
        """While a call is under way: the call questions and logs belong to."""
        token = _CALLING.set(scope)
        self._in_flight[id(scope)] = scope
        try:
            yield
        finally:
            self._in_flight.pop(id(scope), None)
            _CALLING.reset(token)

    def _scope(self) -> CallScope | None:
        current = _CALLING.get()
        if current is not None:
            return current
        if len(self._in_flight) == 1:
            return next(iter(self._in_flight.values()))
        return None

    async def elicit(self, context: Any, params: Any) -> Any:
        from mcp import types

        scope = self._scope()
        schema = dict(getattr(params, "requested_schema", None) or {})
        if getattr(params, "mode", "form") == "url" or scope is None or self._elicitor is None:
            # no form to show (a URL to visit is not offered), no call to show it on, or
            # nobody to ask: declined
            self._record(scope, params.message, "decline", None)
            return types.ElicitResult(action="decline")
        asked = Elicitation(self._server, params.message, schema, scope.state.thread_id,
                            scope.call_id)  # fmt: skip
        try:
            answer = self._elicitor(asked)
            if inspect.isawaitable(answer):
                answer = await answer
        except Exception as exc:  # the elicitor's own failure: the server hears "cancel"
            log.warning("the elicitor failed on %s's question: %s", self._server, exc)
            self._record(scope, params.message, "cancel", None)
            return types.ElicitResult(action="cancel")
        if answer is None:
            self._record(scope, params.message, "decline", None)
            return types.ElicitResult(action="decline")
        content = with_defaults(schema, answer)
        self._record(scope, params.message, "accept", content)
        return types.ElicitResult(action="accept", content=content)

    def _record(
        self, scope: CallScope | None, message: str, action: str, content: dict[str, Any] | None
    ) -> None:
        if scope is None:
            log.warning("%s asked %r outside any one call: declined", self._server, message)
            return
        data: dict[str, Any] = {"server": self._server, "message": message, "action": action}
        if content is not None:
            data["answer"] = content
        scope.state.emit("elicitation", data)

    async def logged(self, params: Any) -> None:
        scope = self._scope()
        if scope is None:
            log.info("%s: %s", self._server, params.data)
            return
        data = {"level": params.level, "message": params.data}
        if params.logger:
            data["logger"] = params.logger
        scope.state.emit("log", data)


def with_defaults(schema: Mapping[str, Any], answer: Mapping[str, Any]) -> dict[str, Any]:
    """The answer, with each field it leaves out that the schema gives a default for filled
    with that default (SEP-1034: the server gets what the person saw)."""
    content = dict(answer)
    for name, field in (schema.get("properties") or {}).items():
        if name not in content and isinstance(field, Mapping) and "default" in field:
            content[name] = field["default"]
    return content
