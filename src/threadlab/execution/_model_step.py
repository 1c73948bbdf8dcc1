"""The model step: the stop checks before it, the model's input (system text, earlier turns,
the filtering hooks), the request, the stream, and the assistant message persisted with its
calls before any of them runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._data import Message, SeenRequest, ToolCallStartedEvent, is_text
from .._errors import ReplayDivergedError
from ..definitions import PromptDefinition, ToolDefinition
from ..models import ModelRequest, provider_name, step_cost
from ..threads import ThreadState
from ._capabilities import is_model, model_id, model_options
from ._exposed_tools import tools_for
from ._frames import Frame
from ._hooks import HookRunner, is_message_list
from ._prompting import MessageWindow, earlier_messages, render_system, side_view
from ._running import Running
from ._steps import ModelStep, RunStep, ToolCallStep
from ._streaming import collect_stream

__all__ = ["call_model"]


async def call_model(scope: Running, step: ModelStep) -> RunStep | None:
    """Take the thread's queue, check the limits, call the model; the step of its first call,
    another model step (a side that does not stop on an answer), or None: the turn is over."""
    frame, state = step.frame, scope.state
    if frame.depth == 0:
        for queued in scope.context.inbox.take_all():
            # Messages to a dual_ai thread are addressed to side A.
            await scope.commit(frame, queued, side="a" if frame.dual else None)
    if frame.budget.used >= frame.budget.limit:
        state.stop(
            "stopped: max_steps", f"the turn reached max_steps ({frame.budget.limit}) model calls"
        )
        return None
    over = state.spend.over_budget()
    if over is not None:
        state.stop("stopped: budget", over)
        return None
    prompt = scope.prompt_for(frame)
    hooks = scope.hooks_for(prompt)
    tools = tools_for(scope, frame, prompt)
    if frame.depth == 0 and scope.stepping.model and not step.pause_passed:
        await _pause(scope, frame, prompt, hooks, tools)
        return None
    if frame.depth == 0 and not await scope.stepping.may_go_on():
        await _pause(scope, frame, prompt, hooks, tools)  # its caller stopped following it
        return None
    frame.budget.used += 1
    assistant = await _ask(scope, frame, prompt, hooks, tools)
    if assistant is None:
        return None
    if assistant.content:
        frame.so_far.last_text = assistant.content
        if frame.depth == 0:
            state.record(text=assistant.content)
            if frame.side == "a":
                state.last_text_a = assistant.content
    if not assistant.tool_calls:
        return None if frame.side_config.stop_on_response else ModelStep(frame)
    return ToolCallStep(frame, assistant, 0, prompt, hooks, tools)


async def _pause(
    scope: Running,
    frame: Frame,
    prompt: PromptDefinition,
    hooks: HookRunner,
    tools: dict[str, ToolDefinition],
) -> None:
    """Step mode: the run ends "waiting" before this model step, with the request it is about
    to send (redacted: a system prompt may hold a secret's value) on the outcome; the thread
    remembers the pause (its run ends "waiting: model step"), so a resume (in this process or
    after a restart) sends it."""
    context = scope.context
    request = await _request(scope, frame, prompt, hooks, tools, scope.state_for(frame, prompt))
    try:
        chosen = _model_choice(scope, prompt, frame)
        model = scope.host.resolve_model(chosen, lambda n: context.env.resolve(n, prompt))
        options = dict(model_options(model))
    except Exception:  # the step itself will say what is wrong with the model, when it runs
        options = {}
    said = [
        m.model_copy(update={"content": context.redact(m.content)}) if m.content else m
        for m in request.messages
    ]
    offered = [
        {"name": t.name, "description": t.description, "parameters": t.parameters}
        for t in request.tools
    ]
    seen = SeenRequest(said, offered, request.tool_choice, request.parallel_tool_calls, options)
    scope.state.pause_before_model(seen)


async def _request(
    scope: Running,
    frame: Frame,
    prompt: PromptDefinition,
    hooks: HookRunner,
    tools: dict[str, ToolDefinition],
    thread_state: ThreadState,
) -> ModelRequest:
    """What the model is sent at this step: the system text, the turn's input after the
    filtering hooks, the tools and options."""
    context, state = scope.context, scope.state
    env = context.env
    system = render_system(
        prompt, scope.definitions.registry, lambda n: env.resolve(n, prompt), env.type_of
    )
    head = [scope.system_message(system)] if system else []
    model_input: Sequence[Message] = _model_input(scope, frame, prompt, head)
    if hooks.has("filter_messages"):
        filtered = await hooks.run(
            "filter_messages",
            thread_state,
            list(model_input[len(head) :]),
            transform=True,
            expect=is_message_list,
        )
        model_input = head + list(filtered)
    if hooks.has("prefilter_llm_history"):
        model_input = list(
            await hooks.run(
                "prefilter_llm_history",
                thread_state,
                list(model_input),
                transform=True,
                expect=is_message_list,
            )
        )
    frame.so_far.caller_view = model_input
    return ModelRequest(
        messages=model_input,
        tools=[scope.spec_for(t, frame) for t in tools.values()],
        tool_choice=prompt.tool_choice,
        parallel_tool_calls=prompt.parallel_tool_calls,
        max_output_tokens=state.spend.tokens_left(),
    )


async def _ask(
    scope: Running,
    frame: Frame,
    prompt: PromptDefinition,
    hooks: HookRunner,
    tools: dict[str, ToolDefinition],
) -> Message | None:
    """The model's answer, persisted (None when the model failed: the turn ends)."""
    context, state = scope.context, scope.state
    env = context.env
    thread_state = scope.state_for(frame, prompt)
    request = await _request(scope, frame, prompt, hooks, tools, thread_state)
    base = frame.event_base(context.base())

    async def on_started(event: ToolCallStartedEvent) -> None:
        if hooks.has("tool_call_started"):
            await hooks.run("tool_call_started", thread_state, event)

    chosen = _model_choice(scope, prompt, frame)
    try:
        model = scope.host.resolve_model(chosen, lambda name: env.resolve(name, prompt))
        sent = scope.requests.record(frame, request, dict(model_options(model)))
        draft = await collect_stream(
            model.stream(request),
            tools,
            context.events.emit,
            on_started,
            base,
            context.redactor,
            live=context.events.listening,
            taken=context.history.call_ids(),
        )
    except Exception as exc:  # provider and model failures end the turn, never the cell
        said = (
            str(exc)
            if isinstance(exc, ReplayDivergedError)
            else f"model {_choice_name(chosen)!r} failed: {exc}"
        )
        frame.so_far.error = context.redact(said)
        if frame.depth == 0:
            state.fail(frame.so_far.error)
        return None
    if draft.usage:
        total = dict(state.outcome.usage or {})
        for key, value in draft.usage.items():
            total[key] = total.get(key, 0) + value
        state.record(usage=total)
    answered_by = draft.model or model_id(model)
    cost = step_cost(model, draft.usage)
    state.spend.add(draft.usage, cost, answered_by or "?")
    text = draft.text if is_text(draft.text) else _as_text(draft.text)
    assistant = Message(
        role="assistant",
        content=text or None,
        tool_calls=tuple(draft.calls),
        reasoning=draft.reasoning,
        usage=draft.usage,
        model=answered_by,
        provider=provider_name(model),
        cost_usd=cost,
        request=sent,
        response_id=draft.response_id,
    )
    assistant = await scope.commit(frame, assistant, hooks, thread_state)
    scope.requests.sent(frame, assistant.id)
    state.opened(frame, assistant.tool_calls)
    frame.so_far.current_message_id = assistant.id
    return assistant


def _model_choice(scope: Running, prompt: PromptDefinition, frame: Frame) -> Any:
    # An override replaces the model of the thread's own prompts (its sides); a prompt
    # tool's nested turn keeps the model its prompt declares.
    override = scope.context.model_override
    return override if override is not None and frame.depth == 0 else prompt.model


def _choice_name(chosen: Any) -> Any:
    """A model choice as an error names it: a name as given, a model object by its name."""
    return chosen.name if is_model(chosen) else chosen


def _model_input(
    scope: Running, frame: Frame, prompt: PromptDefinition, head: list[Message]
) -> Sequence[Message]:
    """The messages the model is sent at this step, after `head` (the system text)."""
    history = scope.context.history.top
    if frame.so_far.nested is not None:
        earlier = earlier_messages(
            frame.caller_messages, prompt.include_chat, prompt.include_past_tools
        )
        return head + earlier + frame.so_far.nested
    if frame.dual:
        return head + side_view(history, frame.turn_start, frame.side or "a")
    if frame.so_far.earlier is None:
        frame.so_far.earlier = earlier_messages(
            history[: frame.turn_start], prompt.include_chat, prompt.include_past_tools
        )
    # A window, not a copy: long turns would otherwise copy the history at every step.
    return MessageWindow(head + frame.so_far.earlier, history, frame.turn_start)


def _as_text(text: str) -> str:
    """A model's text with each lone surrogate (which no store or provider takes) replaced
    by U+FFFD, the replacement character."""
    return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
