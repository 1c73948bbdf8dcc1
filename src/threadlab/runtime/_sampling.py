"""An MCP server's sampling request (`sampling/createMessage`), made in the middle of a call,
answered by a model threadlab chooses: the server definition's `sampling_model`, else the model
of the thread whose call it is serving (its override, else its prompt's); a tool's own
`state.sample`, outside a served call, by the thread's model the same way. The answer is spent
from that run's budget — refused once the budget is used up, its output bounded by what is
left —, counted in that run's usage and cost, and recorded as a "sampling" event of the call:
the model, its usage and cost, the text it gave.

Requests a server makes at once (several in flight in one call, or in several calls of the
run) share that budget by reservation: each holds, while it runs, its output limit and an
allowance for its input, and its output limit is what the budget has left once the requests
in flight hold theirs; done, its hold gives way to what it spent. So their total never exceeds
the budget, however many run together; one with nothing left is refused.

A server defined with `approval=` (its calls wait for a decision) has its sampling requests put
to the person too, through the runtime's elicitor (in a notebook, the call's card), with what
the model would be sent: approving the call did not show what the server would ask the model
in its course. Declined, or nobody to ask: refused, and recorded so."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from .._data import Budget, Elicitor, Message, SampledReply
from .._errors import SamplingError, ThreadlabError
from ..definitions import MCPServerDefinition, PromptDefinition, Registry
from ..execution import SPENDING, Spend, model_id
from ..mcp_client import CallScope, ask_person
from ..models import FinishChunk, Model, ModelRequest, TextChunk, step_cost
from ..threads import SamplingRequest, ThreadContext, ThreadState

__all__ = ["SamplingAnswerer"]


class SamplingHost(Protocol):
    registry: Registry
    elicitor: Elicitor | None

    def context(self, thread_id: str) -> ThreadContext: ...

    def resolve_model(self, chosen: Any, variables: Any) -> Model: ...


class Spending(Protocol):
    """What a reservation reads of a run's spend (the execution layer's `Spend`)."""

    @property
    def budget(self) -> Budget | None: ...

    @property
    def tokens(self) -> int: ...

    @property
    def parent(self) -> Spending | None: ...


class SamplingAnswerer:
    def __init__(self, host: SamplingHost) -> None:
        self._host = host
        self._held = _Holds()

    async def __call__(self, server: MCPServerDefinition, scope: CallScope, params: Any) -> Any:
        """An MCP server's `sampling/createMessage` (`params`) during the call of `scope`."""
        from mcp import types

        state = scope.state
        chosen = server.sampling_model or self._thread_model(state)
        if chosen is None:
            return _refused("no model answers it: give the server a sampling_model=")

        async def gate(model: Model, request: ModelRequest) -> str | None:
            return await self._gate(server, scope, model, request)

        answered = await self._answer(
            state, chosen, scope.context.get(SPENDING), _messages(params), int(params.max_tokens),
            gate if server.approval is not None else None,
        )  # fmt: skip
        if isinstance(answered, str):
            state.emit("sampling", {"server": server.name, "refused": answered})
            return _refused(answered)
        state.emit("sampling", {"server": server.name, "model": answered.model,
                                "usage": answered.usage, "cost_usd": answered.cost_usd,
                                "text": answered.text})  # fmt: skip
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text=answered.text),
            model=answered.model, stop_reason="endTurn",
        )  # fmt: skip

    async def for_tool(self, state: ThreadState, request: SamplingRequest) -> SampledReply:
        """A tool's own `state.sample`, outside a served call: the thread's own model answers,
        spent from the run the tool runs in (`tl.SamplingError` when it cannot)."""
        chosen = self._thread_model(state)
        if chosen is None:  # a prompt always has a model; a thread whose prompt went has not
            raise SamplingError("sampling refused: the thread's prompt is no longer defined")
        system = [Message(role="system", content=request.system)] if request.system else []
        messages = [*system, *request.messages]
        try:
            answered = await self._answer(state, chosen, SPENDING.get(), messages,
                                          request.max_tokens, None)  # fmt: skip
        except ThreadlabError as error:  # the model's own failure (a ModelError, say)
            raise SamplingError(f"sampling failed: {error}") from error
        if isinstance(answered, str):
            raise SamplingError(f"sampling refused: {answered}")
        return answered

    def _prompt(self, state: ThreadState) -> PromptDefinition | None:
        """The prompt whose tool is running in `state`, as defined now."""
        named = state.execution.prompt if state.execution is not None else None
        prompt = self._host.registry.prompt(named) if named else None
        return prompt if isinstance(prompt, PromptDefinition) else None

    def _thread_model(self, state: ThreadState) -> Any:
        """The model the thread runs its prompt with: its override, else the prompt's (None
        when neither is known)."""
        prompt = self._prompt(state)
        override = self._host.context(state.thread_id).model_override
        return override or (prompt.model if prompt is not None else None)

    async def _answer(
        self,
        state: ThreadState,
        chosen: Any,
        spend: Spend | None,
        messages: list[Message],
        asked: int,
        gate: Callable[[Model, ModelRequest], Awaitable[str | None]] | None,
    ) -> SampledReply | str:
        """The chosen model's answer, spent from `spend` under its root's budget by
        reservation; or why not (the budget, or the person at `gate`)."""
        over = spend.over_budget() if spend is not None else None
        if over is not None:
            return over
        context, prompt = self._host.context(state.thread_id), self._prompt(state)
        model = self._host.resolve_model(chosen, lambda name: context.env.resolve(name, prompt))
        granted = self._held.grant(spend, asked, _input_allowance(messages))
        if isinstance(granted, str):
            return granted
        output, held = granted
        with self._held.holding(spend, held):
            request = ModelRequest(messages=messages, max_output_tokens=output)
            if gate is not None:
                why = await gate(model, request)
                if why is not None:
                    return why
            text, usage, answered = "", None, None
            async for chunk in model.stream(request):
                if isinstance(chunk, TextChunk):
                    text += chunk.text
                elif isinstance(chunk, FinishChunk):
                    usage, answered = chunk.usage, chunk.model
            name = answered or model_id(model) or "?"
            cost = step_cost(model, usage)
            if spend is not None:  # counted before the hold ends: the two never both lapse
                spend.add_sampled(usage, cost, name)
        return SampledReply(text, name, usage, cost)

    async def _gate(
        self, server: MCPServerDefinition, scope: CallScope, model: Model, request: ModelRequest
    ) -> str | None:
        """Why the person did not let the model answer, or None when they did."""
        elicitor = self._host.elicitor
        if elicitor is None:
            return "it needs a person's approval and there is nobody to ask"
        said = "\n".join(f"{m.role}: {m.content}" for m in request.messages)
        question = (
            f"may the model {model_id(model) or '?'} answer this (up to"
            f" {request.max_output_tokens} tokens)?\n\n{said}\n\nSubmit lets it answer;"
            " Decline refuses."
        )
        action, _ = await ask_person(elicitor, server.name, scope, question, _NO_FIELDS)
        return None if action == "accept" else "the person declined it"


_NO_FIELDS = {"type": "object", "properties": {}}

# What a request's messages may take of the budget before the model says: a token is at least
# a byte of the text for the tokenizers in use, and each message adds a few of its own (role
# and separators, counted generously). An overestimate only holds budget until the request is
# done.
_TOKENS_PER_MESSAGE = 16


def _input_allowance(messages: list[Message]) -> int:
    return sum(len((m.content or "").encode()) + _TOKENS_PER_MESSAGE for m in messages) + (
        _TOKENS_PER_MESSAGE
    )


class _Holds:
    """The tokens the sampling requests in flight hold of each root run's budget (by the
    root's identity; an entry lives only while a request holds some)."""

    def __init__(self) -> None:
        self._held: dict[int, int] = {}

    def grant(self, spend: Spending | None, asked: int, allowance: int) -> tuple[int, int] | str:
        """(the request's output limit, the tokens it holds), or why it is refused: what the
        budget has left once spent and held tokens are counted cannot take its input."""
        root = _root(spend)
        if root is None or root.budget is None or root.budget.max_tokens is None:
            return asked, 0
        budget, held = root.budget.max_tokens, self._held.get(id(root), 0)
        left = budget - root.tokens - held
        output = min(asked, left - allowance)
        if output < 1:
            in_flight = f", {held:,} held by requests in flight" if held else ""
            return (
                f"the run's budget of {budget:,} tokens has {max(left, 0):,} left ({root.tokens:,}"
                f" spent{in_flight}), and this request's messages may take {allowance:,} of"
                " them: ask again once the requests in flight are answered, or raise the budget"
            )
        return output, allowance + output

    @contextmanager
    def holding(self, spend: Spending | None, tokens: int) -> Iterator[None]:
        """Hold `tokens` of the root run's budget while the request runs."""
        root = _root(spend)
        if root is None or tokens == 0:
            yield
            return
        key = id(root)
        self._held[key] = self._held.get(key, 0) + tokens
        try:
            yield
        finally:
            remaining = self._held.get(key, 0) - tokens
            if remaining > 0:
                self._held[key] = remaining
            else:
                self._held.pop(key, None)


def _root(spend: Spending | None) -> Spending | None:
    """The run whose budget bounds `spend` (the root of its runs)."""
    while spend is not None and spend.parent is not None:
        spend = spend.parent
    return spend


def _refused(why: str) -> Any:
    from mcp import types

    return types.ErrorData(code=types.INVALID_REQUEST, message=f"sampling refused: {why}")


def _messages(params: Any) -> list[Message]:
    """The server's messages as the model reads them: text as text, other content named."""
    out: list[Message] = []
    if params.system_prompt:
        out.append(Message(role="system", content=params.system_prompt))
    for sampled in params.messages:
        blocks = sampled.content if isinstance(sampled.content, list) else [sampled.content]
        said = "\n".join(
            block.text if block.type == "text" else f"[{block.type} content]" for block in blocks
        )
        out.append(Message(role=sampled.role, content=said))
    return out
