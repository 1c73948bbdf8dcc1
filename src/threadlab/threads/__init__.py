"""One thread's state: its context (identity, relationships, env) with its history (messages
and events), inbox and files, the `ThreadState` tools see, secrets and redaction, and the
leases running runs hold; what a tool asks its caller (forms, sampling requests).

Internal: the public names are re-exported by `threadlab`.
"""

from ._asking import DEFAULT_MAX_TOKENS, FormAnswer, SamplingRequest
from ._attachments import as_paths, check_copy, copy_attachments
from ._context import ThreadContext, ThreadDirectory
from ._env import ThreadEnv, VariableType
from ._files import ThreadFiles
from ._forms import check_answer, check_form, with_defaults
from ._history import ThreadHistory
from ._identity import ThreadIdentity
from ._inbox import ThreadInbox
from ._lease import HOST_NAME, RunLeases, is_live, new_lease, process_started_at
from ._paths import normalize_path, normalize_prefix
from ._reader import ThreadHandle, ThreadReader
from ._redaction import MIN_SECRET_LENGTH, Redactor, StreamRedaction
from ._scoping import missing_in_descendants
from ._secret_box import KEY_ENV, SecretBox
from ._sink import Emit, EventSink, EventT, Listener, ThreadEvents
from ._state import CALLER, Caller, ExecutionInfo, SyncState, ThreadState

__all__ = [
    "CALLER",
    "DEFAULT_MAX_TOKENS",
    "HOST_NAME",
    "KEY_ENV",
    "MIN_SECRET_LENGTH",
    "Caller",
    "Emit",
    "EventSink",
    "EventT",
    "ExecutionInfo",
    "FormAnswer",
    "Listener",
    "Redactor",
    "RunLeases",
    "SamplingRequest",
    "SecretBox",
    "StreamRedaction",
    "SyncState",
    "ThreadContext",
    "ThreadDirectory",
    "ThreadEnv",
    "ThreadEvents",
    "ThreadFiles",
    "ThreadHandle",
    "ThreadHistory",
    "ThreadIdentity",
    "ThreadInbox",
    "ThreadReader",
    "ThreadState",
    "VariableType",
    "as_paths",
    "check_answer",
    "check_copy",
    "check_form",
    "copy_attachments",
    "is_live",
    "missing_in_descendants",
    "new_lease",
    "normalize_path",
    "normalize_prefix",
    "process_started_at",
    "with_defaults",
]
