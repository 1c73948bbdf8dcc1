"""What one kernel remembers between cells: its Runtime, the last thread it ran per target,
and the values and secrets set with `%threadlab` (never written to the notebook)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

    from .. import RayEngine, Runtime
    from ..widgets import CardApprover, CardElicitor

__all__ = ["KernelMemory"]


@dataclass
class KernelMemory:
    store: str = ".threadlab"
    engine: str = ""
    """"" (runs stay in this kernel), "ray" (a local Ray), or a Ray cluster's address."""
    env: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    last_thread: dict[str, str] = field(default_factory=dict)
    tracer_provider: TracerProvider | None = None
    _runtime: Runtime | None = None
    _engine: RayEngine | None = None

    # The runtime and the widgets are imported when a cell first needs them, not at
    # `%load_ext`: loading the extension stays as cheap as importing a widget library.
    @cached_property
    def approver(self) -> CardApprover:
        """Calls that need a decision ask in their cards (this kernel decides)."""
        from ..widgets import CardApprover

        return CardApprover()

    @cached_property
    def elicitor(self) -> CardElicitor:
        """MCP servers' forms are answered in their calls' cards."""
        from ..widgets import CardElicitor

        return CardElicitor()

    @property
    def runtime(self) -> Runtime:
        if self._runtime is None:
            from .. import Runtime

            self._runtime = Runtime(
                store=self.store,
                tracer_provider=self.tracer_provider,
                approver=self.approver,
                elicitor=self.elicitor,
                engine=self.ray_engine,
            )
        return self._runtime

    @property
    def ray_engine(self) -> RayEngine | None:
        """The engine `engine` names, made once (a Ray it starts outlives each runtime)."""
        if not self.engine:
            return None
        if self._engine is None:
            from .. import RayEngine

            self._engine = RayEngine(None if self.engine == "ray" else self.engine)
        return self._engine

    def use_store(self, store: str) -> None:
        """Open `store` for the next thread (the threads of the old one stay where they are)."""
        if store != self.store:
            self.close()
            self.store = store

    def use_engine(self, engine: str) -> None:
        """Where the next runs that leave this kernel run (see `ThreadlabMagics.engine`)."""
        if engine != self.engine:
            self.close()
            if self._engine is not None:
                self._engine.close()
                self._engine = None
            self.engine = engine

    def use_tracer_provider(self, provider: TracerProvider | None) -> None:
        """Send the next runs' spans through `provider` (None: no longer)."""
        if provider is not self.tracer_provider:
            self.close()
            self.tracer_provider = provider

    def close(self) -> None:
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None
