"""The runtime as the caller of its tools, outside a served call: `state.elicit` asks the
runtime's elicitor (in a notebook, the form in the call's card), and `state.sample` is
answered by the thread's own model, spent from the run."""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Protocol

from .._data import Elicitation, Elicitor, SampledReply
from .._errors import CallContextError, ElicitationError
from ..threads import FormAnswer, SamplingRequest, ThreadState

__all__ = ["RuntimeCaller"]


class ToolSampler(Protocol):
    async def for_tool(self, state: ThreadState, request: SamplingRequest) -> SampledReply: ...


class AskingHost(Protocol):
    @property
    def elicitor(self) -> Elicitor | None: ...


class RuntimeCaller:
    """`Caller` of the runtime's tools: its elicitor, and the thread's own model."""

    def __init__(self, host: AskingHost, sampler: ToolSampler) -> None:
        self._host = host
        self._sampler = sampler

    async def elicit(
        self, state: ThreadState, tool: str | None, message: str, schema: dict[str, Any]
    ) -> FormAnswer:
        elicitor = self._host.elicitor
        if elicitor is None:
            raise CallContextError(
                f"{_who(tool)} asks the person (state.elicit), and nobody can be asked: give the"
                " runtime an elicitor (tl.Runtime(elicitor=...): it gets a tl.Elicitation and"
                " returns the answer, or None to decline), or serve the tool with tl.mcp.serve"
                " to a client that answers forms"
            )
        call_id = state.execution.tool_call_id if state.execution is not None else None
        answer = elicitor(Elicitation("", message, schema, state.thread_id, call_id, tool))
        if inspect.isawaitable(answer):
            answer = await answer
        if answer is None:
            return "decline", {}
        if not isinstance(answer, Mapping):
            raise ElicitationError(
                f"the elicitor answered {type(answer).__name__}: an answer is a dict of the"
                " form's fields, or None to decline"
            )
        return "accept", dict(answer)

    async def sample(
        self, state: ThreadState, tool: str | None, request: SamplingRequest
    ) -> SampledReply:
        return await self._sampler.for_tool(state, request)


def _who(tool: str | None) -> str:
    return f"tool {tool!r}" if tool else "a hook"
