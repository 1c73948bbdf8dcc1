"""A thread's history read once into steps (`thread.steps()`): its stored events and its
descendants', in the store's one order, with its messages, grouped into `StepRecord`s.

What each reader used to work out on its own is worked out here once: which call created a
subagent (the call of its thread still open when the child was announced), where a model
step started (when the step before it in its chain ended, or when its run started: a pause
is nobody's time), how long a call ran (its own measured time, not the wait for a decision),
and that a step whose run ended is no longer running."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from .._data import (
    ApprovalDecidedEvent,
    ApprovalRequestedEvent,
    CustomEvent,
    Decision,
    HandoffEvent,
    Message,
    MessageCreatedEvent,
    RunFinishedEvent,
    SideName,
    StepRecord,
    SubagentCreatedEvent,
    ThreadEvent,
    ThreadStatusEvent,
    ToolCall,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
    event_from_json,
    record_of,
    unfinished_text,
)
from ..store import Store
from ._snapshot import HistoryPoint

__all__ = ["StepMessage", "StepReader", "call_step_ids", "read_steps"]

_Chain = tuple[str, int, str | None]  # a thread, a depth and the prompt-tool call it runs in
_CallKey = tuple[str, int, str | None, str]  # a chain and a call id
RequestOf = Callable[[str, str], Any]
"""(thread id, message id) -> what that model step was sent."""
NeedsDecision = Callable[[str], bool]
"""A tool's name -> whether its definition asks a decision before each call."""

_FINISHED_AS = {"completed": "completed", "failed": "failed", "stopped": "failed",
                "interrupted": "interrupted"}  # fmt: skip
_REPLAY = ("replay", "threadlab")  # the model and provider a replayed step is stored with
# The results a call gets when it can never finish (its run was cancelled, its process died).
_UNFINISHED = {unfinished_text("cancelled"), unfinished_text("owner_gone")}


@dataclass(eq=False)
class _Open:
    """A step being read: its record's fields, until the history says it ended."""

    fields: dict[str, Any]
    started_by_event: bool = False  # its start came from its own event, not its message
    within: str | None = None  # a call's: the prompt-tool call whose nested turn made it
    # What a call's events have said so far (a model may repeat a call's id: each event
    # goes to the first call of that id in its chain it has not been said of yet).
    answered: bool = False
    finished: bool = False
    asked: bool = False
    decided: bool = False
    told: list[ThreadEvent] = field(default_factory=list)  # a call's own started, finished
    # and custom events, in order (what a trace shows of it beside its step)


@dataclass
class StepReader:
    """Reads history points, in the store's order, into steps."""

    messages: Mapping[str, Mapping[str, Message | StepMessage]]
    first_seen: dict[str, tuple[float, float]]  # thread -> (seq, at) of its first event
    request_of: RequestOf | None
    needs_decision: NeedsDecision | None
    parents: dict[str, str | None]  # thread -> its parent thread (None: the one read)
    steps: list[_Open] = field(default_factory=list)
    by_id: dict[str, _Open] = field(default_factory=dict)
    boundary: dict[_Chain, tuple[float, float]] = field(default_factory=dict)  # (at, seq)
    open_calls: dict[str, list[_Open]] = field(default_factory=dict)  # thread -> not ended
    # (thread, depth, call id) -> the calls made with it, in order (a model may repeat one;
    # a nested turn names its prompt-tool call by thread, depth and id alone)
    made: dict[tuple[str, int, str], list[_Open]] = field(default_factory=dict)
    starts: dict[_CallKey, list[ToolCallStartedEvent]] = field(default_factory=dict)
    pauses: dict[int, _Open] = field(default_factory=dict)  # a call's id() -> its pause
    model_pause: dict[str, _Open] = field(default_factory=dict)  # a run's pause, till one starts
    turns: dict[str, _Open] = field(default_factory=dict)
    creator: dict[str, str] = field(default_factory=dict)  # child thread -> the call's step
    announced: set[str] = field(default_factory=set)  # children whose "created" step is read
    last_message: dict[_Chain, str] = field(default_factory=dict)
    last_asked: dict[str, str] = field(default_factory=dict)  # a thread's last user message

    def see(self, point: HistoryPoint) -> None:
        if point.event is not None:  # a damaged row: nothing to read from it
            self.see_event(point.event, point.seq)

    def see_event(self, event: ThreadEvent, seq: int) -> None:
        """Read `event`, at `seq` in the store's order (or any order that keeps the store's)."""
        if isinstance(event, MessageCreatedEvent):
            self._message(event, seq)
        elif isinstance(event, ToolCallStartedEvent):
            self._started(event)
        elif isinstance(event, ToolCallFinishedEvent):
            self._finished(event)
        elif isinstance(event, ApprovalRequestedEvent):
            self._asked(event, seq)
        elif isinstance(event, ApprovalDecidedEvent):
            self._decided(event)
        elif isinstance(event, SubagentCreatedEvent):
            self._created(event, seq)
        elif isinstance(event, RunFinishedEvent) and not event.depth:
            self._run_ended(event, seq)
        elif isinstance(event, HandoffEvent) and not event.depth:
            self._handoff(event, seq)
        elif isinstance(event, ThreadStatusEvent) and event.status == "running":
            self._run_started(event, seq)
        elif isinstance(event, ThreadStatusEvent) and event.status == "idle":
            self._stopped(event)
        elif isinstance(event, CustomEvent) and event.tool_call_id:
            call = self._running(event.thread_id, event.depth, event.tool_call_id)
            if call is not None:
                call.told.append(event)

    def events_of(self, step_id: str) -> list[ThreadEvent]:
        """The events a call's step was read from and emitted while it ran (its start, its
        end, its custom events: custom events are read only when fed), in order."""
        opened = self.by_id.get(step_id)
        return opened.told if opened is not None else []

    # runs
    def _run_started(self, event: ThreadStatusEvent, seq: int) -> None:
        thread = event.thread_id
        self.boundary[(thread, 0, None)] = (event.at, seq)
        paused = self.model_pause.pop(thread, None)
        if paused is not None:
            paused.fields.update(ended_at=event.at, status="completed")
            for call in self.open_calls.get(thread, ()):
                if id(call) not in self.pauses:
                    call.fields["status"] = "running"  # left before it ran: it runs now

    def _stopped(self, event: ThreadStatusEvent) -> None:
        """The thread stopped with calls still open: a run that ended says how first (see
        `_run_ended`), so these are a run's that stopped with no end of its own — a branch
        cut inside it. They never ran in this history, and a resume runs them."""
        for call in self.open_calls.get(event.thread_id, ()):
            if call.fields["ended_at"] is None:
                call.fields["status"] = "waiting"

    def _run_ended(self, event: RunFinishedEvent, seq: int) -> None:
        thread = event.thread_id
        for key in [key for key in self.starts if key[0] == thread]:
            del self.starts[key]  # started while streaming, its step never stored
        left = event.stop_reason == "waiting: tool call"  # step mode: before its next call
        # A run that ends waiting interrupts none of its calls: the open ones (the call that
        # waits and those after it in its message) never started, and a resume runs them.
        held = event.status == "waiting"
        for call in list(self.open_calls.get(thread, ())):
            if id(call) in self.pauses or held:
                call.fields["status"] = "waiting"
            else:
                call.fields.update(status="interrupted", ended_at=event.at)
                self._ended(call)
        turn = self.turns.get(thread)
        if turn is not None and turn.fields["ended_at"] is None:
            turn.fields.update(ended_at=event.at, status="completed")
        if event.stop_reason == "waiting: model step":
            self.model_pause[thread] = self._add(
                f"pause:{event.run_id}:model", "pause", thread, 0, None, event.at, seq,
                status="waiting", reason="before_model",
            )  # fmt: skip
        waiting = self.open_calls.get(thread)
        if left and waiting:
            first = waiting[0].fields
            self.model_pause[thread] = self._add(
                f"pause:{event.run_id}:tool", "pause", thread, 0, first["parent_id"],
                event.at, seq, status="waiting", reason="before_tool",
                tool_call_id=first["tool_call_id"], name=first["name"],
            )  # fmt: skip
        parent = self.parents.get(thread)
        finished = _FINISHED_AS.get(event.status)
        if parent is not None and finished is not None:
            self._add(
                f"subagent:{thread}:finished:{event.run_id}", "subagent", parent, 0,
                ("creator", thread), event.at, seq + 0.25, ended_at=event.at,
                status=finished, child_thread_id=thread, event="finished",
            )  # fmt: skip

    # messages
    def _message(self, event: MessageCreatedEvent, seq: int) -> None:
        message = self.messages.get(event.thread_id, {}).get(event.message_id)
        if message is None:
            return  # unreadable: the history goes on without it
        chain = (event.thread_id, event.depth, event.parent_tool_call_id)
        if message.role == "assistant":
            self._model_step(message, event, chain, seq)
        elif message.role == "tool":
            call = self._call((*chain, message.tool_call_id or ""), "answered")
            if call is not None:
                self._ended(call)
                fields = call.fields
                # A result the run gave a call that never finished (no end of its own was
                # told): a tool that returns or raises the same words did finish.
                unfinished = not call.finished and message.content in _UNFINISHED
                if fields["status"] != "interrupted":
                    fields["status"] = "interrupted" if unfinished else "completed"
                fields.update(result=message.content, tool_status=message.tool_status)
                if fields["ended_at"] is None:
                    fields["ended_at"] = event.at
        elif message.role == "user" and message.subagent_id:
            self._add(
                f"subagent:{message.subagent_id}:reported:{message.id}", "subagent",
                event.thread_id, event.depth, self._parent_of(chain), event.at, seq,
                ended_at=event.at, status="completed", child_thread_id=message.subagent_id,
                event="reported",
            )  # fmt: skip
        self.boundary[chain] = (event.at, seq)
        self.last_message[chain] = message.id
        if message.role == "user" and not event.depth:
            self.last_asked[event.thread_id] = message.id

    def _model_step(
        self, message: Message | StepMessage, event: MessageCreatedEvent, chain: _Chain, seq: int
    ) -> None:
        thread = event.thread_id
        opened_at, opened_seq = self.boundary.get(chain, (event.at, seq - 0.5))
        parent = self._parent_of(chain)
        if message.side is not None and not event.depth:
            self._turn(message, thread, opened_at, opened_seq, parent)
        request_of = self.request_of
        self._add(
            message.id, "model", thread, event.depth, parent, opened_at, opened_seq + 0.5,
            ended_at=event.at, status="completed", usage=message.usage,
            cost_usd=message.cost_usd, message_id=message.id, model=message.model,
            replayed=(message.model, message.provider) == _REPLAY,
            _request=(lambda: request_of(thread, message.id)) if request_of else None,
        )  # fmt: skip
        step_ids = call_step_ids(message.id, [call.id for call in message.tool_calls])
        for index, call in enumerate(message.tool_calls):
            key = (*chain, call.id)
            waiting = self.starts.get(key)
            start = waiting.pop(0) if waiting else None
            opened = self._add(
                step_ids[index], "tool_call",
                thread, event.depth, parent, start.at if start else event.at,
                _call_seq(seq, index), status="running", tool_call_id=call.id, name=call.name,
                arguments=call.arguments, progress=start.progress if start else None,
                message_id=message.id,
            )  # fmt: skip
            opened.started_by_event = start is not None
            opened.within = chain[2]
            if start is not None:
                opened.told.append(start)
            self.open_calls.setdefault(thread, []).append(opened)
            self.made.setdefault((thread, event.depth, call.id), []).append(opened)

    def _turn(
        self, message: Message | StepMessage, thread: str, at: float, seq: float, parent: Any
    ) -> None:
        turn = self.turns.get(thread)
        if turn is not None and turn.fields["side"] == message.side:
            return
        if turn is not None and turn.fields["ended_at"] is None:
            turn.fields.update(ended_at=at, status="completed")
        self.turns[thread] = self._add(
            f"turn:{message.id}", "turn", thread, 0, parent, at, seq + 0.4, status="running",
            side=message.side, message_id=self.last_message.get((thread, 0, None)),
        )  # fmt: skip

    def _handoff(self, event: HandoffEvent, seq: int) -> None:
        """The thread handed to another agent: its turn starts, caused by the call."""
        thread = event.thread_id
        turn = self.turns.get(thread)
        if turn is not None and turn.fields["ended_at"] is None:
            turn.fields.update(ended_at=event.at, status="completed")
        call = self._running(thread, 0, event.tool_call_id) if event.tool_call_id else None
        self.turns[thread] = self._add(
            f"turn:handoff:{event.tool_call_id or ''}:{seq}", "turn", thread, 0,
            call.fields["id"] if call is not None else None, event.at, seq, status="running",
            name=event.agent, message_id=self.last_asked.get(thread),
        )  # fmt: skip

    # calls
    def _call(
        self, key: _CallKey, said: str, *, open_only: bool = False, asked: bool = False
    ) -> _Open | None:
        """The first call of `key` that `said` (an attribute of `_Open`) has not been said of
        yet, now said of; None when there is none. `open_only`: only a call with no result
        yet; `asked`: only one that waited for a decision (a model may repeat an id: each
        event goes to the call it can be about)."""
        for call in self._calls(key):
            if getattr(call, said) or (open_only and (call.answered or call.finished)):
                continue
            if asked and not call.asked:
                continue
            setattr(call, said, True)
            return call
        return None

    def _calls(self, key: _CallKey) -> Iterator[_Open]:
        """The calls made with `key`'s id in its chain, in the order made."""
        thread, depth, within, call_id = key
        return (c for c in self.made.get((thread, depth, call_id), ()) if c.within == within)

    def _running(self, thread: str, depth: int, call_id: str | None) -> _Open | None:
        """The call of that id running now in `thread` at `depth`: the first made with it
        that has no result yet (calls run one at a time, in order); else the last made."""
        made = self.made.get((thread, depth, call_id or ""), [])
        for call in made:
            if not (call.answered or call.finished):
                return call
        return made[-1] if made else None

    def _ended(self, call: _Open) -> None:
        running = self.open_calls.get(call.fields["thread_id"], [])
        if call in running:
            running.remove(call)

    def _started(self, event: ToolCallStartedEvent) -> None:
        key = _key_of(event, event.tool_call_id)
        call = self._call(key, "started_by_event", open_only=True)
        if call is not None:
            call.fields["progress"] = event.progress
            call.told.append(event)
        elif not any(not (c.answered or c.finished) for c in self._calls(key)):
            self.starts.setdefault(key, []).append(event)  # its step's message comes later
        # (else a call that waited across a pause, started again as its run goes on)

    def _finished(self, event: ToolCallFinishedEvent) -> None:
        call = self._call(_key_of(event, event.tool_call_id), "finished", open_only=True)
        if call is None:
            return
        self._ended(call)
        call.told.append(event)
        fields = call.fields
        # The call's own time: a wait for a decision before it ran is the pause's.
        fields["started_at"] = max(fields["started_at"], event.at - event.duration_ms / 1000)
        fields.update(ended_at=event.at, tool_status=event.status, status="completed")
        if event.traceback:
            fields["traceback"] = event.traceback

    def _asked(self, event: ApprovalRequestedEvent, seq: int) -> None:
        call = self._call(_key_of(event, event.tool_call_id), "asked", open_only=True)
        asked = self.needs_decision(event.name) if self.needs_decision else True
        # Its parent is the call it holds back: the step that caused it.
        pause = self._add(
            f"pause:{call.fields['id'] if call else event.tool_call_id}:{seq}", "pause",
            event.thread_id, event.depth, call.fields["id"] if call else None,
            event.at, seq, status="waiting", reason="decision" if asked else "before_tool",
            tool_call_id=event.tool_call_id, name=event.name,
        )  # fmt: skip
        if call is not None:
            self.pauses[id(call)] = pause

    def _decided(self, event: ApprovalDecidedEvent) -> None:
        key = _key_of(event, event.tool_call_id)
        call = self._call(key, "decided", asked=True) or self._call(key, "decided", open_only=True)
        if call is None:
            return
        pause = self.pauses.pop(id(call), None)
        if pause is not None:
            pause.fields.update(ended_at=event.at, status="completed")
        fields = call.fields
        fields["decision"] = Decision(
            event.approved, event.by, event.at, edited=event.edited, reason=event.reason
        )
        if event.edited:
            fields.update(proposed_arguments=fields["arguments"], arguments=event.arguments)
        if fields["status"] == "waiting":
            fields["status"] = "running"  # decided: it runs in the run that goes on
        fields["started_at"] = max(fields["started_at"], event.at)

    # subagents
    def _created(self, event: SubagentCreatedEvent, seq: int) -> None:
        thread, child = event.thread_id, event.child_thread_id
        creator = (
            self._running(thread, event.depth, event.tool_call_id)
            if event.tool_call_id is not None
            else self._open_call(thread)  # a store from before the event named its call
        )
        if creator is not None:
            self.creator[child] = creator.fields["id"]
        self.announced.add(child)
        # A blocking child's announcement is stored with the call that made it, after the
        # child's own steps: the step goes where the child began, before any of them.
        first_seq, first_at = self.first_seen.get(child, (seq, event.at))
        self._add(
            f"subagent:{child}:created", "subagent", thread, event.depth,
            creator.fields["id"] if creator else self._parent_of((thread, 0, None)),
            min(event.at, first_at), min(seq, first_seq - 0.5), ended_at=min(event.at, first_at),
            status="completed", child_thread_id=child, name=event.name, event="created",
        )  # fmt: skip

    def _open_call(self, thread: str) -> _Open | None:
        """The call of `thread` running now, as well as its events tell: the first of the
        latest step's calls that has not ended (calls run one at a time, in order)."""
        running = self.open_calls.get(thread, [])
        return running[0] if running else None

    def _parent_of(self, chain: _Chain) -> Any:
        thread, depth, call_id = chain
        if depth and call_id is not None:
            call = self._running(thread, depth - 1, call_id)
            return call.fields["id"] if call is not None else None
        return ("creator", thread) if self.parents.get(thread) is not None else None

    def _add(
        self, step_id: str, kind: str, thread: str, depth: int, parent: Any, started: float,
        seq: float, *, status: str, ended_at: float | None = None, **fields: Any,
    ) -> _Open:  # fmt: skip
        opened = _Open(
            {
                "id": step_id, "kind": kind, "thread_id": thread, "depth": depth,
                "parent_id": parent, "started_at": started, "ended_at": ended_at,
                "status": status, "seq": float(seq), **fields,
            }
        )  # fmt: skip
        self.steps.append(opened)
        self.by_id[step_id] = opened
        return opened

    def record(self, opened: _Open) -> StepRecord:
        """The step `opened` as it stands now."""
        fields = opened.fields
        parent = fields["parent_id"]
        if isinstance(parent, tuple):  # a child's top: the call that created it
            fields = {**fields, "parent_id": self.creator.get(parent[1])}
        if fields["ended_at"] is not None and fields["status"] == "running":
            fields = {**fields, "status": "completed"}  # ended: answered after its run ended
        return record_of(fields)

    def records(self) -> list[StepRecord]:
        return sorted(map(self.record, self.steps), key=lambda step: step.seq)


def call_step_ids(message_id: str, call_ids: list[str]) -> list[str]:
    """The step ids of a model step's calls: "call:" with the message's and the call's id,
    and for an id the step repeats "#1", "#2"... (a model chooses ids: one that already
    ends in "#1" takes the next number free, so no two calls share a step id).

    Examples:
        >>> call_step_ids("m", ["a", "a#1", "a", "b"])
        ['call:m:a', 'call:m:a#1', 'call:m:a#2', 'call:m:b']
    """
    given: list[str] = []
    taken: set[str] = set()
    for call_id in call_ids:
        step_id, repeat = f"call:{message_id}:{call_id}", 0
        while step_id in taken:
            repeat += 1
            step_id = f"call:{message_id}:{call_id}#{repeat}"
        taken.add(step_id)
        given.append(step_id)
    return given


def _key_of(event: ThreadEvent, call_id: str) -> _CallKey:
    return (event.thread_id, event.depth, event.parent_tool_call_id, call_id)


def _call_seq(seq: int, index: int) -> float:
    """Where a model step's call `index` goes: after the step, in the order it was made (its
    arguments may have streamed before the step's message was stored)."""
    return seq + 0.01 * (index + 1)


def read_steps(
    store: Store,
    thread_id: str,
    *,
    request_of: RequestOf | None = None,
    needs_decision: NeedsDecision | None = None,
    points: Iterable[HistoryPoint] | None = None,
) -> list[StepRecord]:
    """The steps of `thread_id` and its descendants, in the order they happened (a child's
    "created" step before any of its own). `points`: its history points with statuses,
    where read already (`history_points(..., statuses=True)`); else only the events steps
    are made of are read."""
    parents: dict[str, str | None] = {thread_id: None}
    tree = list(_tree_of(store, thread_id, parents))
    read = _read_events(store, tree) if points is None else _from_points(points)
    threads = {thread for _, thread, _ in read}
    messages: dict[str, dict[str, StepMessage]] = {
        thread: _messages(store, thread) for thread in tree if thread in threads
    }
    first_seen: dict[str, tuple[float, float]] = {}
    for seq, thread, event in read:
        if thread not in first_seen:
            first_seen[thread] = (float(seq), event.at if event is not None else 0.0)
    reader = StepReader(messages, first_seen, request_of, needs_decision, parents)
    for seq, _, event in read:
        if event is not None:
            reader.see_event(event, seq)
    return reader.records()


# The events a step is made of (the rest, files and custom events, are told within them).
_STEP_EVENTS = (
    "message_created", "tool_call_started", "tool_call_finished", "approval_requested",
    "approval_decided", "subagent_created", "run_finished", "thread_status", "handoff",
)  # fmt: skip
_Read = list[tuple[int, str, ThreadEvent | None]]  # (seq, thread, the event; None: damaged)


def _read_events(store: Store, tree: list[str]) -> _Read:
    """The events of every thread of `tree` that steps are made of, in the store's order."""
    read: _Read = []
    for thread in tree:
        for stored in store.iter_events(thread, types=_STEP_EVENTS):
            if stored.seq is None:
                continue
            try:
                read.append((stored.seq, thread, event_from_json(stored.data)))
            except ValueError:  # a damaged row: the history goes on without it
                read.append((stored.seq, thread, None))
    read.sort(key=itemgetter(0))
    return read


def _from_points(points: Iterable[HistoryPoint]) -> _Read:
    return [(point.seq, point.thread_id, point.event) for point in points]


def _tree_of(store: Store, thread_id: str, parents: dict[str, str | None]) -> Iterable[str]:
    yield thread_id
    for child in store.list_children(thread_id):
        parents[child.id] = thread_id
        yield from _tree_of(store, child.id, parents)


class StepMessage(BaseModel):
    """What reading steps takes of a stored message (not what its step was sent, nor its
    reasoning: the larger part of an assistant message, read when asked for)."""

    model_config = ConfigDict(frozen=True)
    id: str
    role: str
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    tool_status: Literal["success", "error"] | None = None
    side: SideName | None = None
    usage: dict[str, int] | None = None
    cost_usd: float | None = None
    provider: str | None = None
    model: str | None = None
    subagent_id: str | None = None


def _messages(store: Store, thread_id: str) -> dict[str, StepMessage]:
    found = {}
    for stored in store.list_messages(thread_id):
        try:
            message = StepMessage.model_validate_json(stored.data)
        except ValueError:
            continue  # a damaged row
        found[message.id] = message
    return found
