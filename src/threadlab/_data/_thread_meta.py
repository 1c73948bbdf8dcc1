"""`ThreadMeta`: what the store keeps about a thread beside its history (the `metadata`
column, JSON), typed: where it was made, what a child is to its parent, whether its last run
was interrupted, where a branch was forked from."""

from __future__ import annotations

from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

from ._runs import ForkPoint, ThreadStatus

__all__ = ["ThreadMeta"]


class ThreadMeta(BaseModel):
    """A thread's metadata. Keys it does not know (a later release's) are kept as they are."""

    model_config = ConfigDict(extra="allow")

    origin: str | None = None
    """Where it was created (a notebook's path), when that was given."""
    answering_agent: str | None = Field(
        default=None,
        validation_alias=AliasChoices("answering_agent", "owner"),
        serialization_alias="owner",
    )
    """The agent answering now, once it was handed off (None: the thread's own agent). Stored
    under its first name, "owner", which stores written before keep."""
    name: str | None = None
    """A child's instance label (None: the agent's name)."""
    relationship: str | None = None
    """A child: the name of the relationship that created it."""
    description: str = ""
    """A child: its agent's description."""
    blocking: bool = True
    """A child: whether its parent waits for its runs."""
    resumable: bool = False
    """A child: whether it can be messaged after its first session."""
    parent_communication: str = "implicit"
    """A child: how it reports to its parent."""
    status: ThreadStatus = "idle"
    """A child's lifecycle, as its parent sees it."""
    runs_on: Literal["here", "workers", "engine"] | None = None
    """A thread left in the store for the runtime's engine ("engine", a Ray task): a child,
    or a queued run. "workers" is read in stores written while polling worker processes ran
    such threads (they no longer exist: such a child messaged again runs where its parent
    runs)."""
    model: str | None = None
    """The model (by name) its prompts use instead of their own, chosen when it was made
    (an evaluation's grid): whichever process runs it reads it here."""
    waiting: bool = False
    """Its last run ended waiting: for a decision on a tool call, or before a model step."""
    waiting_on: dict[str, str] = {}
    """Its open calls whose blocking child paused for a decision: call id → child id (the
    child to resume for that call's result)."""
    interrupted: bool = False
    """Its last run was interrupted: a call may still lack its result until it is repaired."""
    forked_from: ForkPoint | None = None
    """A branch: the thread and the point it was forked from."""

    @classmethod
    def read(cls, raw: str | None) -> ThreadMeta | None:
        """The metadata stored as `raw`; None when it cannot be read (a damaged row)."""
        try:
            return cls.model_validate_json(raw or "{}")
        except ValidationError:
            return None

    def dumps(self) -> str:
        """As stored: the fields that differ from their defaults."""
        return self.model_dump_json(exclude_defaults=True, by_alias=True)
