"""What a list of threads shows of each root thread, with its status decided once, here: the
whole list at once (`overview`), or a page of it, filtered and searched (`browse`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .._data import ThreadMeta
from .._errors import ThreadlabError
from ..store import RunRecord, Store, ThreadBrowser, ThreadListing, ThreadQuery, ThreadSummary
from ..threads import RunLeases

__all__ = ["ThreadOverview", "browse", "overview"]


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
    origin_kind: str | None = None
    """Where it came from, as a browsed list tells them apart: "notebook", "evaluation",
    "mcp", "ray" (left to the engine) or "script" (nothing recorded); None in `overview()`."""
    updated_at: float | None = None
    """Its last activity (a browsed list's; None in `overview()`)."""
    duration_s: float | None = None
    """How long its runs ran together, in seconds (a browsed list's)."""
    usage: dict[str, int] | None = None
    """The tokens its model steps and its descendants' reported, by kind (a browsed list's)."""
    cost_usd: float | None = None
    """What those steps cost, from known prices (a browsed list's; None when unknown)."""
    forked_from: str | None = None
    """The thread it is a branch of (`thread.fork`), when it is one."""


def overview(store: Store, leases: RunLeases) -> list[ThreadOverview]:
    """Every root thread of `store`, newest first, in one query."""
    return [_overview(summary, leases) for summary in store.summarize_threads()]


def browse(
    store: Store, leases: RunLeases, query: ThreadQuery
) -> tuple[list[ThreadOverview], ThreadQuery | None]:
    """A page of threads as `query` asks, newest first, and the query of the next page (None
    after the last). "running" and "interrupted" are both runs still marked running: which
    one a thread is, its lease says, so a page of either may hold fewer than `limit`."""
    if not isinstance(store, ThreadBrowser):
        raise ThreadlabError(
            f"the store {type(store).__name__} cannot list its threads a page at a time: give"
            " it `browse_threads` (threadlab.store.ThreadBrowser)"
        )
    asked = query.status
    stored = "running" if asked in ("running", "interrupted") else asked
    listed = store.browse_threads(dataclasses.replace(query, status=stored))
    page = listed[: max(query.limit, 0)]
    shown = [_browsed(listing, leases) for listing in page]
    following = (
        dataclasses.replace(query, after=page[-1].place) if len(listed) > len(page) else None
    )
    return [o for o in shown if asked is None or o.status == asked], following


def _browsed(listing: ThreadListing, leases: RunLeases) -> ThreadOverview:
    summary = ThreadSummary(listing.record, 0, 0, listing.last_run_status, listing.running)
    return dataclasses.replace(
        _overview(summary, leases),
        origin_kind=listing.origin,
        updated_at=listing.updated_at,
        duration_s=listing.duration_s,
        usage=listing.usage,
        cost_usd=listing.cost_usd,
    )


def _status(last_run_status: str | None, running: RunRecord | None, leases: RunLeases) -> str:
    if running is not None and leases.is_live(running):
        return "running"
    if last_run_status == "running":
        return "interrupted"
    return last_run_status or "never run"


def _overview(summary: ThreadSummary, leases: RunLeases) -> ThreadOverview:
    record = summary.record
    status = _status(summary.last_run_status, summary.running, leases)
    meta = ThreadMeta.read(record.metadata)
    origin = meta.origin if meta is not None and isinstance(meta.origin, str) else None
    model = meta.model if meta is not None and isinstance(meta.model, str) else None
    branched = meta.forked_from if meta is not None else None
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
        forked_from=branched.thread_id if branched is not None else None,
    )
