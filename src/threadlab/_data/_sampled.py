"""`SampledReply`: what a tool's `state.sample` got back from its caller's model."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["SampledReply"]


@dataclass(frozen=True)
class SampledReply:
    """The answer of the model a tool asked with `state.sample`: the client's model when the
    tool was called over MCP, else the model of the thread's prompt.

    Examples:
        >>> SampledReply("Four.", "offline").text
        'Four.'
    """

    text: str
    """What the model wrote."""
    model: str
    """The model that wrote it, as it named itself."""
    usage: Mapping[str, int] | None = None
    """Its tokens (`input_tokens`, `output_tokens`, ...); None when they are not known — an
    MCP client's model reports none."""
    cost_usd: float | None = None
    """What it cost, where the price is known (never for an MCP client's model)."""
    stop_reason: str | None = None
    """Why it stopped, as an MCP client says it ("endTurn", "maxTokens", ...), or None."""
