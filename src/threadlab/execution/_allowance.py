"""A member's daily allowance: what a member's model steps may spend in a day (UTC), every
process on the store together — the store keeps the account (`UsageLedger`), so a class on one
key stays within what its teacher allowed however many notebooks the students open."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass

from .._data import Budget
from ..store import Store, UsageLedger

__all__ = ["DailyAllowance"]

_DAY = 86_400.0


@dataclass(frozen=True)
class DailyAllowance:
    """The limits of one member's day, and the store that keeps its account."""

    ledger: UsageLedger
    member: str
    max_tokens: int | None
    max_cost_usd: float | None

    @classmethod
    def of(cls, store: Store, member: str | None, budget: Budget | None) -> DailyAllowance | None:
        """The allowance a run of `member`'s keeps to: its runtime's `Budget` per day and the
        store's class allowance, the lower of each (None: no daily limit applies)."""
        if member is None or not isinstance(store, UsageLedger):
            return None
        limits = [budget.max_tokens_per_day] if budget is not None else []
        limits.append(store.class_allowance())
        tokens = min((t for t in limits if t is not None), default=None)
        cost = budget.max_cost_usd_per_day if budget is not None else None
        if tokens is None and cost is None:
            return None
        return cls(store, member, tokens, cost)

    def over(self, now: float | None = None) -> str | None:
        """Why no further model step may start today (None: it may)."""
        now = time.time() if now is None else now
        tokens, cost = self.ledger.usage_since(self.member, now - now % _DAY)
        if self.max_tokens is not None and tokens >= self.max_tokens:
            return (
                f"{self.member} reached the daily budget of {self.max_tokens:,} tokens"
                f" ({tokens:,} used today, UTC)"
            )
        if self.max_cost_usd is not None and cost >= self.max_cost_usd:
            return (
                f"{self.member} reached the daily budget of ${self.max_cost_usd:g}"
                f" (${cost:.4f} spent today, UTC)"
            )
        return None

    def spent(self, usage: Mapping[str, int] | None, cost_usd: float | None) -> None:
        """One model step of this member's spent `usage` at `cost_usd`."""
        tokens = (usage or {}).get("input_tokens", 0) + (usage or {}).get("output_tokens", 0)
        self.ledger.add_usage(self.member, time.time(), tokens, cost_usd)
