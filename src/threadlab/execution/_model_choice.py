"""Which model object runs a prompt: a model object as given, the built-in "offline", or a
model defined by name in the registry (an offline one, or a provider's, given its key)."""

from __future__ import annotations

from typing import Any

from .._errors import DefinitionError, ModelError
from ..definitions import ModelDefinition, Registry, Resolve
from ..models import Model, OfflineModel, remote_model
from ._capabilities import is_replaying

__all__ = ["ModelResolver"]


class ModelResolver:
    """Turns a prompt's (or an override's) model into a `Model`."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._offline = OfflineModel()

    def check(self, chosen: Any) -> None:
        """`DefinitionError` unless `chosen` is a model object or names a defined model."""
        self._lookup(chosen)

    def resolve(self, chosen: Any, variables: Resolve) -> Model:
        """The model `chosen` names; `variables` resolves a provider's key."""
        found = self._lookup(chosen)
        if not isinstance(found, ModelDefinition):
            if is_replaying(found):  # its fallback may be a model's name
                found.bind_fallback(lambda name: self.resolve(name, variables))
            return found
        if found.provider == "offline":
            return OfflineModel(**found.options)
        key = found.key_variable()
        assert key is not None  # every provider but "offline" has one
        api_key = variables(key.name)
        if not api_key:
            raise ModelError(
                f"model {found.name!r} needs the API key in {key.name}: set it with %threadlab"
                f" secret {key.name}, give it to the thread, or set it in the environment"
            )
        return remote_model(
            found.name,
            provider=found.provider,
            model=found.model,
            base_url=found.base_url,
            key_variable=key.name,
            api_key=api_key,
            options=found.options,
        )

    def _lookup(self, chosen: Any) -> Model | ModelDefinition:
        if not isinstance(chosen, str):
            # A duck-typed check: isinstance against a Protocol is slow at one call per step.
            if not callable(getattr(chosen, "stream", None)):
                raise DefinitionError(f"{chosen!r} is not a model: it needs a stream() method")
            return chosen  # type: ignore[no-any-return]
        if chosen == "offline":
            return self._offline
        definition = self._registry.model(chosen)
        if definition is None:
            raise DefinitionError(
                f"model {chosen!r} is not defined (define it with tl.define_model, or use"
                " 'offline')"
            )
        return definition
