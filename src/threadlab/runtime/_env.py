"""A thread's env: its own values (secrets encrypted at rest) and how names resolve.

Resolution, highest first: the thread's own values (given at creation or by set_env), then the
parent thread's (unless the thread's own definitions declare the name scoped), then the agent's
env, the prompt's `ToolConfig` env for the calling tool, the prompt's env, and finally the
process environment for declared variables (for a scoped name: root threads only).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

from ..store import Store
from ._definitions import PromptDefinition
from ._graph import ThreadGraph
from ._redact import Redactor
from ._secrets import SecretBox

__all__ = ["ThreadEnv"]

Kind = Literal["text", "secret"]


class ThreadEnv:
    def __init__(
        self,
        store: Store,
        box: SecretBox,
        thread_id: str,
        graph: ThreadGraph,
        redactor: Redactor,
        parent: ThreadEnv | None = None,
    ) -> None:
        self._store = store
        self._box = box
        self.thread_id = thread_id
        self.graph = graph
        self.redactor = redactor
        self.parent = parent
        self._values: dict[str, tuple[Kind, str | None]] = {}
        for name, (kind, raw) in store.get_env(thread_id).items():
            value = None
            if raw is not None:
                value = box.decrypt(raw) if kind == "secret" else raw.decode()
            self._values[name] = ("secret" if kind == "secret" else "text", value)
        self._register_secrets()

    def _register_secrets(self) -> None:
        for name, (kind, value) in self._values.items():
            if kind == "secret":
                self.redactor.add(name, value)
        for name in self.graph.secret_names():
            self.redactor.add(name, self.resolve(name))

    def _scoped(self, name: str) -> bool:
        return any(d.variable.scoped for d in self.graph.declared(name))

    def resolve(
        self, name: str, prompt: PromptDefinition | None = None, tool: str | None = None
    ) -> str | None:
        if name in self._values:
            return self._values[name][1]
        scoped = self._scoped(name)
        if self.parent is not None and not scoped:
            inherited = self.parent.resolve(name)
            if inherited is not None:
                return inherited
        if name in self.graph.agent.env:
            return self.graph.agent.env[name]
        prompts = [prompt] if prompt is not None else list(self.graph.prompts.values())
        if tool is not None:
            for candidate in prompts:
                tool_env = candidate.tool_env(tool)
                if name in tool_env:
                    return tool_env[name]
        for candidate in prompts:
            if name in candidate.env:
                return candidate.env[name]
        if self.graph.declared(name) and not (scoped and self.parent is not None):
            return os.environ.get(name)
        return None

    def kind(self, name: str) -> Kind:
        """The declared type; a thread-only value keeps the type it was set with; an unknown
        name is treated as secret, the safe default."""
        declared = self.graph.declared(name)
        if declared:
            return "secret" if any(d.variable.type == "secret" for d in declared) else "text"
        if name in self._values:
            return self._values[name][0]
        if self.parent is not None:
            return self.parent.kind(name)
        return "secret"

    def set(self, name: str, value: str | None, kind: Kind | None = None) -> None:
        if kind is None:
            if self.graph.declared(name):
                kind = self.kind(name)
            elif name in self._values:
                kind = self._values[name][0]
            else:
                kind = "secret"
        if kind == "secret" and value is not None:
            raw: bytes | None = self._box.encrypt(value)
            self.redactor.add(name, value)
        else:
            raw = None if value is None else value.encode()
        self._store.set_env(self.thread_id, name, kind, raw)
        self._values[name] = (kind, value)

    def set_many(self, values: Mapping[str, str], kind: Kind | None = None) -> None:
        with self._store.transaction():
            for name, value in values.items():
                self.set(name, value, kind)

    def missing(self, names: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
        """Required variables of the graph (or of `names`) that do not resolve."""
        wanted = names or [
            (d.variable.name, d.declarer) for d in self.graph.declarations if d.variable.required
        ]
        return [(name, declarer) for name, declarer in wanted if not self.resolve(name)]
