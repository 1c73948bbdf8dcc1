"""threadlab: the Standard Agent Specification's tools model, in Python and Jupyter.

Example:
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

from . import models
from ._errors import (
    DefinitionError,
    MissingVariableError,
    PathError,
    SandboxUnavailableError,
    ThreadlabError,
)
from .runtime._define import define_agent, define_hook, define_model, define_prompt, define_tool
from .runtime._definitions import (
    RESERVED_TOOL_NAMES,
    AgentDefinition,
    HookDefinition,
    ModelDefinition,
    PromptDefinition,
    ToolDefinition,
)
from .runtime._events import (
    CustomEvent,
    Event,
    FileWrittenEvent,
    MessageCreatedEvent,
    RunFinishedEvent,
    SubagentCreatedEvent,
    TextDeltaEvent,
    ThreadStatusEvent,
    ToolCallDeltaEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
)
from .runtime._messages import Message, ToolCall
from .runtime._registry import Registry, default_registry
from .runtime._run import Run
from .runtime._runtime import Runtime, run
from .runtime._state import ExecutionInfo, ThreadState
from .runtime._subagents import ChildInfo
from .runtime._thread import Thread
from .runtime._tool_decorator import tool
from .runtime._values import (
    Env,
    Include,
    Side,
    Subagent,
    SubpromptConfig,
    Text,
    ToolConfig,
    ToolResult,
    Variable,
)
from .store import FileRecord, SQLiteStore, Store

__version__ = "0.1.0"

__all__ = [
    "RESERVED_TOOL_NAMES",
    "AgentDefinition",
    "ChildInfo",
    "CustomEvent",
    "DefinitionError",
    "Env",
    "Event",
    "ExecutionInfo",
    "FileRecord",
    "FileWrittenEvent",
    "HookDefinition",
    "Include",
    "Message",
    "MessageCreatedEvent",
    "MissingVariableError",
    "ModelDefinition",
    "PathError",
    "PromptDefinition",
    "Registry",
    "Run",
    "RunFinishedEvent",
    "Runtime",
    "SQLiteStore",
    "SandboxUnavailableError",
    "Side",
    "Store",
    "Subagent",
    "SubagentCreatedEvent",
    "SubpromptConfig",
    "Text",
    "TextDeltaEvent",
    "Thread",
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
    "define_model",
    "define_prompt",
    "define_tool",
    "models",
    "run",
    "tool",
]


def load_ipython_extension(ipython: object) -> None:
    """`%load_ext threadlab`."""
    from .kernel_ext import load_ipython_extension as load

    load(ipython)


def unload_ipython_extension(ipython: object) -> None:
    from .kernel_ext import unload_ipython_extension as unload

    unload(ipython)
