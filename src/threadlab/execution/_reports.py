"""What the parent of a non-blocking child hears of it: its outcome, queued on the parent as a
message (implicit communication), or that it failed."""

from __future__ import annotations

from typing import Any

from ..threads import ThreadContext

__all__ = ["WORKER_STOPPED", "deliver_report", "report_failure"]

WORKER_STOPPED = "its worker stopped before it finished; what it did is in its history"


def deliver_report(parent: ThreadContext, child: ThreadContext, outcome: dict[str, Any]) -> None:
    """Queue a non-blocking child's outcome on its parent (implicit communication)."""
    verb = "completed" if outcome["status"] == "completed" else "failed"
    text = f"Subagent {child.identity.name!r} ({child.id}) {verb}:\n{outcome['result'] or ''}"
    parent.deliver(text, outcome["attachments"], child.id)


def report_failure(parent: ThreadContext, child: ThreadContext, error: str) -> None:
    """A non-blocking child that could not run, or not to its end: its parent hears it
    failed (when it hears of its children at all: implicit communication)."""
    if child.identity.parent_communication == "implicit":
        outcome = {"reference": child.id, "status": "failed", "result": error, "attachments": []}
        deliver_report(parent, child, outcome)
