"""The shapes a run's top level takes: an ai_human turn (which a handoff continues under the
agent it hands to), or a dual_ai session of alternating sides up to its turn limit."""

from __future__ import annotations

from .._data import SideName, ToolResult
from ..definitions import Side
from ._frames import Frame, StepBudget
from ._running import Running
from ._tool_call import result_text

__all__ = ["ai_human", "hand_over", "other_side", "session", "session_ended", "top_frame"]


async def ai_human(scope: Running, frame: Frame, *, pause_passed: bool = False) -> None:
    """Run `frame`'s turn, and the turns handoffs lead to; `pause_passed`: the run paused
    before the turn's first model step and goes on from there."""
    while True:
        await scope.run_turn(frame, pause_passed=pause_passed)
        pause_passed = False
        handed = hand_over(scope, frame)
        if handed is None:
            return
        frame = handed


def hand_over(scope: Running, frame: Frame) -> Frame | None:
    """After a turn that handed the thread to another agent: that agent answers from now on
    (stored with the thread), and its turn is the frame returned; None for any other turn,
    or a run that stopped."""
    if frame.so_far.ending != "handoff" or frame.so_far.handed_to is None:
        return None
    if not scope.state.going:
        return None
    scope.context.identity.set_meta(answering_agent=frame.so_far.handed_to)
    scope.definitions = scope.context.refresh_definitions()
    return top_frame(scope, scope.definitions.agent.side_a, frame.turn_start, None, frame.budget)


async def session(
    scope: Running, start: int, first: SideName = "a", *, pause_passed: bool = False
) -> None:
    """Alternate the sides' turns from `first` until the session ends or runs out;
    `pause_passed` as for `ai_human`."""
    agent = scope.definitions.agent
    limit = agent.max_session_turns or scope.limits.max_session_turns
    side: SideName = first
    for _ in range(limit):
        side_config = agent.side_a if side == "a" else agent.side_b
        assert side_config is not None  # a dual_ai agent has both sides
        frame = top_frame(scope, side_config, start, side)
        await scope.run_turn(frame, pause_passed=pause_passed)
        pause_passed = False
        if not scope.state.going or session_ended(scope, frame):
            return
        side = other_side(side)
    scope.state.record(
        session_status="failed",
        result=scope.state.last_text_a,
        error=f"the session reached max_session_turns ({limit})",
    )


def session_ended(scope: Running, frame: Frame) -> bool:
    """Whether `frame`'s turn ended its dual_ai session (recorded in the outcome)."""
    if frame.so_far.ending not in ("session_stop", "session_fail"):
        return False
    result = frame.so_far.session_result or ToolResult()
    scope.state.record(
        session_status="completed" if frame.so_far.ending == "session_stop" else "failed",
        result=result_text(result),
        attachments=tuple(result.attachments),
    )
    return True


def top_frame(
    scope: Running,
    side_config: Side,
    start: int,
    side: SideName | None,
    budget: StepBudget | None = None,
) -> Frame:
    """A top-level turn of `side_config` from history index `start`."""
    return Frame(
        prompt_name=side_config.prompt,
        side_config=side_config,
        budget=budget or StepBudget(side_config.max_steps or scope.limits.max_steps),
        side=side,
        turn_start=start,
    )


def other_side(side: SideName) -> SideName:
    return "b" if side == "a" else "a"
