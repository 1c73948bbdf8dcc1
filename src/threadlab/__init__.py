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

import importlib as _importlib
import typing as _typing
import warnings as _warnings

from ._version import __version__

# The public names are imported when first used, not with the package: `%load_ext threadlab`
# and a script that needs only the definitions do not pay for the runtime, MCP, evaluation or
# the widgets they never touch. The imports below are what type checkers and readers see; the
# table after them is where each name is found at run time (a test keeps the two the same).
if _typing.TYPE_CHECKING:
    from . import mcp, models
    from ._data import (
        Approval,
        ApprovalDecidedEvent,
        ApprovalRequest,
        ApprovalRequestedEvent,
        Budget,
        ChildInfo,
        CustomEvent,
        Decision,
        Elicitation,
        Event,
        FileWrittenEvent,
        ForkPoint,
        HandoffEvent,
        Message,
        MessageCreatedEvent,
        Reasoning,
        Run,
        RunFinishedEvent,
        SampledReply,
        SeenRequest,
        StepRecord,
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
        ElicitationError,
        MCPServerError,
        MissingVariableError,
        ModelError,
        PathError,
        ReplayDivergedError,
        SamplingError,
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
    from .definitions import (
        RESERVED_TOOL_NAMES,
        AgentDefinition,
        Attachment,
        Env,
        HookDefinition,
        Include,
        MCPServerDefinition,
        ModelDefinition,
        OAuth,
        PromptDefinition,
        Registry,
        ResourceDefinition,
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
        define_resource,
        define_tool,
        graph,
        tool,
    )
    from .engine import RayEngine
    from .evaluation import (
        Case,
        EvalContext,
        EvalError,
        EvalReport,
        EvalRow,
        evaluate,
        scorers,
    )
    from .grading import GradeItem, GradeResult
    from .runtime import FollowedRun, Runtime, Thread, ThreadOverview, explain, run
    from .sandbox import CodeFailure, CodeResult, CodeRun
    from .store import FileRecord, PostgresStore, SQLiteStore, Store
    from .threads import ExecutionInfo, ThreadState
    from .widgets import class_view, player, share

# Where each public name lives: the module (relative to this package) that defines it.
# fmt: off
_HOMES: dict[str, tuple[str, ...]] = {
    "._data": (
        "Approval", "ApprovalDecidedEvent", "ApprovalRequest", "ApprovalRequestedEvent", "Budget",
        "ChildInfo", "CustomEvent", "Decision", "Elicitation", "Event", "FileWrittenEvent",
        "ForkPoint", "HandoffEvent", "Message", "MessageCreatedEvent", "Reasoning", "Run",
        "RunFinishedEvent", "SampledReply", "SeenRequest", "StepRecord", "SubagentCreatedEvent",
        "TextDeltaEvent", "ThreadEvent", "ThreadStatusEvent", "ToolCall", "ToolCallDeltaEvent",
        "ToolCallFinishedEvent", "ToolCallStartedEvent", "ToolResult",
    ),
    "._errors": (
        "CallContextError", "CodeOptionError", "DefinitionError", "ElicitationError",
        "MCPServerError", "MissingVariableError", "ModelError", "PathError", "ReplayDivergedError",
        "SamplingError", "SandboxUnavailableError", "SecretKeyError", "SecretValueError",
        "StoreError", "StoreURLError", "StoreVersionError", "ThreadBusyError", "ThreadlabError",
        "ThreadNotFoundError",
    ),
    ".definitions": (
        "RESERVED_TOOL_NAMES", "AgentDefinition", "Env", "HookDefinition", "Include",
        "MCPServerDefinition", "ModelDefinition", "PromptDefinition", "Registry", "Side",
        "Subagent", "SubpromptConfig", "Text", "ToolConfig", "ToolDefinition", "Variable",
        "default_registry", "define_agent", "define_hook", "define_mcp_server", "define_model",
        "define_prompt", "define_tool", "graph", "tool",
        "Attachment", "ResourceDefinition", "define_resource", "OAuth",
    ),
    ".engine": (
        "RayEngine",
    ),
    ".evaluation": (
        "Case", "EvalContext", "EvalError", "EvalReport", "EvalRow", "evaluate", "scorers",
    ),
    ".grading": (
        "GradeItem", "GradeResult",
    ),
    ".runtime": (
        "FollowedRun", "Runtime", "Thread", "ThreadOverview", "explain", "run",
    ),
    ".sandbox": (
        "CodeFailure", "CodeResult", "CodeRun",
    ),
    ".store": (
        "FileRecord", "PostgresStore", "SQLiteStore", "Store",
    ),
    ".threads": (
        "ExecutionInfo", "ThreadState",
    ),
    ".widgets": (
        "class_view", "player", "share",
    ),
}
# fmt: on
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}
_SUBPACKAGES = ("mcp", "models")

__all__ = [
    "RESERVED_TOOL_NAMES",
    "AgentDefinition",
    "Approval",
    "ApprovalDecidedEvent",
    "ApprovalRequest",
    "ApprovalRequestedEvent",
    "Attachment",
    "Budget",
    "CallContextError",
    "Case",
    "ChildInfo",
    "CodeFailure",
    "CodeOptionError",
    "CodeResult",
    "CodeRun",
    "CustomEvent",
    "Decision",
    "DefinitionError",
    "Elicitation",
    "ElicitationError",
    "Env",
    "EvalContext",
    "EvalError",
    "EvalReport",
    "EvalRow",
    "Event",
    "ExecutionInfo",
    "FileRecord",
    "FileWrittenEvent",
    "FollowedRun",
    "ForkPoint",
    "GradeItem",
    "GradeResult",
    "HandoffEvent",
    "HookDefinition",
    "Include",
    "MCPServerDefinition",
    "MCPServerError",
    "Message",
    "MessageCreatedEvent",
    "MissingVariableError",
    "ModelDefinition",
    "ModelError",
    "OAuth",
    "PathError",
    "PostgresStore",
    "PromptDefinition",
    "RayEngine",
    "Reasoning",
    "Registry",
    "ReplayDivergedError",
    "ResourceDefinition",
    "Run",
    "RunFinishedEvent",
    "Runtime",
    "SQLiteStore",
    "SampledReply",
    "SamplingError",
    "SandboxUnavailableError",
    "SecretKeyError",
    "SecretValueError",
    "SeenRequest",
    "Side",
    "StepRecord",
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
    "class_view",
    "default_registry",
    "define_agent",
    "define_hook",
    "define_mcp_server",
    "define_model",
    "define_prompt",
    "define_resource",
    "define_tool",
    "evaluate",
    "explain",
    "graph",
    "mcp",
    "models",
    "player",
    "run",
    "scorers",
    "share",
    "tool",
]


# Names kept for one release under their former spelling: each use warns and says the new one.
_RENAMED = {"ThreadNotFound": "ThreadNotFoundError", "CodeError": "CodeFailure"}

if _typing.TYPE_CHECKING:
    ThreadNotFound = ThreadNotFoundError
    CodeError = CodeFailure
else:

    def __getattr__(name: str) -> object:
        if name in _SUBPACKAGES:
            return _importlib.import_module(f".{name}", __name__)  # it sets itself here
        module = _HOME_OF.get(name)
        if module is not None:
            value = getattr(_importlib.import_module(module, __name__), name)
            globals()[name] = value  # found once; later uses are plain attribute reads
            return value
        new = _RENAMED.get(name)
        if new is None:
            raise AttributeError(f"module 'threadlab' has no attribute {name!r}")
        _warnings.warn(
            f"tl.{name} is deprecated and will be removed; use tl.{new}",
            DeprecationWarning,
            stacklevel=2,
        )
        return __getattr__(new)

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext threadlab`."""
    from .kernel_ext import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    """`%unload_ext threadlab`."""
    from .kernel_ext import unload_ipython_extension as unload

    unload(ipython)
