"""What a list of threads shows of each root thread, with its status decided once, here."""

from __future__ import annotations

from dataclasses import dataclass

from .._data import ThreadMeta
from ..store import Store, ThreadSummary
from ..threads import RunLeases

__all__ = ["ThreadOverview", "overview"]


@dataclass(frozen=True)
class ThreadOverview:
    """One root thread as a list shows it, read without opening the thread.

    `status` is "running" only while a live process runs it; a run whose process is gone
    reads "interrupted" (opening the thread repairs it); "never run" before its first run;
    otherwise its last run's status.
    """

    id: str
    agent: str
    created_at: float
    status: str
    messages: int
    """Top-level messages."""
    children: int
    origin: str | None
    """The notebook it was made in, "mcp" for a call from an MCP client, "eval:<name>" for an
    evaluation's run; None when not recorded."""
    model: str | None
    """The model (by name) its prompts use instead of their own, when one was chosen."""
    user: str | None = None
    """The member of a class it belongs to (`thread.user`)."""


def overview(store: Store, leases: RunLeases) -> list[ThreadOverview]:
    """Every root thread of `store`, newest first, in one query."""
    return [_overview(summary, leases) for summary in store.summarize_threads()]


def _overview(summary: ThreadSummary, leases: RunLeases) -> ThreadOverview:
    record = summary.record
    if summary.running is not None and leases.is_live(summary.running):
        status = "running"
    elif summary.last_run_status == "running":
        status = "interrupted"
    else:
        status = summary.last_run_status or "never run"
    meta = ThreadMeta.read(record.metadata)
    origin = meta.origin if meta is not None and isinstance(meta.origin, str) else None
    model = meta.model if meta is not None and isinstance(meta.model, str) else None
    return ThreadOverview(
        record.id,
        record.target,
        record.created_at,
        status,
        summary.messages,
        summary.children,
        origin,
        model,
        record.member,
    )
