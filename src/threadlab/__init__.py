"""threadlab: the Standard Agent Specification's tools model, in Python and Jupyter.

Examples:
    >>> import threadlab as tl
    >>> reg = tl.Registry()
    >>> @tl.tool(registry=reg)
    ... def shout(state, text: str) -> str:
    ...     '''Shout the text back.'''
    ...     return text.upper()
    >>> _ = tl.define_prompt("loud", prompt="Be loud.", tools=["shout"], registry=reg)
    >>> tl.run("loud", "hello", registry=reg, store=getfixture("tmp_path")).status
    'completed'
"""

import typing as _typing
import warnings as _warnings

from . import mcp, models
from ._data import (
    Approval,
    ApprovalDecidedEvent,
    ApprovalRequest,
    ApprovalRequestedEvent,
    Budget,
    ChildInfo,
    CustomEvent,
    Elicitation,
    Event,
    FileWrittenEvent,
    ForkPoint,
    Message,
    MessageCreatedEvent,
    Reasoning,
    Run,
    RunFinishedEvent,
    SeenRequest,
    SubagentCreatedEvent,
    TextDeltaEvent,
    ThreadEvent,
    ThreadStatusEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
    ToolResult,
)
from ._errors import (
    CallContextError,
    CodeOptionError,
    DefinitionError,
    MCPServerError,
    MissingVariableError,
    ModelError,
    PathError,
    ReplayDivergedError,
    SandboxUnavailableError,
    SecretKeyError,
    SecretValueError,
    StoreError,
    StoreURLError,
    StoreVersionError,
    ThreadBusyError,
    ThreadlabError,
    ThreadNotFoundError,
)
from ._version import __version__
from .definitions import (
    RESERVED_TOOL_NAMES,
    AgentDefinition,
    Env,
    HookDefinition,
    Include,
    MCPServerDefinition,
    ModelDefinition,
    PromptDefinition,
    Registry,
    Side,
    Subagent,
    SubpromptConfig,
    Text,
    ToolConfig,
    ToolDefinition,
    Variable,
    default_registry,
    define_agent,
    define_hook,
    define_mcp_server,
    define_model,
    define_prompt,
    define_tool,
    tool,
)
from .evaluation import (
    Case,
    EvalContext,
    EvalError,
    EvalReport,
    EvalRow,
    evaluate,
    scorers,
)
from .runtime import Runtime, Thread, ThreadOverview, run
from .sandbox import CodeFailure, CodeResult, CodeRun
from .store import FileRecord, PostgresStore, SQLiteStore, Store
from .threads import ExecutionInfo, ThreadState

__all__ = [
    "RESERVED_TOOL_NAMES",
    "AgentDefinition",
    "Approval",
    "ApprovalDecidedEvent",
    "ApprovalRequest",
    "ApprovalRequestedEvent",
    "Budget",
    "CallContextError",
    "Case",
    "ChildInfo",
    "CodeFailure",
    "CodeOptionError",
    "CodeResult",
    "CodeRun",
    "CustomEvent",
    "DefinitionError",
    "Elicitation",
    "Env",
    "EvalContext",
    "EvalError",
    "EvalReport",
    "EvalRow",
    "Event",
    "ExecutionInfo",
    "FileRecord",
    "FileWrittenEvent",
    "ForkPoint",
    "HookDefinition",
    "Include",
    "MCPServerDefinition",
    "MCPServerError",
    "Message",
    "MessageCreatedEvent",
    "MissingVariableError",
    "ModelDefinition",
    "ModelError",
    "PathError",
    "PostgresStore",
    "PromptDefinition",
    "Reasoning",
    "Registry",
    "ReplayDivergedError",
    "Run",
    "RunFinishedEvent",
    "Runtime",
    "SQLiteStore",
    "SandboxUnavailableError",
    "SecretKeyError",
    "SecretValueError",
    "SeenRequest",
    "Side",
    "Store",
    "StoreError",
    "StoreURLError",
    "StoreVersionError",
    "Subagent",
    "SubagentCreatedEvent",
    "SubpromptConfig",
    "Text",
    "TextDeltaEvent",
    "Thread",
    "ThreadBusyError",
    "ThreadEvent",
    "ThreadNotFoundError",
    "ThreadOverview",
    "ThreadState",
    "ThreadStatusEvent",
    "ThreadlabError",
    "ToolCall",
    "ToolCallDeltaEvent",
    "ToolCallFinishedEvent",
    "ToolCallStartedEvent",
    "ToolConfig",
    "ToolDefinition",
    "ToolResult",
    "Variable",
    "__version__",
    "default_registry",
    "define_agent",
    "define_hook",
    "define_mcp_server",
    "define_model",
    "define_prompt",
    "define_tool",
    "evaluate",
    "mcp",
    "models",
    "run",
    "scorers",
    "tool",
]


# Names kept for one release under their former spelling: each use warns and says the new one.
_RENAMED = {"ThreadNotFound": "ThreadNotFoundError", "CodeError": "CodeFailure"}

if _typing.TYPE_CHECKING:
    ThreadNotFound = ThreadNotFoundError
    CodeError = CodeFailure
else:

    def __getattr__(name: str) -> object:
        new = _RENAMED.get(name)
        if new is None:
            raise AttributeError(f"module 'threadlab' has no attribute {name!r}")
        _warnings.warn(
            f"tl.{name} is deprecated and will be removed; use tl.{new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return globals()[new]


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext threadlab`."""
    from .kernel_ext import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    """`%unload_ext threadlab`."""
    from .kernel_ext import unload_ipython_extension as unload

    unload(ipython)
