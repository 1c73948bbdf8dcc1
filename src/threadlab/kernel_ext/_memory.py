"""What one kernel remembers between cells: its Runtime, the last thread it ran per target,
and the values and secrets set with `%threadlab` (never written to the notebook)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from .. import Runtime
from ..widgets import CardApprover, CardElicitor

if TYPE_CHECKING:
    from opentelemetry.trace import TracerProvider

__all__ = ["KernelMemory"]


@dataclass
class KernelMemory:
    store: str = ".threadlab"
    children: Literal["here", "workers"] = "here"
    env: dict[str, str] = field(default_factory=dict)
    secrets: dict[str, str] = field(default_factory=dict)
    last_thread: dict[str, str] = field(default_factory=dict)
    tracer_provider: TracerProvider | None = None
    approver: CardApprover = field(default_factory=CardApprover)
    """Calls that need a decision ask in their cards (this kernel decides)."""
    elicitor: CardElicitor = field(default_factory=CardElicitor)
    """MCP servers' forms are answered in their calls' cards."""
    _runtime: Runtime | None = None

    @property
    def runtime(self) -> Runtime:
        if self._runtime is None:
            self._runtime = Runtime(
                store=self.store,
                children=self.children,
                tracer_provider=self.tracer_provider,
                approver=self.approver,
                elicitor=self.elicitor,
            )
        return self._runtime

    def use_store(self, store: str) -> None:
        """Open `store` for the next thread (the threads of the old one stay where they are)."""
        if store != self.store:
            self.close()
            self.store = store

    def use_children(self, children: Literal["here", "workers"]) -> None:
        """Where the next runs' non-blocking children run (see `Runtime`'s `children`)."""
        if children != self.children:
            self.close()
            self.children = children

    def use_tracer_provider(self, provider: TracerProvider | None) -> None:
        """Send the next runs' spans through `provider` (None: no longer)."""
        if provider is not self.tracer_provider:
            self.close()
            self.tracer_provider = provider

    def close(self) -> None:
        if self._runtime is not None:
            self._runtime.close()
            self._runtime = None
