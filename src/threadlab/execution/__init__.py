"""Running threads: one run from its lease to its outcome, the step loop, streaming and the
argument scanner, the model's input, hooks, one tool call, the runtime tools (prompts and
agents exposed as tools, the lifecycle tools), and subagents.

Internal machinery, not public surface: `threadlab.Runtime` and `threadlab.Thread` are the way
in. Nothing here imports the runtime; it is written against `RunHost`.
"""

from ._approvals import Approver, claim_decision, pending_requests
from ._capabilities import model_id
from ._fork import fork_point, fork_tree, give_result, given_result
from ._host import Limits, RunHost
from ._model_choice import ModelResolver
from ._prompting import render_system
from ._repair import repair
from ._reports import deliver_report, report_failure
from ._runner import (
    execute_run,
    fail_queued,
    fail_unstarted,
    needs_a_step,
    resume_child,
    resume_run,
    run_queued,
)
from ._scanner import ArgumentScanner
from ._snapshot import ChildThen, HistoryPoint, Snapshot, history_points, place_of, snapshot
from ._spending import SPENDING, Spend
from ._step_feed import StepFeed
from ._step_reading import StepReader, call_step_ids, read_steps
from ._stepping import NO_STEPPING, Follower, StepOption, Stepping
from ._subagents import child_outcome
from ._tool_specs import ToolSpecCache

__all__ = [
    "NO_STEPPING",
    "SPENDING",
    "Approver",
    "ArgumentScanner",
    "ChildThen",
    "Follower",
    "HistoryPoint",
    "Limits",
    "ModelResolver",
    "RunHost",
    "Snapshot",
    "Spend",
    "StepFeed",
    "StepOption",
    "StepReader",
    "Stepping",
    "ToolSpecCache",
    "call_step_ids",
    "child_outcome",
    "claim_decision",
    "deliver_report",
    "execute_run",
    "fail_queued",
    "fail_unstarted",
    "fork_point",
    "fork_tree",
    "give_result",
    "given_result",
    "history_points",
    "model_id",
    "needs_a_step",
    "pending_requests",
    "place_of",
    "read_steps",
    "render_system",
    "repair",
    "report_failure",
    "resume_child",
    "resume_run",
    "run_queued",
    "snapshot",
]
