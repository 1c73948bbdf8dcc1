"""Definitions: the value types users build them from, `define_*` and `@tool` that check and
register them, the registry that holds them, and what a thread's definitions add up to."""

from ._attachments import Attachment
from ._callables import is_async_callable
from ._define import define_agent, define_hook, define_model, define_prompt, define_tool
from ._graph import DefinitionGraph, GraphEdge, GraphNode, graph, label_lines
from ._mcp_servers import (
    MCP_PREFIX,
    MCPServerDefinition,
    define_mcp_server,
    fill_headers,
    header_variables,
)
from ._oauth import OAuth, SignIn
from ._registry import Registry, default_registry
from ._resources import RESERVED_SCHEME, define_resource
from ._schema import ArgsSchema
from ._thread_definitions import (
    Declaration,
    Resolve,
    ThreadDefinitions,
    agent_for,
    relationship_enabled,
    resolve_variable,
)
from ._tool_decorator import tool
from ._tool_ui import (
    APP_EVENT,
    APP_MIME,
    MAX_APP_CHARS,
    AppVisibility,
    ToolUI,
    parse_csp,
    tool_ui,
)
from ._types import (
    HOOK_NAMES,
    PROVIDERS,
    RESERVED_TOOL_NAMES,
    AgentDefinition,
    Definition,
    HookDefinition,
    ModelDefinition,
    PromptDefinition,
    PromptPart,
    Provider,
    ResourceDefinition,
    ToolDefinition,
    ToolEntry,
)
from ._values import Env, Include, Side, Subagent, SubpromptConfig, Text, ToolConfig, Variable

__all__ = [
    "APP_EVENT",
    "APP_MIME",
    "HOOK_NAMES",
    "MAX_APP_CHARS",
    "MCP_PREFIX",
    "PROVIDERS",
    "RESERVED_SCHEME",
    "RESERVED_TOOL_NAMES",
    "AgentDefinition",
    "AppVisibility",
    "ArgsSchema",
    "Attachment",
    "Declaration",
    "Definition",
    "DefinitionGraph",
    "Env",
    "GraphEdge",
    "GraphNode",
    "HookDefinition",
    "Include",
    "MCPServerDefinition",
    "ModelDefinition",
    "OAuth",
    "PromptDefinition",
    "PromptPart",
    "Provider",
    "Registry",
    "Resolve",
    "ResourceDefinition",
    "Side",
    "SignIn",
    "Subagent",
    "SubpromptConfig",
    "Text",
    "ThreadDefinitions",
    "ToolConfig",
    "ToolDefinition",
    "ToolEntry",
    "ToolUI",
    "Variable",
    "agent_for",
    "default_registry",
    "define_agent",
    "define_hook",
    "define_mcp_server",
    "define_model",
    "define_prompt",
    "define_resource",
    "define_tool",
    "fill_headers",
    "graph",
    "header_variables",
    "is_async_callable",
    "label_lines",
    "parse_csp",
    "relationship_enabled",
    "resolve_variable",
    "tool",
    "tool_ui",
]
