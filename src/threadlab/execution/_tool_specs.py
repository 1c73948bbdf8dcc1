"""Tools as offered to a model (`ToolSpec`), cached per registered definition."""

from __future__ import annotations

from ..definitions import Registry, ToolDefinition
from ..models import ToolPurpose, ToolSpec

__all__ = ["ToolSpecCache"]


class ToolSpecCache:
    """Builds each registered tool's spec once; tools built for one frame are not kept."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._specs: dict[tuple[int, ToolPurpose], tuple[ToolDefinition, ToolSpec]] = {}

    def spec(self, tool: ToolDefinition, purpose: ToolPurpose = "function") -> ToolSpec:
        # Keyed by the definition object: a redefined tool is a new object with a new spec.
        cacheable = self._registry.get(tool.name) is tool
        key = (id(tool), purpose)
        cached = self._specs.get(key) if cacheable else None
        if cached is not None and cached[0] is tool:
            return cached[1]
        spec = ToolSpec(
            name=tool.name,
            description=tool.description,
            parameters=tool.args.for_model(tool.progress_argument),
            progress_argument=tool.progress_argument,
            purpose=purpose,
        )
        if cacheable:
            self._specs[key] = (tool, spec)
        return spec
