"""Where definitions live, by name. Tools, prompts and agents share one namespace."""

from __future__ import annotations

import threading
from typing import Any

from .._errors import DefinitionError
from ._types import (
    AgentDefinition,
    Definition,
    HookDefinition,
    MCPServerDefinition,
    ModelDefinition,
    PromptDefinition,
    ResourceDefinition,
    ToolDefinition,
)
from ._uri_templates import template_shape

__all__ = ["Registry", "default_registry"]


class Registry:
    """An isolated set of definitions.

    Redefining a name with the same kind replaces it (so re-running a notebook cell works);
    redefining it as another kind is an error.

    Examples:
        >>> import threadlab as tl
        >>> reg = tl.Registry()
        >>> _ = tl.define_prompt("helper", prompt="Help.", registry=reg)
        >>> [p.name for p in reg.prompts()], reg.tool("helper")
        (['helper'], None)
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._definitions: dict[str, Definition] = {}
        self._models: dict[str, ModelDefinition] = {}
        self._hooks: dict[str, HookDefinition] = {}
        self._mcp_servers: dict[str, MCPServerDefinition] = {}
        self._resources: dict[str, ResourceDefinition] = {}  # by URI (or template)
        self.version = 0
        """Counts every change: what was resolved against an older version is stale."""

    def __getstate__(self) -> dict[str, Any]:
        # Pickled to run elsewhere (an engine's worker): its definitions, not this process's
        # lock, nor the tools listed from MCP servers here (bound to this process's sessions;
        # the other process lists them from its own).
        with self._lock:
            state = dict(self.__dict__)
            state["_definitions"] = {
                name: d
                for name, d in self._definitions.items()
                if not (isinstance(d, ToolDefinition) and d.mcp_server)
            }
        del state["_lock"]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def add(self, definition: Definition) -> None:
        """Register a tool, prompt or agent under its name (`define_*` call this)."""
        with self._lock:
            existing = self._definitions.get(definition.name)
            if existing is not None and existing.kind != definition.kind:
                raise DefinitionError(
                    f"{definition.kind} {definition.name!r}: the name is already defined as a"
                    f" {existing.kind}; tools, prompts and agents share one namespace, so pick"
                    " another name"
                )
            self._definitions[definition.name] = definition
            self.version += 1

    def add_model(self, definition: ModelDefinition) -> None:
        """Register a named model (models have a namespace of their own)."""
        with self._lock:
            self._models[definition.name] = definition
            self.version += 1

    def add_hook(self, definition: HookDefinition) -> None:
        """Register a hook implementation under its id (a redefined id replaces it)."""
        with self._lock:
            self._hooks[definition.id] = definition
            self.version += 1

    def add_mcp_server(self, definition: MCPServerDefinition) -> None:
        """Register an MCP server (servers have a namespace of their own); a redefined server
        replaces the tools listed from the old one."""
        with self._lock:
            self._mcp_servers[definition.name] = definition
            for name, existing in list(self._definitions.items()):
                if isinstance(existing, ToolDefinition) and existing.mcp_server == definition.name:
                    del self._definitions[name]
            self.version += 1

    def add_resource(self, definition: ResourceDefinition) -> None:
        """Register a resource under its URI (resources have a namespace of their own); a
        redefined URI replaces it. A template of the same shape as another (the same URIs
        under other parameter names) is a DefinitionError: which one would answer a read?"""
        with self._lock:
            shape = template_shape(definition.uri)
            for uri, existing in self._resources.items():
                if (
                    uri != definition.uri
                    and existing.is_template
                    and (template_shape(uri) == shape)
                ):
                    raise DefinitionError(
                        f"resource {definition.uri!r}: the template {uri!r} is defined for"
                        f" the same URIs; use that template, or remove it first"
                        f" (registry.remove_resource({uri!r}))"
                    )
            self._resources[definition.uri] = definition
            self.version += 1

    def resource(self, uri: str) -> ResourceDefinition | None:
        """The resource defined at `uri` (a template as written), or None."""
        return self._resources.get(uri)

    def resources(self) -> list[ResourceDefinition]:
        """Every defined resource, fixed and templates, in definition order."""
        return list(self._resources.values())

    def remove_resource(self, uri: str) -> None:
        """Forget the resource defined at `uri` (a template as written)."""
        with self._lock:
            if self._resources.pop(uri, None) is not None:
                self.version += 1

    def mcp_server(self, name: str) -> MCPServerDefinition | None:
        """The MCP server called `name`, or None."""
        return self._mcp_servers.get(name)

    def mcp_servers(self) -> list[MCPServerDefinition]:
        """Every defined MCP server."""
        return list(self._mcp_servers.values())

    def remove(self, name: str) -> None:
        """Forget a tool, prompt or agent (threads that use it can still be read)."""
        with self._lock:
            self._definitions.pop(name, None)
            self.version += 1

    def get(self, name: str) -> Definition | None:
        """The tool, prompt or agent called `name`, or None."""
        return self._definitions.get(name)

    def tool(self, name: str) -> ToolDefinition | None:
        """The tool called `name`, or None (also when `name` is a prompt or an agent)."""
        found = self._definitions.get(name)
        return found if isinstance(found, ToolDefinition) else None

    def check_arguments(self, name: str, arguments: object) -> list[str]:
        """What is wrong with `arguments` for a call to function tool `name` (empty: nothing),
        as when a person edits a waiting call's arguments before approving it, or a fork
        runs a call with other arguments. Stricter than for a model's own call: a field the
        tool does not declare is refused too (unless its schema allows any), so an edit
        cannot slip in what the card never showed as an argument."""
        tool = self.tool(name)
        if tool is None:
            return [f"tool {name!r} is not a function tool defined here"]
        if not isinstance(arguments, dict):
            return ["the arguments must be a JSON object"]
        problems = list(tool.args.validate(dict(arguments))[1])
        if "additionalProperties" in tool.args.json_schema:
            return problems  # the schema says itself what it makes of other fields
        declared = tool.args.properties
        return problems + [
            f"{field}: the tool {name!r} declares no such argument"
            for field in sorted(map(str, arguments))
            if field not in declared
        ]

    def prompt(self, name: str) -> PromptDefinition | None:
        """The prompt called `name`, or None."""
        found = self._definitions.get(name)
        return found if isinstance(found, PromptDefinition) else None

    def agent(self, name: str) -> AgentDefinition | None:
        """The agent called `name`, or None."""
        found = self._definitions.get(name)
        return found if isinstance(found, AgentDefinition) else None

    def model(self, name: str) -> ModelDefinition | None:
        """The model called `name`, or None ("offline" is built in, not registered)."""
        return self._models.get(name)

    def hook(self, hook_id: str) -> HookDefinition | None:
        """The hook implementation with that id, or None."""
        return self._hooks.get(hook_id)

    def tools(self) -> list[ToolDefinition]:
        """Every tool, in definition order."""
        return [d for d in self._definitions.values() if isinstance(d, ToolDefinition)]

    def prompts(self) -> list[PromptDefinition]:
        """Every prompt, in definition order."""
        return [d for d in self._definitions.values() if isinstance(d, PromptDefinition)]

    def agents(self) -> list[AgentDefinition]:
        """Every agent, in definition order."""
        return [d for d in self._definitions.values() if isinstance(d, AgentDefinition)]

    def models(self) -> list[ModelDefinition]:
        """Every named model."""
        return list(self._models.values())

    def hooks(self) -> list[HookDefinition]:
        """Every hook implementation."""
        return list(self._hooks.values())


_DEFAULT = Registry()


def default_registry() -> Registry:
    """The process-wide registry that `define_*` use when given no `registry=`."""
    return _DEFAULT
