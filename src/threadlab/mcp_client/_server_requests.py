"""What a server asks of its client in the middle of a call, and what it tells: an elicitation
(a form for the user) is answered by the runtime's elicitor — or declined, never answered with
an error dressed as a result —, a sampling request by a model the runtime chooses (the
`Sampler`), and a log message becomes a "log" event of the call — each heard live, stored
coalesced per level as progress is (`Coalesced`): a flood of them keeps a few a second and
the last, with how many were left out (`dropped`). All are recorded on the thread whose call
the server is serving.

Which call that is: the call awaiting the answer (on the 2026 protocol the question comes back
as the call's own result, in the calling task), else the only call in flight on the session. A
question that could belong to several calls at once is declined: a form must not be shown
against the wrong call, nor a log line filed there."""

from __future__ import annotations

import contextlib
import contextvars
import inspect
import logging
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from .._data import Elicitation, Elicitor
from ..threads import ThreadState, with_defaults
from ._coalesce import Coalesced

__all__ = ["CallScope", "Sampler", "ServerRequests", "ask_person", "form_refusal", "with_defaults"]

# Where a view shows what a server asks: "elicitation_asked" (live, while the call waits:
# server, message, schema, order) then "elicitation" (stored: server, message, action, answer).

log = logging.getLogger("threadlab.mcp_client")


@dataclass(frozen=True)
class CallScope:
    """One call of a server's tool, by a thread; `context`: the calling task's context
    variables as the call began (the run's spending among them), for answers given from
    the session's own task."""

    state: ThreadState
    call_id: str | None
    context: contextvars.Context = field(default_factory=contextvars.copy_context)


Sampler = Callable[[CallScope, Any], Awaitable[Any]]
"""Answers one `sampling/createMessage` (its params) made during the call: a
`CreateMessageResult`, or an `ErrorData` saying why not."""


_CALLING: contextvars.ContextVar[CallScope | None] = contextvars.ContextVar(
    "threadlab_mcp_call", default=None
)


class ServerRequests:
    """The callbacks of one session with `server`: its elicitations and log messages."""

    def __init__(
        self, server: str, elicitor: Elicitor | None, sampler: Sampler | None = None
    ) -> None:
        self._server = server
        self._elicitor = elicitor
        self._sampler = sampler
        self._in_flight: dict[int, CallScope] = {}
        self._logs: dict[int, dict[str, Coalesced]] = {}  # call -> its log levels' events

    @contextlib.contextmanager
    def calling(self, scope: CallScope) -> Iterator[None]:
        """While a call is under way: the call questions and logs belong to."""
        token = _CALLING.set(scope)
        self._in_flight[id(scope)] = scope
        try:
            yield
        finally:
            self._in_flight.pop(id(scope), None)
            for events in self._logs.pop(id(scope), {}).values():
                events.keep_last()
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
        refused = form_refusal(params.message, schema)
        if refused is not None:  # a form nobody could read, or fill in: declined unshown
            log.warning("%s's form declined unshown: %s", self._server, refused)
            self._record(scope, params.message[:_SHOWN_MESSAGE], "decline", None, refused)
            return types.ElicitResult(action="decline")
        action, answer = await ask_person(self._elicitor, self._server, scope, params.message,
                                          schema)  # fmt: skip
        if action != "accept":
            self._record(scope, params.message, action, None)
            return types.ElicitResult(action=action)
        content = with_defaults(schema, answer)
        self._record(scope, params.message, "accept", content)
        return types.ElicitResult(action="accept", content=content)

    def _record(
        self,
        scope: CallScope | None,
        message: str,
        action: str,
        content: dict[str, Any] | None,
        refused: str | None = None,
    ) -> None:
        if scope is None:
            log.warning("%s asked %r outside any one call: declined", self._server, message)
            return
        data: dict[str, Any] = {"server": self._server, "message": message, "action": action}
        if content is not None:
            data["answer"] = content
        if refused is not None:
            data["refused"] = refused
        scope.state.emit("elicitation", data)

    async def sample(self, context: Any, params: Any) -> Any:
        from mcp import types

        scope = self._scope()
        if scope is None or self._sampler is None:
            why = "no model answers it here" if self._sampler is None else (
                "it came outside any one call of the server's tools")  # fmt: skip
            return types.ErrorData(code=types.INVALID_REQUEST, message=f"sampling refused: {why}")
        try:
            return await self._sampler(scope, params)
        except Exception as exc:  # the model's failure: the server hears that, not its text
            log.warning("answering %s's sampling request failed: %s", self._server, exc)
            said = f"sampling failed: the model could not answer ({type(exc).__name__})"
            return types.ErrorData(code=types.INTERNAL_ERROR, message=said)

    async def logged(self, params: Any) -> None:
        scope = self._scope()
        if scope is None:
            log.info("%s: %s", self._server, params.data)
            return
        data = {"level": params.level, "message": params.data}
        if params.logger:
            data["logger"] = params.logger
        if id(scope) not in self._in_flight:  # heard after its call ended: nothing to coalesce
            scope.state.emit("log", data)
            return
        # Per level, so that a flood of debug lines does not leave a warning unstored.
        levels = self._logs.setdefault(id(scope), {})
        events = levels.get(str(params.level))
        if events is None:
            events = levels[str(params.level)] = Coalesced(scope.state, "log", "dropped")
        events(data)


async def ask_person(
    elicitor: Elicitor,
    server: str,
    scope: CallScope,
    message: str,
    schema: Mapping[str, Any],
) -> tuple[Literal["accept", "decline", "cancel"], Mapping[str, Any]]:
    """Put `server`'s question to the person through `elicitor`, shown on the call of `scope`:
    ("accept", their answer), ("decline", {}), or ("cancel", {}) when the elicitor itself
    failed."""
    asked = Elicitation(server, message, dict(schema), scope.state.thread_id, scope.call_id)
    # Live only, for a view to show the form while the call waits; the answer is stored by
    # the caller. `order`: the fields as the server listed them (an object's keys may be
    # sorted on the way to the view).
    order = list((schema.get("properties") or {}).keys())
    scope.state.emit("elicitation_asked", {"server": server, "message": message,
                                           "schema": dict(schema), "order": order},
                     stored=False)  # fmt: skip
    try:
        answer = elicitor(asked)
        if inspect.isawaitable(answer):
            answer = await answer
    except Exception as exc:  # the elicitor's own failure: the server hears "cancel"
        log.warning("the elicitor failed on %s's question: %s", server, exc)
        return ("cancel", {})
    return ("decline", {}) if answer is None else ("accept", answer)


# What a person is shown at most: the protocol bounds none of it, and a server that sends a
# book of a message or a thousand fields gets no form drawn for it.
_SHOWN_MESSAGE = 4000
_FIELDS = 50
_FIELD_TEXT = 1000
_CHOICES = 100
_FIELD_TYPES = frozenset({"string", "number", "integer", "boolean", "array"})


def form_refusal(message: str, schema: Mapping[str, Any]) -> str | None:
    """Why a server's form is not shown to anyone (None: it is shown): MCP's forms are flat
    objects of strings, numbers, booleans and choices; beyond that, or beyond what a person
    reads, it is declined."""
    if len(message) > _SHOWN_MESSAGE:
        return f"its message is {len(message)} characters (at most {_SHOWN_MESSAGE} are shown)"
    fields = schema.get("properties") or {}
    if schema.get("type", "object") != "object" or not isinstance(fields, Mapping):
        return "its schema is not an object of fields"
    if len(fields) > _FIELDS:
        return f"it has {len(fields)} fields (at most {_FIELDS} are shown)"
    for name, spec in fields.items():
        if not isinstance(spec, Mapping) or spec.get("type") not in _FIELD_TYPES:
            return f"field {str(name)[:80]!r} is not a string, number, boolean or choice"
        words = [str(name), str(spec.get("title", "")), str(spec.get("description", ""))]
        if max(map(len, words)) > _FIELD_TEXT:
            return f"field {str(name)[:80]!r} has a name or text over {_FIELD_TEXT} characters"
        items = spec.get("items")
        choices = [*spec.get("enum", ()), *spec.get("oneOf", ()),
                   *(items.get("enum", ()) if isinstance(items, Mapping) else ()),
                   *(items.get("anyOf", ()) if isinstance(items, Mapping) else ())]  # fmt: skip
        if len(choices) > _CHOICES:
            return f"field {str(name)[:80]!r} offers {len(choices)} choices (at most {_CHOICES})"
    return None
