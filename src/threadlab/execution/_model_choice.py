"""Which model object runs a prompt: a model object as given, the built-in "offline", or a
model defined by name in the registry."""

from __future__ import annotations

from typing import Any

from .._errors import DefinitionError
from ..definitions import Registry
from ..models import Model, OfflineModel

__all__ = ["ModelResolver"]


class ModelResolver:
    """Turns a prompt's (or an override's) model into a `Model`."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._offline = OfflineModel()

    def resolve(self, chosen: Any) -> Model:
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
        if definition.provider == "offline":
            return OfflineModel(**definition.options)
        raise DefinitionError(
            f"model {chosen!r}: the {definition.provider!r} provider is not available in this"
            " version of threadlab; use an offline model"
        )
