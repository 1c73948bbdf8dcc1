"""One thread's state: its context (history, events, env, files, relationships), the
`ThreadState` tools see, secrets and redaction, and the lease a running run holds.

Internal: the public names are re-exported by `threadlab`.
"""

from ._attachments import as_paths, check_copy, copy_attachments
from ._context import ThreadContext, ThreadDirectory, ThreadHandle
from ._env import ThreadEnv, VariableType
from ._files import ThreadFiles
from ._lease import HOST_NAME, LIVE_RUNS, heartbeat_task, is_live, new_lease, process_started_at
from ._paths import normalize_path, normalize_prefix
from ._redaction import MIN_SECRET_LENGTH, Redactor, StreamRedaction
from ._scoping import missing_in_descendants
from ._secret_box import SecretBox
from ._sink import Emit, EventSink, EventT, Listener
from ._state import ExecutionInfo, SyncState, ThreadState

__all__ = [
    "HOST_NAME",
    "LIVE_RUNS",
    "MIN_SECRET_LENGTH",
    "Emit",
    "EventSink",
    "EventT",
    "ExecutionInfo",
    "Listener",
    "Redactor",
    "SecretBox",
    "StreamRedaction",
    "SyncState",
    "ThreadContext",
    "ThreadDirectory",
    "ThreadEnv",
    "ThreadFiles",
    "ThreadHandle",
    "ThreadState",
    "VariableType",
    "as_paths",
    "check_copy",
    "copy_attachments",
    "heartbeat_task",
    "is_live",
    "missing_in_descendants",
    "new_lease",
    "normalize_path",
    "normalize_prefix",
    "process_started_at",
]
