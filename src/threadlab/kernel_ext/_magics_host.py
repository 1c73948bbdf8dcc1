"""What the magics' topic modules use of the magics: the shell, the kernel's memory (its
Runtime, env and secrets, last threads), the settings, and what is served over MCP. Declared
here so those modules need not import the class that calls them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .. import mcp
    from ._memory import KernelMemory

__all__ = ["MagicsHost"]


class MagicsHost(Protocol):
    """The magics, as a topic module sees them."""

    shell: Any
    memory: KernelMemory
    default_model: str
    update_rate: float
    freeze_on_finish: bool
    mcp_service: mcp.MCPService | None
