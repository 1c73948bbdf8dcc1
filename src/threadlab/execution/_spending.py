"""What a run spends on model calls, its descendants' included, and whether it may take one
more step under its `tl.Budget`.

Each run has a `Spend`; a child's run (started inside its parent's, blocking or not) adds to
its parent's too, so the root run's spend is the whole tree's and its budget bounds them all.
The current run's spend travels in a context variable: a child's run starts in its parent's
context (a task copies it), whatever the code between them."""

from __future__ import annotations

from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field

from .._data import Budget
from ._allowance import DailyAllowance

__all__ = ["SPENDING", "Spend"]


@dataclass
class Spend:
    """Tokens and dollars one run (and its descendants) spent; `parent`: the run above."""

    budget: Budget | None = None
    parent: Spend | None = None
    tokens: int = 0
    cost_usd: float | None = 0.0
    """None once a step's price was unknown."""
    sampled: dict[str, int] = field(default_factory=dict)
    """Tokens of model calls this run made outside its steps (an MCP server's sampling
    requests, a tool's `state.sample`, answered during a call): its usage counts them too."""
    allowance: DailyAllowance | None = None
    """The day's allowance of the member whose run this is, when one applies: every model
    call the run makes (steps and sampling alike) is checked against it and recorded."""
    _unknown: list[str] = field(default_factory=list)

    def add(self, usage: Mapping[str, int] | None, cost_usd: float | None, model: str) -> None:
        """One model step: `usage` tokens, at `cost_usd` (None: unknown price) by `model`."""
        if self.allowance is not None:
            self.allowance.spent(usage, cost_usd)
        spend: Spend | None = self
        while spend is not None:
            spend.tokens += (usage or {}).get("input_tokens", 0)
            spend.tokens += (usage or {}).get("output_tokens", 0)
            if cost_usd is None:
                spend.cost_usd = None
                spend._unknown.append(model)
            elif spend.cost_usd is not None:
                spend.cost_usd += cost_usd
            spend = spend.parent

    def add_sampled(self, usage: Mapping[str, int] | None, cost_usd: float | None,
                    model: str) -> None:  # fmt: skip
        """A model call made for a server during one of this run's calls: spent like a step
        (under the root's budget), and kept for this run's own usage."""
        self.add(usage, cost_usd, model)
        for key, value in (usage or {}).items():
            self.sampled[key] = self.sampled.get(key, 0) + value

    def _root(self) -> Spend:
        root = self
        while root.parent is not None:
            root = root.parent
        return root

    def tokens_left(self) -> int | None:
        """How many tokens the root run's budget has left (None: no token budget). A step
        is sent it as its output limit, so what a step spends past the budget is bounded
        by its input alone."""
        root = self._root()
        if root.budget is None or root.budget.max_tokens is None:
            return None
        return max(root.budget.max_tokens - root.tokens, 1)

    def over_budget(self) -> str | None:
        """Why no further step may start (None: it may), against the root run's budget and
        the member's day."""
        root = self._root()
        budget = root.budget
        if budget is None:
            return self.allowance.over() if self.allowance is not None else None
        if budget.max_tokens is not None and root.tokens >= budget.max_tokens:
            return (
                f"the run reached its budget of {budget.max_tokens:,} tokens ({root.tokens:,} used)"
            )
        if budget.max_cost_usd is None:
            return self.allowance.over() if self.allowance is not None else None
        if root.cost_usd is None:
            return (
                f"the run cannot keep to its budget of ${budget.max_cost_usd:g}: the price of"
                f" model {root._unknown[0]!r} is unknown"
            )
        if root.cost_usd >= budget.max_cost_usd:
            return (
                f"the run reached its budget of ${budget.max_cost_usd:g}"
                f" (${root.cost_usd:.4f} spent)"
            )
        return self.allowance.over() if self.allowance is not None else None


SPENDING: ContextVar[Spend | None] = ContextVar("threadlab_spending", default=None)
"""The spend of the run this code runs in (None outside runs)."""
