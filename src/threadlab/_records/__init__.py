"""Plain data every layer shares: messages, events, tool results and run outcomes.

Nothing here has behaviour beyond building and (de)serialising records, and nothing here
imports the rest of threadlab, so any layer may depend on it.
"""

from ._aliases import HOOK_NAMES, HookName, SideName
from ._events import (
    ApprovalDecidedEvent,
    ApprovalRequestedEvent,
    CustomEvent,
    Event,
    FileWrittenEvent,
    MessageCreatedEvent,
    RunFinishedEvent,
    SubagentCreatedEvent,
    TextDeltaEvent,
    ThreadEvent,
    ThreadStatusEvent,
    ToolCallDeltaEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
    event_from_json,
)
from ._messages import (
    MAX_NESTING,
    Message,
    Reasoning,
    RequestEntry,
    StepRequest,
    ToolCall,
    UnfinishedCause,
    nesting_depth,
    new_id,
    unanswered_calls,
    unfinished_result,
    unfinished_text,
)
from ._runs import (
    Approval,
    ApprovalRequest,
    Budget,
    ChildInfo,
    ForkPoint,
    Run,
    RunStatus,
    SessionStatus,
    ThreadStatus,
)
from ._seen import SeenRequest, rebuild_request
from ._thread_meta import ThreadMeta
from ._tool_results import ToolResult

__all__ = [
    "HOOK_NAMES",
    "MAX_NESTING",
    "Approval",
    "ApprovalDecidedEvent",
    "ApprovalRequest",
    "ApprovalRequestedEvent",
    "Budget",
    "ChildInfo",
    "CustomEvent",
    "Event",
    "FileWrittenEvent",
    "ForkPoint",
    "HookName",
    "Message",
    "MessageCreatedEvent",
    "Reasoning",
    "RequestEntry",
    "Run",
    "RunFinishedEvent",
    "RunStatus",
    "SeenRequest",
    "SessionStatus",
    "SideName",
    "StepRequest",
    "SubagentCreatedEvent",
    "TextDeltaEvent",
    "ThreadEvent",
    "ThreadMeta",
    "ThreadStatus",
    "ThreadStatusEvent",
    "ToolCall",
    "ToolCallDeltaEvent",
    "ToolCallFinishedEvent",
    "ToolCallStartedEvent",
    "ToolResult",
    "UnfinishedCause",
    "event_from_json",
    "nesting_depth",
    "new_id",
    "rebuild_request",
    "unanswered_calls",
    "unfinished_result",
    "unfinished_text",
]
