"""The immutable definitions a registry holds: tools, prompts, agents, models and hooks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .._data import HOOK_NAMES, HookName
from .._urls import shown
from ._attachments import Attachment
from ._oauth import OAuth
from ._schema import ArgsSchema
from ._tool_ui import ToolUI
from ._uri_templates import match_uri
from ._values import Env, Include, Side, SubpromptConfig, Text, ToolConfig, Variable

__all__ = [
    "HOOK_NAMES",
    "PROVIDERS",
    "RESERVED_TOOL_NAMES",
    "AgentDefinition",
    "Definition",
    "HookDefinition",
    "MCPServerDefinition",
    "ModelDefinition",
    "PromptDefinition",
    "PromptPart",
    "Provider",
    "ResourceDefinition",
    "ToolDefinition",
    "ToolEntry",
]

RESERVED_TOOL_NAMES: frozenset[str] = frozenset(
    {"subagents", "subagent_create", "subagent_message"}
)

PromptPart = Text | Include | Env
ToolEntry = str | SubpromptConfig | ToolConfig

_DEFINITION = ConfigDict(frozen=True, arbitrary_types_allowed=True)


class _Definition(BaseModel):
    """A definition's repr names what was given, not every default (a notebook shows the
    value a `define_*` call returns when it ends a cell)."""

    def __repr_args__(self) -> Any:
        for name, field in type(self).model_fields.items():
            value = getattr(self, name)
            if name == "kind" or (
                name != "name" and value == field.get_default(call_default_factory=True)
            ):
                continue
            yield name, value


class ToolDefinition(_Definition):
    """A function tool."""

    model_config = _DEFINITION
    kind: Literal["tool"] = "tool"
    name: str
    """The name models call it by."""
    description: str
    """What the model reads about it."""
    execute: Callable[..., Any]
    """`execute(state, args)`, sync or async."""
    args: ArgsSchema
    """The declared argument schema."""
    variables: tuple[Variable, ...] = ()
    """Variables the tool declares."""
    progress_argument: str | None = None
    """The string argument that describes a call in progress."""
    timeout: float | None = 120.0
    """Seconds before a call times out (None: no limit)."""
    approval: Any = None
    """None: calls run at once; "always": each call waits for a decision; or a callable
    `(call, state) -> bool` (sync or async), True for a call that needs one."""
    mcp_server: str | None = None
    """The MCP server the tool was listed from (None: a tool of this process)."""
    returns: Any = None
    """The type of its result when known (the function's return annotation): a pydantic
    model, TypedDict or dict shape becomes the tool's output schema where it is served."""
    ui: ToolUI | None = None
    """Its own interactive UI (an MCP App): drawn in its card when it is called in a
    notebook, served with it by `tl.mcp.serve`."""


class PromptDefinition(_Definition):
    """A prompt: system prompt parts, a model, the tools it offers and its history flags."""

    model_config = _DEFINITION
    kind: Literal["prompt"] = "prompt"
    name: str
    """The prompt's name."""
    prompt: tuple[PromptPart, ...]
    """The system prompt's parts."""
    model: Any = "offline"  # a model name, or a model object
    """A model name, or a model object."""
    tool_description: str = ""
    """What a caller reads when the prompt is a tool."""
    tools: tuple[ToolEntry, ...] = ()
    """The tools, prompts and agents it offers, in order."""
    include_chat: bool = False
    """Earlier turns' user and assistant text is in the context."""
    include_past_tools: bool = False
    """Earlier turns' tool calls and results are in the context."""
    parallel_tool_calls: bool = False
    """The provider may return several calls at once (they still run in order)."""
    tool_choice: str = "auto"
    """"auto", "none", "required" or the name of one of its tools."""
    required_schema: ArgsSchema | None = None
    """The arguments it takes as a tool (else one `message`)."""
    variables: tuple[Variable, ...] = ()
    """Variables the prompt declares."""
    env: dict[str, str] = {}
    """Default values for variables."""
    hooks: tuple[str, ...] = ()
    """Ids of the hooks that run for it."""
    expose_as_tool: bool = False
    """Whether other prompts may list it as a tool."""
    approval: Any = None
    """Whether its calls as a tool wait for a decision: None, "always", or a callable
    `(call, state) -> bool` (as a function tool's `approval`)."""
    messages: tuple[Attachment, ...] = ()
    """Images, audio and embedded resources an MCP client gets with the prompt, each a
    message before its text (a thread running the prompt reads the text only)."""

    def tool_names(self) -> list[str]:
        return [entry if isinstance(entry, str) else entry.name for entry in self.tools]

    def tool_env(self, tool_name: str) -> dict[str, str]:
        for entry in self.tools:
            if isinstance(entry, ToolConfig) and entry.name == tool_name:
                return entry.env
        return {}


class AgentDefinition(_Definition):
    """An agent: one AI side facing a human (`ai_human`), or two AI sides (`dual_ai`)."""

    model_config = _DEFINITION
    kind: Literal["agent"] = "agent"
    name: str
    """The agent's name."""
    type: Literal["ai_human", "dual_ai"] = "ai_human"
    """"ai_human" (one AI side) or "dual_ai" (two AI sides in a session)."""
    side_a: Side
    """The first (or only) AI side."""
    side_b: Side | None = None
    """The second side of a dual_ai agent."""
    expose_as_tool: bool = False
    """Whether prompts may list it as a tool."""
    approval: Any = None
    """Whether its calls as a tool wait for a decision: None, "always", or a callable
    `(call, state) -> bool` (as a function tool's `approval`)."""
    tool_description: str = ""
    """What a caller reads when it is a tool."""
    max_session_turns: int | None = None
    """The cap of a dual_ai session (else the runtime's)."""
    hooks: tuple[str, ...] = ()
    """Ids of the hooks that run where its prompts list none."""
    variables: tuple[Variable, ...] = ()
    """Variables the agent declares."""
    env: dict[str, str] = {}
    """Default values for variables (they win over prompts' defaults)."""


Provider = Literal["offline", "openai", "openai-responses", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("offline", "openai", "openai-responses", "anthropic")


class ModelDefinition(_Definition):
    """A named model: a provider, the provider's model id and how to reach it."""

    model_config = _DEFINITION
    name: str
    """The name prompts use."""
    provider: Provider
    """"offline", "openai" (Chat Completions; any OpenAI-compatible server), "openai-responses"
    (OpenAI's Responses API) or "anthropic" (the Messages API)."""
    model: str
    """The provider's model id."""
    base_url: str | None = None
    """Where the provider's API is served."""
    api_key_variable: str | None = None
    """The secret variable holding the key."""
    options: dict[str, Any] = {}
    """Options passed to the API with each request (temperature, max_tokens, ...), except
    `timeout` and `max_retries`, which set up the SDK client."""

    @property
    def shown_base_url(self) -> str | None:
        """`base_url` as shown to a person: without a password it may carry."""
        return shown(self.base_url) if self.base_url else None

    def key_variable(self) -> Variable | None:
        """The secret this model needs, declared on every prompt that uses it."""
        if self.provider == "offline":
            return None
        default = "ANTHROPIC_API_KEY" if self.provider == "anthropic" else "OPENAI_API_KEY"
        return Variable(
            self.api_key_variable or default,
            type="secret",
            required=True,
            description=f"API key for model {self.name!r}",
        )


class HookDefinition(_Definition):
    """A hook implementation, run only where a prompt or agent lists its id."""

    model_config = _DEFINITION
    hook: HookName
    """Which hook it implements."""
    id: str
    """The id prompts and agents list."""
    execute: Callable[..., Any]
    """`execute(state, payload)`, sync or async."""


Definition = ToolDefinition | PromptDefinition | AgentDefinition


class ResourceDefinition(_Definition):
    """A resource served over MCP (`tl.define_resource`): a fixed URI, or a URI template whose
    parameters `read` is given."""

    model_config = _DEFINITION
    kind: Literal["resource"] = "resource"
    uri: str
    """The URI it is read at, or a template of them ("notes://{topic}")."""
    read: Callable[..., Any]
    """`read(params) -> str | bytes`, sync or async: text, or bytes (served as a blob)."""
    name: str
    """What a client lists it as."""
    description: str = ""
    """What a client reads about it."""
    mime_type: str | None = None
    """The media type of what `read` returns (None: guessed from the URI, else text/plain
    for text and application/octet-stream for bytes)."""
    parameters: tuple[str, ...] = ()
    """The template's parameters, in order (none: a fixed URI)."""

    @property
    def is_template(self) -> bool:
        return bool(self.parameters)

    def match(self, uri: str) -> dict[str, str] | None:
        """The parameters' values when `uri` is this resource's (`{}` for a fixed one), else
        None.

        Examples:
            >>> import threadlab as tl
            >>> notes = tl.define_resource("notes://{topic}", read=lambda params: "",
            ...                            registry=tl.Registry())
            >>> notes.match("notes://tea%20time"), notes.match("files://tea")
            ({'topic': 'tea time'}, None)
        """
        if not self.parameters:
            return {} if uri == self.uri else None
        return match_uri(self.uri, self.parameters, uri)


MCP_PREFIX = "mcp:"
"""A prompt's tools entry "mcp:NAME" offers every tool of server NAME."""


class MCPServerDefinition(_Definition):
    """An MCP server: `command` (+ `args`, `env`) started over stdio, or `url` (+ `headers`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    kind: Literal["mcp_server"] = "mcp_server"
    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] | None = None
    url: str | None = None
    headers: dict[str, str] | None = None
    """Header values may hold "{{env:NAME}}": the variable's value, read when connecting."""
    tools: tuple[str, ...] | None = None
    """The server's tools to offer (None: all of them)."""
    prefix: str | None = None
    """Offered as f"{prefix}_{name}" instead of the server's own name."""
    timeout: float = 30.0
    """Seconds to start or reach the server and finish the handshake, and for a listing."""
    approval: Any = None
    """As a function tool's `approval`, for every tool of the server; set, the server's
    sampling requests are put to the person too."""
    sampling_model: Any = None
    """The model (a name or a model object) that answers the server's sampling requests;
    None: the model of the thread whose call the server is serving."""
    oauth: OAuth | None = None
    """How to sign in when the HTTP server asks for OAuth 2.1 (None: in a notebook, a link to
    sign in is shown; elsewhere such a server is refused with a message saying to pass it)."""

    @staticmethod
    def named_by(entry: str) -> str | None:
        """The server a prompt's tools entry "mcp:NAME" names (every tool of server NAME), or
        None for an entry that names one tool.

        Examples:
            >>> MCPServerDefinition.named_by("mcp:files"), MCPServerDefinition.named_by("read")
            ('files', None)
        """
        return entry.removeprefix(MCP_PREFIX) if entry.startswith(MCP_PREFIX) else None

    def local_name(self, remote: str) -> str:
        """The name a prompt lists the server's tool `remote` by."""
        return f"{self.prefix}_{remote}" if self.prefix else remote

    @property
    def where(self) -> str:
        """The server as a person recognises it, for messages (a URL without its userinfo and
        its credential-like parameters' values)."""
        if self.url is not None:
            return shown(self.url)
        return " ".join([self.command or "", *self.args])
