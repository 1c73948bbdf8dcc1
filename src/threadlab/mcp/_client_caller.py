"""The MCP client that made a served call, as the caller of the tools the call runs: a tool's
`state.elicit` is a form for the client's person (elicitation, form mode), its `state.sample`
a request for the client's model (`sampling/createMessage`) — each only when the client
declared it can answer, else an error for the tool at once, never a wait.

A request for the client's model is bounded by the run's budget: refused once it is spent,
its output limit no more than what is left. The client's model reports no tokens, so nothing
is spent from the run."""

from __future__ import annotations

import dataclasses
from typing import Any

from .._data import SampledReply
from .._errors import CallContextError, ElicitationError, SamplingError, ThreadlabError
from ..execution import SPENDING
from ..threads import FormAnswer, SamplingRequest, ThreadState
from ._client_channel import ClientChannel

__all__ = ["ClientCaller"]


class ClientCaller:
    """`Caller` of the tools of one served call: the MCP client that made it."""

    def __init__(self, client: ClientChannel) -> None:
        self._client = client

    async def elicit(
        self, state: ThreadState, tool: str | None, message: str, schema: dict[str, Any]
    ) -> FormAnswer:
        self._check(self._client.asks, tool, "asks the person (state.elicit)", "elicitation")
        try:
            return await self._client.ask(message, schema)
        except ThreadlabError:
            raise
        except Exception as error:  # the client answered an error, or went away
            raise ElicitationError(f"the MCP client did not answer the form: {error}") from error

    async def sample(
        self, state: ThreadState, tool: str | None, request: SamplingRequest
    ) -> SampledReply:
        self._check(self._client.samples, tool, "asks the model (state.sample)", "sampling")
        spend = SPENDING.get()
        over = spend.over_budget() if spend is not None else None
        if over is not None:
            raise SamplingError(f"sampling refused: {over}")
        left = spend.tokens_left() if spend is not None else None
        if left is not None and left < request.max_tokens:
            request = dataclasses.replace(request, max_tokens=left)
        try:
            return await self._client.sample(request)
        except ThreadlabError:
            raise
        except Exception as error:  # the client refused it, or went away
            raise SamplingError(f"the MCP client's model did not answer: {error}") from error

    @staticmethod
    def _check(how: str | None, tool: str | None, does: str, capability: str) -> None:
        who = f"tool {tool!r}" if tool else "a hook"
        if how is None:
            raise CallContextError(
                f"{who} {does}, but the MCP client that called it cannot answer: it declared no"
                f" {capability} capability"
            )
        if how != "inline":
            raise CallContextError(
                f"{who} {does}, but the MCP client speaks a protocol (2026-07-28) on which a"
                " tool cannot ask in the middle of its call; a client on the 2025 protocols can"
                " answer it"
            )
