"""What the script-free view of a thread reads: its steps (`thread.steps()`, the one reading
every view of a thread uses), the messages they answer and quote, and each call's own events
— drawn once the run is over, where no script runs (a saved notebook on GitHub, nbconvert).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import CustomEvent, Message, RunFinishedEvent, StepRecord, Thread, ThreadStatusEvent
from ..mcp import APP_EVENT
from ._arguments import argument_label, folded_arguments
from ._view_state import ViewState, card_key, keep_event, preview

__all__ = ["StaticReading", "static_reading"]


@dataclass
class StaticThread:
    """A thread of the tree: its place, its name, its status now and what its steps cost."""

    id: str
    parent: str | None
    name: str
    agent: str
    status: str
    messages: list[Message]
    """All of its messages, a prompt tool's nested turns included, in the order stored."""
    files: list[tuple[str, int]]
    """Its files now: (path, size), by path."""
    cost_usd: float | None = 0.0
    """Its model steps' cost and its descendants' (None: a price is unknown)."""
    children: list[str] = field(default_factory=list)


@dataclass
class StaticReading:
    """A thread tree as its steps record it, ready to be drawn without a script."""

    root: str
    threads: dict[str, StaticThread]
    cards: dict[str, dict[str, Any]]
    """Each call's card, by its step's id, with the fields the live card has of a finished
    call (its "id" is the live card's key: `card_key`)."""
    calls: dict[str, list[str]]
    """A model step's message id -> its calls' step ids, in the order made."""
    run: dict[str, Any]
    """The root's last run: status, text, error, usage and cost (its subagents' included)."""
    replayed: tuple[int, int] | None
    """A replay's top-level model steps: (answered from the recording, by a model)."""


def static_reading(
    thread: Thread, steps: list[StepRecord] | None = None, shown: ViewState | None = None
) -> StaticReading:
    """`thread` and its descendants as their steps (`thread.steps()`, or `steps` read
    already) and stored messages tell it; with `shown`, only the messages of that view (a
    cell's view shows its own run: the conversation before it is in the cells above)."""
    steps = thread.steps() if steps is None else steps
    tree = _tree(thread)
    if shown is not None:
        tree = [t for t in tree if t.id in shown.threads]
    threads = {t.id: _thread_of(t, shown) for t in tree}
    for step in steps:  # the names their parents gave them
        if step.kind == "subagent" and step.event == "created":
            child = threads.get(step.child_thread_id or "")
            if child is not None and step.thread_id in threads:
                child.name = step.name or child.name
    for part in threads.values():
        if part.parent in threads:
            threads[part.parent].children.append(part.id)
    # The model steps and calls of the messages drawn (a cell's view: its own run's).
    drawn = {m.id for part in threads.values() for m in part.messages}
    own = [s for s in steps if s.kind not in ("model", "tool_call") or s.message_id in drawn]
    cards = _cards(thread.id, own, tree)
    calls: dict[str, list[str]] = {}
    for step in own:
        if step.id in cards:
            calls.setdefault(step.message_id or "", []).append(step.id)
    _spent(own, threads)
    top = [s for s in own if s.kind == "model" and s.thread_id == thread.id and not s.depth]
    replayed = sum(1 for s in top if s.replayed)
    return StaticReading(
        root=thread.id,
        threads=threads,
        cards=cards,
        calls=calls,
        run=_last_run(thread, own, shown.run if shown is not None else None),
        replayed=(replayed, len(top) - replayed) if replayed else None,
    )


def _tree(thread: Thread) -> list[Thread]:
    return [thread, *(t for child in thread.children for t in _tree(child))]


def _thread_of(thread: Thread, shown: ViewState | None) -> StaticThread:
    """`thread` as the view drew it: its messages, its status and files then (a cell's view
    is redrawn later too, when the thread has gone on); without a view, as it is now."""
    messages = thread.all_messages()
    if shown is None:
        status: str = thread.status
        files = sorted((f.path, f.size) for f in thread.files.list_sync("/"))
    else:
        ids = {m["id"] for m in shown.messages.get(thread.id, ())}
        messages = [m for m in messages if m.id in ids]
        status = shown.threads[thread.id]["status"]
        files = sorted((path, size) for path, (size, _) in shown.files.get(thread.id, {}).items())
    return StaticThread(
        id=thread.id,
        parent=thread.parent_id,
        name=thread.name,
        agent=thread.agent,
        status=status,
        messages=messages,
        files=files,
    )


def _cards(root: str, steps: list[StepRecord], tree: Iterable[Thread]) -> dict[str, dict[str, Any]]:
    """Each call's card, by its step's id: a model may repeat a call id, and each call keeps
    its own card, result and events."""
    by_call: dict[tuple[str, str], list[StepRecord]] = {}
    for step in steps:
        if step.kind == "tool_call" and step.tool_call_id is not None:
            by_call.setdefault((step.thread_id, step.tool_call_id), []).append(step)
    told: dict[str, list[CustomEvent]] = {}
    for thread in tree:
        for event in thread.events:
            if isinstance(event, CustomEvent) and event.tool_call_id:
                made = by_call.get((thread.id, event.tool_call_id))
                if made:
                    told.setdefault(_teller(made, event.at).id, []).append(event)
    asked = {  # the calls a pause that still waits holds back: their decision is asked for
        step.parent_id for step in steps if step.kind == "pause" and step.status == "waiting"
    }
    made_child = {  # a call that created a child -> the name the child got
        step.parent_id: step.name
        for step in steps
        if step.kind == "subagent" and step.event == "created" and step.parent_id
    }
    return {
        step.id: _card(
            card_key(root, step.thread_id, step.tool_call_id or ""),
            step,
            told.get(step.id, []),
            step.id in asked,
            made_child.get(step.id),
        )
        for made in by_call.values()
        for step in made
    }


def _teller(made: list[StepRecord], at: float) -> StepRecord:
    """Of the calls made with one id, the one an event of that id at `at` is about: the
    latest to have started by then (a call's events are told while it runs)."""
    return next((step for step in reversed(made) if step.started_at <= at), made[0])


def _card(
    key: str, step: StepRecord, events: list[CustomEvent], asked: bool, child: str | None
) -> dict[str, Any]:
    arguments = step.arguments
    if child is not None and isinstance(arguments, dict):
        labelled = {**arguments, "name": child}  # named as the tree names the child
    else:
        labelled = arguments
    card: dict[str, Any] = {
        "id": key,
        "thread": step.thread_id,
        "name": step.name or "",
        "depth": step.depth,
        "status": _status(step, asked),
        "progress": step.progress,
        "duration_ms": round(step.duration_s * 1000, 1) if step.duration_s is not None else None,
        "result": preview(step.result),
        "args": folded_arguments(arguments)[0] if arguments not in (None, {}) else "",
        "label": argument_label(labelled) if labelled is not None else "",
        "traceback": step.traceback,
        "events": [],
        "events_dropped": 0,
        "approval": _approval(step, asked),
        "proposed": (
            folded_arguments(step.proposed_arguments)[0]
            if step.proposed_arguments is not None
            else None
        ),
    }
    for e in events:
        if e.event_type != APP_EVENT and not e.event_type.startswith("elicitation"):
            keep_event(card, {"type": e.event_type, "data": e.data, "at": e.at})
    app = next((e.data for e in reversed(events) if e.event_type == APP_EVENT), None)
    if isinstance(app, dict):
        card["app"] = {k: v for k, v in app.items() if k != "html"}
    return card


def _status(step: StepRecord, asked: bool) -> str:
    """What the card says of the call: its outcome once it ended ("success", "error",
    "interrupted"); "waiting" for a decision; "queued" behind one (it never started)."""
    if step.status == "completed":
        return step.tool_status or "success"
    if step.status == "waiting":
        return "waiting" if asked else "queued"
    return step.status


def _approval(step: StepRecord, asked: bool) -> dict[str, Any] | None:
    decision = step.decision
    if decision is None:
        return {"state": "asked"} if asked else None
    approval: dict[str, Any] = {
        "state": "approved" if decision.approved else "rejected",
        "edited": decision.edited,
        "by": decision.by,
        "reason": decision.reason,
    }
    if decision.edited:
        approval["arguments"] = json.dumps(step.arguments, ensure_ascii=False)
    return approval


def _spent(steps: list[StepRecord], threads: dict[str, StaticThread]) -> None:
    """Each model step's cost, added to its thread and the threads above it (an unknown
    price makes each of their totals unknown)."""
    for step in steps:
        if step.kind != "model":
            continue
        at: str | None = step.thread_id
        while at is not None and at in threads:
            total = threads[at]
            known = total.cost_usd
            cost = step.cost_usd
            total.cost_usd = None if known is None or cost is None else known + cost
            at = total.parent


def _last_run(
    thread: Thread, steps: list[StepRecord], shown: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The root's last run — or, for a view, the run it showed (`shown`: its run summary) —
    how it ended (or "running"), and what its model steps, its subagents' included, used
    and cost. The end is read as stored; a view whose run's end was never stored (a kernel
    interrupt) says what the view said."""
    ended = shown.get("run_id") if shown is not None else None
    run: dict[str, Any] = {"status": "idle", "text": None, "error": None}
    began: float | None = None
    found = False
    for event in thread.events:
        if isinstance(event, ThreadStatusEvent) and event.status == "running" and not event.depth:
            if run["status"] != "running":
                began, run = event.at, {"status": "running", "text": None, "error": None}
        elif isinstance(event, ThreadStatusEvent) and event.status == "idle" and not event.depth:
            if run["status"] == "running":  # stopped with no end of its own: a branch's cut
                run["status"] = "idle"
        elif isinstance(event, RunFinishedEvent) and not event.depth:
            run.update(status=event.status, text=event.text, error=event.error)
            if ended is not None and event.run_id == ended:
                found = True
                break  # the view's run: what came after it is another cell's
    if shown is not None and not found:
        run = {key: shown.get(key) for key in ("status", "text", "error")}
    usage: dict[str, int] = {}
    cost: float | None = 0.0
    for step in steps:
        if step.kind != "model" or (began is not None and step.started_at < began):
            continue
        for name, count in (step.usage or {}).items():
            usage[name] = usage.get(name, 0) + count
        cost = None if cost is None or step.cost_usd is None else cost + step.cost_usd
    run.update(usage=usage or None, cost_usd=cost)
    return run
