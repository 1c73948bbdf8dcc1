"""The normalised state every view draws: a thread tree built from its events.

Live runs and reopened threads feed the same events through `ViewState.apply`, so what a
person sees after a kernel restart is exactly what they saw while the run happened.
"""

from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import (
    ApprovalDecidedEvent,
    ApprovalRequestedEvent,
    CustomEvent,
    FileWrittenEvent,
    Message,
    MessageCreatedEvent,
    RunFinishedEvent,
    SubagentCreatedEvent,
    TextDeltaEvent,
    ThreadEvent,
    ThreadStatusEvent,
    ToolCallDeltaEvent,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
)
from ..mcp import APP_EVENT
from ._arguments import LIVE_ARGUMENT_CHARS, argument_label, folded_arguments
from ._json_text import as_json_text, json_copy

__all__ = [
    "CARD_EVENTS",
    "PREVIEW_CHARS",
    "Changed",
    "ViewState",
    "call_of",
    "card_key",
    "cost_text",
    "keep_event",
    "preview",
    "usage_text",
]

# What a view holds of a message or result; the rest is fetched on demand.
PREVIEW_CHARS = 600
# The most of a result a tool's app is kept with (a larger one is fetched from the kernel).
APP_RESULT_CHARS = 256 * 1024
# The most of a waiting call's arguments a card holds for editing; longer ones are approved
# or rejected as they are (or edited with `%threadlab approve --arguments`).
EDITABLE_CHARS = 64 * 1024
CARD_EVENTS = 100
"""The most of a call's own events a card keeps: the latest (its progress is the last). A
tool, or an MCP server, that tells a call thousands of things live (each heard, few stored)
would otherwise grow the view, and the notebook saved with it, by as many; the card counts
the rest (`events_dropped`)."""

MessageLookup = Callable[[str, str], Message | None]


def cost_text(cost_usd: float | None) -> str:
    """A cost in words: "$0.0032", "$1.25", "cost unknown" (None); "" for nothing spent.

    Examples:
        >>> cost_text(0.00321), cost_text(1.254), cost_text(None), cost_text(0.0)
        ('$0.0032', '$1.25', 'cost unknown', '')
    """
    if cost_usd is None:
        return "cost unknown"
    if not cost_usd:
        return ""
    return f"${cost_usd:.4f}" if cost_usd < 1 else f"${cost_usd:.2f}"


def usage_text(usage: dict[str, int] | None) -> str:
    """Token counts in words, e.g. "120 in / 35 out / 80 cached tokens"; "" for none.

    Examples:
        >>> usage_text({"input_tokens": 120, "output_tokens": 35})
        '120 in / 35 out tokens'
    """
    if not usage:
        return ""
    parts = [
        f"{usage[key]:,} {word}"
        for key, word in (
            ("input_tokens", "in"),
            ("output_tokens", "out"),
            ("cached_tokens", "cached"),
        )
        if key in usage
    ]
    return " / ".join(parts) + " tokens" if parts else ""


def preview(text: str | None) -> str:
    """What a view holds of a long text: its first `PREVIEW_CHARS` characters."""
    if not text:
        return ""
    return text if len(text) <= PREVIEW_CHARS else text[:PREVIEW_CHARS] + "…"


REQUEST_SHOWN = 20_000
"""The most of a paused step's request a view's state holds (a long thread's is long)."""


def _run_summary(status: str) -> dict[str, Any]:
    return {
        "status": status,
        "text": None,
        "error": None,
        "usage": None,
        "cost_usd": 0.0,
        "stop_reason": None,
        "run_id": None,
    }


@dataclass
class Changed:
    """The keys of a view state that events touched (a superset of what changed: a patch compares
    these, and only these, with what the front end has)."""

    threads: set[str] = field(default_factory=set)
    cards: set[str] = field(default_factory=set)
    messages: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    drafts: set[str] = field(default_factory=set)
    apps: set[str] = field(default_factory=set)
    run: bool = False


class ViewState:
    """Threads, their conversations, tool-call cards and files, as plain JSON-able data."""

    def __init__(self, root_id: str, lookup: MessageLookup) -> None:
        self.root_id = root_id
        self._lookup = lookup
        self.threads: dict[str, dict[str, Any]] = {}
        self.messages: dict[str, list[dict[str, Any]]] = {}
        self.cards: dict[str, dict[str, Any]] = {}
        self.files: dict[str, dict[str, tuple[int, str | None]]] = {}  # path: size, digest
        self.drafts: dict[str, str] = {}  # text streaming in, per thread
        self.apps: dict[str, str] = {}  # tools' app pages, by a digest of each: cards name them
        # When each thread's runs started and ended ((at, started), in time order): a
        # message's step began when the run it was stored in started, whichever order they
        # were heard in. A Ray child's stored events reach a live view later than its
        # parent's looks at it, which say "running" again, after the run started.
        self.run_marks: dict[str, list[tuple[float, bool]]] = {}
        self._calls: dict[str, list[str]] = {}  # an assistant message's call ids, in order
        self._made: dict[str, str] = {}  # a call that created a child -> the child's name
        self.run: dict[str, Any] = _run_summary("idle")
        self.related: list[dict[str, Any]] = []
        """Tree nodes of other threads shown with this one: the thread it was forked from,
        and its branches (each with "relation": "origin" or "branch"; selecting one opens it)."""
        self.changed = Changed()
        """What events touched since the view last took it: a live update looks only at
        these, so it costs what changed, not what the run has done so far."""

    def add_thread(
        self, thread_id: str, parent: str | None, agent: str, name: str, status: str = "idle"
    ) -> None:
        if thread_id not in self.threads:
            self.threads[thread_id] = {
                "id": thread_id,
                "parent": parent,
                "agent": agent,
                "name": name,
                "status": status,
                "progress": None,
                "cost_usd": 0.0,  # its model steps' and its descendants' (None: unknown)
            }
            self.messages.setdefault(thread_id, [])
            self.files.setdefault(thread_id, {})
            self.changed.threads.add(thread_id)

    def apply(self, event: ThreadEvent) -> None:
        """Fold one event into the state."""
        tid = event.thread_id
        if tid not in self.threads:
            parent = event.thread_path[-2] if len(event.thread_path) > 1 else None
            self.add_thread(tid, parent, "", tid)
        thread = self.threads[tid]
        self.changed.threads.add(tid)
        if isinstance(event, TextDeltaEvent):
            self.drafts[tid] = self.drafts.get(tid, "") + event.delta
            self.changed.drafts.add(tid)
        elif isinstance(event, ToolCallDeltaEvent):
            card = self._card(self.key(tid, event.tool_call_id), tid, event.name, event.depth)
            card["args_chars"] += len(event.delta)
            if len(card["args"]) < LIVE_ARGUMENT_CHARS:  # the head, while the rest streams
                card["args"] = (card["args"] + event.delta)[:LIVE_ARGUMENT_CHARS]
        elif isinstance(event, ToolCallStartedEvent):
            # Started = its progress is known; the arguments may still be streaming. It runs
            # once its message is complete (see _message), in the message's order.
            card = self._card(self.key(tid, event.tool_call_id), tid, event.name, event.depth)
            card["progress"] = event.progress
            card["started_at"] = event.at
            thread["progress"] = event.progress or f"calling {event.name}"
        elif isinstance(event, ToolCallFinishedEvent):
            card = self._card(self.key(tid, event.tool_call_id), tid, event.name, event.depth)
            card["status"] = event.status
            card["duration_ms"] = round(event.duration_ms, 1)
            card["finished_at"] = event.at
            card["traceback"] = event.traceback
            thread["progress"] = None
            self._run_next(card)
        elif isinstance(event, ApprovalRequestedEvent):
            card = self._card(self.key(tid, event.tool_call_id), tid, event.name, event.depth)
            card["status"] = "waiting"
            given = json.dumps(event.arguments, indent=1, ensure_ascii=False)
            card["approval"] = {
                "state": "asked",
                "arguments": given if len(given) <= EDITABLE_CHARS else None,
            }
            thread["progress"] = f"{event.name} waits for a decision"
        elif isinstance(event, ApprovalDecidedEvent):
            card = self._card(self.key(tid, event.tool_call_id), tid, "", event.depth)
            card["approval"] = {
                "state": "approved" if event.approved else "rejected",
                "edited": event.edited,
                "by": event.by,
                "reason": event.reason,
            }
            if event.edited:  # what it ran with instead of what the model asked for
                card["approval"]["arguments"] = json.dumps(event.arguments, ensure_ascii=False)
                # The card shows what ran; the model's proposal stays visible beside it.
                if card.get("proposed") is None:
                    card["proposed"] = card["args"]
                    card["proposed_label"] = card["label"]  # shown at a point before it
                card["args"], card["args_folded"] = folded_arguments(event.arguments)
                card["label"] = argument_label(event.arguments)
            if card["status"] == "waiting":
                card["status"] = "running" if event.approved else "queued"
            thread["progress"] = None
        elif isinstance(event, MessageCreatedEvent):
            self._message(event)
        elif isinstance(event, SubagentCreatedEvent):
            self.add_thread(event.child_thread_id, tid, "", event.name, "running")
            self.threads[event.child_thread_id]["name"] = event.name
            self.changed.threads.add(event.child_thread_id)
            if event.tool_call_id:
                made = self.key(tid, event.tool_call_id)
                self._made[made] = event.name
                if made in self.cards:
                    self._name_child(self.cards[made])
        elif isinstance(event, FileWrittenEvent) and event.deleted:
            self.files.setdefault(tid, {}).pop(event.path, None)
            self.changed.files.add(tid)
        elif isinstance(event, FileWrittenEvent):
            self.files.setdefault(tid, {})[event.path] = (event.size, event.digest)
            self.changed.files.add(tid)
        elif isinstance(event, CustomEvent):
            told = self.key(tid, event.tool_call_id) if event.tool_call_id else None
            if told is not None and told in self.cards:
                card = self.cards[told]
                if event.event_type == "elicitation_asked":  # a form, while the call waits
                    card["elicitation"] = {"state": "asked", **_mapping(event.data)}
                elif event.event_type == APP_EVENT:  # the tool's app, drawn under its card
                    card["app"] = self._app(event.data)
                else:
                    keep_event(card, {"type": event.event_type, "data": event.data, "at": event.at})
                # answered: the form gives way (a gated sampling request's form too)
                if event.event_type == "elicitation" or (
                    event.event_type == "sampling" and card.get("elicitation")
                ):
                    card["elicitation"] = {"state": "answered", **_mapping(event.data)}
                self.changed.cards.add(told)
        elif isinstance(event, ThreadStatusEvent):
            if event.status in ("running", "idle"):
                self._run_mark(tid, event.at, started=event.status == "running")
            if tid == self.root_id or event.status != "idle":  # a child's end: its run's
                thread["status"] = event.status
            if tid == self.root_id and event.status == "running":
                self.start_run()
            elif tid == self.root_id and event.status == "idle" and self.run["status"] == "running":
                # Stopped with no end of its own to follow (a branch cut inside the run, an
                # owner that died): no longer running. A run that ends says how next.
                self.run["status"] = "idle"
                self.changed.run = True
                for card in self.cards.values():  # its open calls never ran: a resume runs them
                    if card["thread"] == tid and card["status"] == "running":
                        card["status"] = "queued"
                        self.changed.cards.add(card["id"])
        elif isinstance(event, RunFinishedEvent):
            # A child's run ended: it says how (completed, failed, waiting), not "idle".
            thread["status"] = event.status
            if tid == self.root_id:
                self.run.update(
                    status=event.status,
                    text=event.text,
                    error=event.error,
                    stop_reason=event.stop_reason,
                    run_id=event.run_id,
                )
                self.changed.run = True

    def key(self, thread_id: str, call_id: str) -> str:
        """The key of the card of `thread_id`'s call `call_id` in this view (`card_key`)."""
        return card_key(self.root_id, thread_id, call_id)

    def _card(self, call_id: str, thread_id: str, name: str, depth: int) -> dict[str, Any]:
        self.changed.cards.add(call_id)  # asked for to be changed (or made)
        card = self.cards.get(call_id)
        if card is None:
            card = {
                "id": call_id,
                "thread": thread_id,
                "name": name,
                "depth": depth,
                "progress": None,
                "status": "streaming",
                "duration_ms": None,
                "result": None,
                "result_chars": 0,
                "args_chars": 0,
                "args": "",
                "label": "",
                "message": None,
                "traceback": None,
                "events": [],
                "events_dropped": 0,  # the earlier ones a card no longer keeps
                "started_at": None,
                "finished_at": None,
                "approval": None,
                "elicitation": None,  # a server's form: asked (live), then answered
                "proposed": None,  # the model's arguments, when a decision edited them
                "args_folded": False,  # long strings folded: the view asks for the rest
            }
            self.cards[call_id] = card
        return card

    def _app(self, data: object) -> dict[str, Any]:
        """A card's app: its page held once in `apps` (every call of a tool shows the same
        page, and a page is often hundreds of KB), the card naming it."""
        app = _mapping(data)
        html = app.pop("html", None)
        if isinstance(html, str):
            key = hashlib.sha256(html.encode()).hexdigest()[:16]
            if key not in self.apps:
                self.apps[key] = html
                self.changed.apps.add(key)
            app["page"] = key
        return app

    def file_list(self, tid: str) -> list[dict[str, Any]]:
        """`tid`'s files as the file browser lists them, by path; a file's digest names the
        content its preview shows."""
        return [
            _file_entry(path, size, digest)
            for path, (size, digest) in sorted(self.files.get(tid, {}).items())
        ]

    def _run_mark(self, tid: str, at: float, *, started: bool) -> None:
        bisect.insort(self.run_marks.setdefault(tid, []), (at, started))
        for entry in reversed(self.messages.get(tid, ())):  # those it may place anew
            if entry["at"] < at:
                break
            if entry["role"] == "assistant":
                since = self._run_start_before(tid, entry["at"])
                if since is not None and since != entry.get("since"):
                    entry["since"] = since
                    self.changed.messages.add(tid)

    def _run_start_before(self, tid: str, at: float) -> float | None:
        """When the run that was going at `at` started: the first "running" since the last
        "idle" before it (a "running" heard while running is a look, not a start)."""
        marks = self.run_marks.get(tid, [])
        start = None
        for mark, started in reversed(marks[: bisect.bisect_right(marks, (at, True))]):
            if not started:
                break
            start = mark
        return start

    def _message(self, event: MessageCreatedEvent) -> None:
        tid = event.thread_id
        message = self._lookup(tid, event.message_id)
        if message is None:
            return
        if message.role == "assistant":
            self.drafts.pop(tid, None)
            self.changed.drafts.add(tid)
        self.changed.messages.add(tid)
        self.changed.run = True  # its usage and cost
        entry: dict[str, Any] = {
            "id": message.id,
            "role": message.role,
            "text": preview(message.content),
            "chars": len(message.content or ""),
            "depth": message.depth,
            "side": message.side,
            "calls": [self.key(tid, c.id) for c in message.tool_calls],
            "attachments": list(message.attachments),
            "usage": message.usage,
            "cost_usd": message.cost_usd,
            "subagent": message.subagent_id,
            "thread": tid,
            "at": event.at,  # when it was stored: an assistant message ends its model step
            "reasoning": preview("\n\n".join(r.text for r in message.reasoning if r.text)),
            "model": message.model,  # "replay": a replayed step
        }
        if message.role == "assistant":
            self._spent(tid, message.cost_usd)
            # Its step could not start before its run did: a pause before it (step mode, a
            # decision) is nobody's time, not the model's.
            since = self._run_start_before(tid, event.at)
            if since is not None:
                entry["since"] = since
        if message.usage:
            # The run's tokens, its subagents' included: what the run cost.
            total = self.run.get("usage") or {}
            self.run["usage"] = {
                key: total.get(key, 0) + message.usage.get(key, 0)
                for key in {*total, *message.usage}
            }
        self.messages.setdefault(tid, []).append(entry)
        for call in message.tool_calls:
            card = self._card(self.key(tid, call.id), tid, call.name, message.depth)
            card["message"] = message.id
            if card["status"] == "streaming":
                card["status"] = "queued"  # complete; calls run one at a time, in order
            # The stored arguments are the measure, live or replayed (deltas are live only).
            card["args_chars"] = len(
                call.arguments if isinstance(call.arguments, str) else as_json_text(call.arguments)
            )
            card["args"], card["args_folded"] = folded_arguments(call.arguments)
            if call.arguments == {}:
                card["args"] = ""
            card["label"] = argument_label(call.arguments)
            if card["id"] in self._made:
                self._name_child(card)
        self._calls[message.id] = entry["calls"]
        if message.tool_calls:
            self._run_next(None, message.id)
        if message.role == "tool" and message.tool_call_id:
            card = self._card(
                self.key(tid, message.tool_call_id), tid, message.name or "", message.depth
            )
            self._take_result(card, message)

    def _name_child(self, card: dict[str, Any]) -> None:
        """The card of a call that created a child names it as the tree does: by the name
        the child got (a taken one gets "-2"), not the one the model asked for."""
        name = self._made[card["id"]]
        try:
            arguments = json.loads(card["args"])
        except ValueError:
            arguments = None
        asked = {**arguments, "name": name} if isinstance(arguments, dict) else {"name": name}
        card["label"] = argument_label(asked)
        self.changed.cards.add(card["id"])

    def start_run(self) -> None:
        """A run of the root thread starts: its summary starts over."""
        self.run = _run_summary("running")
        self.changed.run = True

    def _spent(self, thread_id: str, cost_usd: float | None) -> None:
        """A step's cost, added to its thread, the threads above it and the run (an unknown
        price makes each of their totals unknown)."""
        totals = [self.run]
        at: str | None = thread_id
        while at is not None and at in self.threads:
            totals.append(self.threads[at])
            self.changed.threads.add(at)
            at = self.threads[at]["parent"]
        for total in totals:
            known = total.get("cost_usd", 0.0)
            total["cost_usd"] = None if known is None or cost_usd is None else known + cost_usd

    def _run_next(self, finished: dict[str, Any] | None, message_id: str | None = None) -> None:
        """The message's first queued call is the one running now."""
        message_id = message_id or (finished or {}).get("message")
        for call_id in self._calls.get(message_id or "", ()):
            card = self.cards.get(call_id)
            if card is not None and card["status"] == "running":
                return
            if card is not None and card["status"] == "queued":
                card["status"] = "running"
                self.changed.cards.add(call_id)
                return

    @staticmethod
    def _take_result(card: dict[str, Any], message: Message) -> None:
        card["result"] = preview(message.content)
        card["result_chars"] = len(message.content or "")
        card["status"] = message.tool_status or card["status"]
        app = card.get("app")
        if isinstance(app, dict) and len(message.content or "") <= APP_RESULT_CHARS:
            # The app is given the whole result, in a saved output too (a card keeps less).
            card["app"] = {**app, "result": message.content or ""}
        if message.unfinished and card.get("finished_at") is None:
            # It never finished (no end of its own was heard): not an error of the tool's. A
            # tool that returns or raises the same words did finish.
            card["status"] = "interrupted"

    def settle(self, results: Callable[[str], list[Message]]) -> None:
        """After a run ended early: every card still streaming or running takes the result
        its thread stored for it (`results(thread_id)`: the thread's tool messages), or says
        "interrupted" — a frozen view never shows a call as still running. A run that waits
        for a decision keeps its open calls as they are: they never started."""
        waiting = self.run.get("status") == "waiting"
        states = ("running",) if waiting else ("streaming", "queued", "running")
        # A call that waited for a decision keeps waiting, unless the run closed it with a
        # result (a nested call: its turn cannot be gone on with later).
        unfinished = [c for c in self.cards.values() if c["status"] in (*states, "waiting")]
        self.changed.cards.update(c["id"] for c in unfinished)
        stored: dict[str, dict[str, Message]] = {}
        for card in unfinished:
            if card["thread"] not in stored:
                stored[card["thread"]] = {
                    m.tool_call_id: m for m in results(card["thread"]) if m.tool_call_id
                }
            message = stored[card["thread"]].get(call_of(card["thread"], card["id"]))
            if message is not None:
                self._take_result(card, message)
            elif card["status"] != "waiting":
                card["status"] = "interrupted"

    def paused_before(self, request: str, tools: list[str]) -> None:
        """The run paused before a model step that would send `request` (as text, at most
        `REQUEST_SHOWN` characters: the whole of it is the thread's `next_request`), offering
        the model `tools` (by name: the choices of a student predicting the step)."""
        if len(request) > REQUEST_SHOWN:
            request = (
                request[:REQUEST_SHOWN] + f"\n… ({len(request) - REQUEST_SHOWN} more characters)"
            )
        self.run["next_request"] = request
        self.run["next_tools"] = tools
        self.changed.run = True

    def ended(self, status: str, error: str | None) -> None:
        """The run ended `status` without its end reaching the view (a kernel interrupt):
        the header, the root's node in the tree and its progress say the same, and no
        thread that is not running still says what it was doing."""
        self.run.update(status=status, text=None, error=error, stop_reason=status)
        self.run.pop("next_request", None)
        self.run.pop("next_tools", None)
        self.changed.run = True
        root = self.threads.get(self.root_id)
        if root is not None:
            root["status"] = status
        for thread in self.threads.values():
            if thread["status"] != "running" and thread["progress"] is not None:
                thread["progress"] = None
            self.changed.threads.add(thread["id"])

    def take_changed(self) -> Changed:
        """What events touched since the last take (and start afresh)."""
        changed, self.changed = self.changed, Changed()
        return changed

    def snapshot(self) -> dict[str, Any]:
        """Everything a view needs, as one JSON value that shares nothing with this state
        (a view compares it with the previous one to know whether to send it)."""
        return self.snapshot_and_text()[0]

    def snapshot_and_text(self) -> tuple[dict[str, Any], str]:
        """The snapshot and its JSON text, as the front end gets it. Copied through JSON,
        natively: a deep copy in Python took a third of a second on a 2,000-call thread, and
        the text is then written once."""
        text = as_json_text(self._snapshot())
        copied: dict[str, Any] = json_copy(text)
        return copied, text

    def _snapshot(self) -> dict[str, Any]:
        return {
            "root": self.root_id,
            "threads": [*self.related, *self.threads.values()],
            "messages": self.messages,
            "cards": self.cards,
            "files": {tid: self.file_list(tid) for tid in self.files},
            "drafts": self.drafts,
            "run": self.run,
            **({"apps": self.apps} if self.apps else {}),
        }


def keep_event(card: dict[str, Any], event: dict[str, Any]) -> None:
    """Add `event` to `card`'s, keeping the latest `CARD_EVENTS` and counting the rest."""
    events: list[dict[str, Any]] = card["events"]
    events.append(event)
    if len(events) > CARD_EVENTS:
        del events[0]
        card["events_dropped"] = card.get("events_dropped", 0) + 1


def card_key(root_id: str, thread_id: str, call_id: str) -> str:
    """The key of the card of `thread_id`'s call `call_id` in a view of `root_id`'s tree: the
    call's id in the root thread, "THREAD/ID" in a descendant. Call ids are a thread's own (a
    local server numbers each reply's calls from call_0): a child's call_0 is not its
    parent's. A root call whose id has a "/" is keyed "ROOT/ID" too: a model that read a
    child's reference could otherwise name a call of its own as that child's card."""
    if thread_id == root_id and "/" not in call_id:
        return call_id
    return f"{thread_id}/{call_id}"


def call_of(thread_id: str, key: str) -> str:
    """The call id a card's `key` (`ViewState.key`) names in `thread_id`."""
    prefix = f"{thread_id}/"
    return key[len(prefix) :] if key.startswith(prefix) else key


def _file_entry(path: str, size: int, digest: str | None) -> dict[str, Any]:
    """A file as the file browser lists it; its digest names the content a preview shows."""
    entry: dict[str, Any] = {"path": path, "size": size}
    if digest:
        entry["digest"] = digest
    return entry


def _mapping(data: object) -> dict[str, Any]:
    return dict(data) if isinstance(data, dict) else {}
