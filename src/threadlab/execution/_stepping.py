"""Step mode: where a run pauses for a person to look before it goes on — before each
top-level tool call (its call waits for a decision, as with `approval="always"`), before each
top-level model step (the run ends "waiting" with the request it is about to send), or both.
A debugger's step for a thread, and a teacher's."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from .._errors import ThreadlabError

__all__ = ["NO_STEPPING", "Follower", "StepOption", "Stepping"]

StepOption = bool | Literal["tools", "model", "all"]
"""What `send(step=...)` takes: False, True (= "tools"), "tools", "model" or "all"."""


class Follower:
    """The caller following a run a step at a time (`thread.iter`). At each top-level step
    the run waits until the caller has taken the steps before it and asks for more, so a
    caller that stops following stops the run where it stood: the run then pauses before
    that step (a resume goes on from there)."""

    def __init__(self, at_step: Callable[[], None]) -> None:
        self._at_step = at_step  # the caller is told that the run waits at a step
        self._go = asyncio.Event()
        self.waiting = False
        """Whether the run waits at a step for the caller to ask for it."""
        self.left = False
        """Whether the caller stopped following."""

    async def may_go_on(self) -> bool:
        """Wait at a step until the caller asks for it (True) or leaves (False)."""
        if self.left:
            return False
        self.waiting = True
        self._at_step()
        try:
            await self._go.wait()
        finally:
            self._go.clear()
            self.waiting = False
        return not self.left

    def go(self) -> None:
        """The caller asks for the next step."""
        self._go.set()

    def leave(self) -> None:
        """The caller stops following: the run pauses before its next step."""
        self.left = True
        self._go.set()


@dataclass(frozen=True)
class Stepping:
    """Where a run pauses."""

    tools: bool = False
    """Before each top-level tool call."""
    model: bool = False
    """Before each top-level model step."""
    follower: Follower | None = field(default=None, compare=False)
    """The caller following the run a step at a time, if one does (`Follower`)."""

    async def may_go_on(self) -> bool:
        """At a top-level step: whether the run goes on to it (False: the caller following
        it left, and it pauses there)."""
        return self.follower is None or await self.follower.may_go_on()

    @classmethod
    def of(cls, step: object) -> Stepping:
        """The stepping a `step=` option asks for; a `ThreadlabError` for anything else."""
        if step is False or step is None:
            return cls()
        if step is True or step == "tools":
            return cls(tools=True)
        if step == "model":
            return cls(model=True)
        if step == "all":
            return cls(tools=True, model=True)
        raise ThreadlabError(f"step must be False, True, 'tools', 'model' or 'all'; got {step!r}")

    def __bool__(self) -> bool:
        return self.tools or self.model


NO_STEPPING = Stepping()
"""A run that never pauses for a person."""
