"""The decision step: a call that needs a decision gets the one on record for it, the one a
replayed recording made, or the approver's; without any the run ends "waiting" with the
request on record, and the call and the ones after it stay open for a later run.

A decision is bound to this call of this message, with these arguments: one made on another
call that had the same id does not count."""

from __future__ import annotations

from .._data import ApprovalDecidedEvent, ApprovalRequest, ApprovalRequestedEvent, ToolCall
from ._approvals import ask, claim_decision, decided_by, decision_on, pending_requests, progress_of
from ._call_step import decided
from ._capabilities import is_replaying
from ._frames import Frame
from ._running import Running
from ._steps import DecisionStep, RunStep, ToolCallStep

__all__ = ["decide"]


async def decide(scope: Running, step: DecisionStep) -> RunStep | None:
    """The call's step with its decision made, or None: the run waits for one."""
    call_step = step.call_step
    frame, call = call_step.frame, call_step.call
    context = scope.context
    message_id = frame.so_far.current_message_id
    tool = call_step.tools.get(call.name)
    request = ApprovalRequest(
        context.id, call.id, call.name, call.arguments, progress_of(tool, call), message_id
    )
    made = decision_on(context, message_id, call) or _replayed_decision(scope, frame, call)
    approver = scope.host.approver
    requested = any(
        (r.message_id, r.tool_call_id) == (message_id, call.id) for r in pending_requests(context)
    )
    if made is None and approver is not None:
        if not requested:
            _request(scope, frame, request)
            requested = True
        try:
            answer = await ask(approver, request, scope.limits.hook_timeout)
        except BaseException:
            if frame.depth:
                # A nested turn cannot be gone on with later: the request is closed with a
                # refusal, and the run's end gives the call its "interrupted" result.
                _refused_nested(scope, call_step, request, True, "the run was interrupted")
                raise
            # Interrupted while it is decided on: the request stays on record, undecided, and
            # this call and the ones after it were never started, so they stay open.
            _wait_for(scope, call, request)
            for rest in call_step.assistant.tool_calls[call_step.index :]:
                scope.state.answered(rest)
            raise
        if answer is not None:
            made = claim_decision(
                context,
                ApprovalDecidedEvent(
                    tool_call_id=call.id,
                    approved=answer.approved,
                    edited=answer.arguments is not None,
                    arguments=dict(answer.arguments) if answer.arguments is not None else None,
                    reason=answer.reason,
                    by=decided_by(approver),
                    message_id=message_id,
                    **frame.event_base(context.base()),
                ),
                in_run=True,
            )
    if made is None and frame.depth:
        return _refused_nested(scope, call_step, request, requested)
    if made is None:
        if not requested:
            _request(scope, frame, request)
        _wait_for(scope, call, request)
        return None
    if not made.approved:
        reason = made.reason
        return decided(
            call_step, call, f"rejected: {reason}" if reason else "rejected (no reason was given)"
        )
    if made.edited:
        return decided(call_step, call.model_copy(update={"arguments": made.arguments}), None)
    return decided(call_step, call, None)


def _refused_nested(
    scope: Running,
    call_step: ToolCallStep,
    request: ApprovalRequest,
    requested: bool,
    why: str | None = None,
) -> RunStep:
    """A call in a prompt tool's nested turn that needs a decision no one made: it is refused
    (it never runs undecided). A nested turn runs inside its caller's call, so it cannot end
    the run waiting and be gone on with later: only an approver decides there. A request the
    approver left undecided is closed with the refusal, so nothing waits on it."""
    frame, call = call_step.frame, call_step.call
    reason = why or (
        f"a decision is needed to run {call.name}, and a call inside a prompt tool's nested"
        " turn cannot wait for one: give the runtime an approver (tl.Runtime(approver=...),"
        f" or a notebook's live card), or let the top-level turn call {call.name}"
    )
    if requested:
        context = scope.context
        claim_decision(
            context,
            ApprovalDecidedEvent(
                tool_call_id=call.id, approved=False, reason=reason,
                by=decided_by(scope.host.approver) if scope.host.approver else "approver",
                message_id=request.message_id, **frame.event_base(context.base()),
            ),
            in_run=True,
        )  # fmt: skip
    return decided(call_step, call, f"rejected: {reason}")


def _replayed_decision(scope: Running, frame: Frame, call: ToolCall) -> ApprovalDecidedEvent | None:
    """A replayed call gets the decision the recording made on it, on record again."""
    replay = scope.context.model_override
    if not is_replaying(replay):
        return None
    recorded = replay.decision_for(call, frame.so_far.caller_view)
    if not isinstance(recorded, ApprovalDecidedEvent):
        return None
    context = scope.context
    tool = scope.definitions.registry.tool(call.name)
    message_id = frame.so_far.current_message_id
    _request(
        scope,
        frame,
        ApprovalRequest(
            context.id, call.id, call.name, call.arguments, progress_of(tool, call), message_id
        ),
    )
    place = {"type", "at", "thread_id", "thread_path", "depth", "parent_tool_call_id"}
    copied = recorded.model_dump(exclude=place | {"message_id"})
    return claim_decision(
        context,
        ApprovalDecidedEvent(**copied, message_id=message_id, **frame.event_base(context.base())),
        in_run=True,
    )


def _wait_for(scope: Running, call: ToolCall, request: ApprovalRequest) -> None:
    """The run ends "waiting" for a decision on `call`."""
    scope.state.wait(
        "waiting: approval", f"tool call {call.id} ({call.name}) waits for a decision", (request,)
    )


def _request(scope: Running, frame: Frame, request: ApprovalRequest) -> None:
    context = scope.context
    context.events.emit(
        ApprovalRequestedEvent(
            tool_call_id=request.tool_call_id,
            name=request.name,
            arguments=request.arguments,
            message_id=request.message_id,
            progress=request.progress,
            **frame.event_base(context.base()),
        )
    )
    # Stored at once: while a person decides, another process lists it as pending.
    context.events.flush()
