"""Step mode: where a run pauses for a person to look before it goes on — before each
top-level tool call (its call waits for a decision, as with `approval="always"`), before each
top-level model step (the run ends "waiting" with the request it is about to send), or both.
A debugger's step for a thread, and a teacher's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .._errors import ThreadlabError

__all__ = ["NO_STEPPING", "StepOption", "Stepping"]

StepOption = bool | Literal["tools", "model", "all"]
"""What `send(step=...)` takes: False, True (= "tools"), "tools", "model" or "all"."""


@dataclass(frozen=True)
class Stepping:
    """Where a run pauses."""

    tools: bool = False
    """Before each top-level tool call."""
    model: bool = False
    """Before each top-level model step."""

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
