"""A thread's env: its own values (secrets encrypted at rest) and how names resolve
(`resolve_variable` holds the precedence)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

from .._errors import ThreadlabError
from ..definitions import PromptDefinition, ThreadDefinitions, resolve_variable
from ..store import Store
from ._redaction import Redactor
from ._secret_box import SecretBox

__all__ = ["ThreadEnv", "VariableType"]

VariableType = Literal["text", "secret"]


class ThreadEnv:
    """The values one thread was given, and the resolution of any name for it."""

    def __init__(
        self,
        store: Store,
        box: SecretBox,
        thread_id: str,
        definitions: ThreadDefinitions,
        redactor: Redactor,
        parent: ThreadEnv | None = None,
    ) -> None:
        self._store = store
        self._box = box
        self.thread_id = thread_id
        self.definitions = definitions
        self.redactor = redactor
        self.parent = parent
        self._types: dict[str, VariableType] = {}
        self._values: dict[str, str | None] = {}
        self.unreadable: list[str] = []
        """Secrets stored encrypted with another key than this runtime's: their values are
        not known here (nor redacted)."""
        for name, (stored_type, raw) in store.get_env(thread_id).items():
            value = None
            if raw is not None:
                value = box.decrypt(raw) if stored_type == "secret" else raw.decode()
                if value is None:
                    self.unreadable.append(name)
            self._types[name] = "secret" if stored_type == "secret" else "text"
            self._values[name] = value
        self._register_secrets()

    def _register_secrets(self) -> None:
        for name, value in self._values.items():
            if self._types[name] == "secret":
                self.redactor.add(name, value)
        for name in self.definitions.secret_names():
            self.redactor.add(name, self.resolve(name))

    def resolve(
        self, name: str, prompt: PromptDefinition | None = None, tool: str | None = None
    ) -> str | None:
        """The value of `name` as `tool` of `prompt` would see it."""
        return resolve_variable(
            self.definitions,
            name,
            own=self._values,
            inherited=self.parent.resolve if self.parent is not None else None,
            prompt=prompt,
            tool=tool,
        )

    def type_of(self, name: str) -> VariableType:
        """The declared type; a thread-only value keeps the type it was set with; an unknown
        name is treated as secret, the safe default."""
        declared = self.definitions.variable_type(name)
        if declared is not None:
            return declared
        if name in self._types:
            return self._types[name]
        if self.parent is not None:
            return self.parent.type_of(name)
        return "secret"

    def set(self, name: str, value: str | None, type: VariableType | None = None) -> None:
        """Give this thread its own value of `name` (None clears it to "no value"); a name
        that holds a known secret's value is refused (names are shown as they are)."""
        if self.redactor and self.redactor.text(name) != name:
            raise ThreadlabError(
                f"a variable's name holds the value of a secret ({self.redactor.text(name)}):"
                " name it otherwise, and put the value in a secret variable"
            )
        if type is None:
            declared = self.definitions.variable_type(name)
            type = declared or self._types.get(name, "secret")
        if type == "secret" and value is not None:
            raw: bytes | None = self._box.encrypt(value)
            self.redactor.add(name, value)
        else:
            # Text is free text: a known secret's value copied into it (a header built from
            # a token) is stored, resolved and shown redacted, like a message or a result.
            value = None if value is None else self.redactor.text(value)
            raw = None if value is None else value.encode()
        self._store.set_env(self.thread_id, name, type, raw)
        self._types[name] = type
        self._values[name] = value

    def set_given(self, values: Mapping[str, str], type: VariableType | None = None) -> None:
        """Values given at creation: with `type` None, a declared name keeps its declared
        type and an undeclared one is text."""
        with self._store.transaction():
            for name, value in values.items():
                self.set(name, value, type or self.definitions.variable_type(name) or "text")

    def missing(self) -> list[tuple[str, str]]:
        """Required variables of the thread's definitions that do not resolve, with who
        declared them (each resolved as its declaring tool would see it)."""
        return [
            (d.variable.name, d.declarer)
            for d in self.definitions.declarations
            if d.variable.required and not self.resolve(d.variable.name, None, d.tool)
        ]
