"""What a diff compares of one thread (`ThreadDiff`): its own conversation read from its steps,
each step as one side of a row — a person's message, a model step's answer, a call with its
arguments as run and its result, a turn, where it still waits, how its last run ended.

Each side keeps what it shows apart from what is compared (its `shape`): the model that
answered is shown, not compared, and so are the ids of the thread and its subagents (two runs
of one prompt, or a branch and its origin, name different but matching threads)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import Message, RunFinishedEvent, StepRecord, Thread, ThreadStatusEvent
from .._gc_paused import gc_paused

__all__ = ["Side", "sides_of"]


@dataclass(frozen=True)
class Side:
    """One thread's step in a row of a diff."""

    kind: str  # "user", "system", "report", "model", "tool_call", "pause", "turn", "end"
    shape: tuple[Any, ...]  # what two sides must share to agree
    label: str  # the kind as a reader names it, with its status or decision
    summary: str  # what it said or did
    message: int  # its place in the thread's messages (1-based): its text, answer or result


def sides_of(thread: Thread) -> list[Side]:
    """`thread`'s own steps in order, with the messages its person (or its system, or a
    subagent's report) wrote between them, and how its last run ended: what a diff aligns. A
    message no step was read from (a damaged row) is a row of its own, from the message."""
    with gc_paused():
        return _sides(thread)


def _sides(thread: Thread) -> list[Side]:
    steps = thread.steps()  # before the messages: every message a step names is then read
    messages = thread.messages
    same = _id_masker(thread, steps)
    names = {s.child_thread_id: s.name for s in steps if s.kind == "subagent" and s.name}
    reading = _Reading(messages, same, names)
    own = [s for s in steps if s.thread_id == thread.id and s.depth == 0]
    sides: list[Side] = []
    for step, anchor in _anchored(own, reading.place, len(messages)):
        side = reading.step_side(step)
        if side is None:
            continue
        # A message goes before the first step that answers it (a turn answers it).
        sides += reading.written_before(anchor + (step.kind == "turn"))
        sides.append(side)
    sides += reading.written_before(len(messages))
    end = _end_side(thread, same, len(messages))
    return [*sides, end] if end is not None else sides


class _Reading:
    """Steps and the messages they stand at, read into sides in the thread's order."""

    def __init__(
        self, messages: Sequence[Message], same: Callable[[str], str], names: dict[Any, str]
    ) -> None:
        self.messages = messages
        self.same = same
        self.names = names
        self.place = {message.id: index for index, message in enumerate(messages)}
        self.covered: set[int] = set()  # the messages a step was read from
        self.results: dict[str | None, list[int]] = {}  # a call id -> its results' places
        for index, message in enumerate(messages):
            if message.role == "tool":
                self.results.setdefault(message.tool_call_id, []).append(index)
        self._next_written = 0

    def written_before(self, anchor: int) -> list[Side]:
        """The messages before `anchor` no step was read from: a person's (or system's, or a
        subagent's report), and any a damaged row left without its step."""
        found = []
        while self._next_written < min(anchor, len(self.messages)):
            index = self._next_written
            self._next_written += 1
            message = self.messages[index]
            if index not in self.covered:  # a call's result is read with its call
                found.append(self._message_side(message, index))
        return found

    def step_side(self, step: StepRecord) -> Side | None:
        at = self.place.get(step.message_id or "", -1)
        if step.kind == "model":
            if at < 0:
                return None  # read from its message: one that is not there is no step
            self.covered.add(at)
            return self._model_side(self.messages[at], at, step)
        if step.kind == "tool_call":
            return self._call_side(step, at)
        if step.kind == "pause":
            if step.status != "waiting":
                return None  # a pause the run went on from: what happened after is the record
            what = {"before_model": "the next model step", "decision": "a decision"}
            shown = what.get(step.reason or "", f"before {step.name}")
            if step.reason == "decision":
                shown += f" on {step.name}"
            return Side("pause", ("pause", step.reason, step.name), "waiting", shown, at + 1)
        if step.kind == "turn":
            who = f"side {step.side}" if step.side else f"handed over to {step.name}"
            return Side("turn", ("turn", step.side, step.name), "turn", who, at + 1)
        return None  # a subagent's moment: its create call's result tells it

    def _model_side(self, answer: Message, at: int, step: StepRecord | None) -> Side:
        text = answer.content or ""
        calls = tuple(c.name for c in answer.tool_calls)
        shown = text or (f"calls {', '.join(calls)}" if calls else "")
        # The model that answered is shown, not compared: two models' runs side by side
        # differ where their steps do.
        who = ("replayed" if step.replayed else step.model) if step is not None else answer.model
        label = f"model ({who})" if who else "model"
        return Side("model", ("model", self.same(text), calls), label, shown, at + 1)

    def _call_side(self, step: StepRecord, at: int) -> Side:
        result_at = self._result_of(step)
        attached = tuple(self.messages[result_at].attachments) if result_at is not None else ()
        arguments = _json(step.arguments)
        proposed = _json(step.proposed_arguments) if step.proposed_arguments is not None else None
        decision = step.decision
        label = "call"
        if decision is not None:
            label += " approved" if decision.approved else " rejected"
            label += " (edited)" if decision.edited else ""
        if step.status != "completed":
            label += f" [{step.status}]"
        elif step.tool_status == "error":
            label += " [error]"
        result = step.result or ""
        shown = f"{step.name}({arguments})" + (f" → {result}" if step.result is not None else "")
        if attached:
            shown += f" [attached: {', '.join(attached)}]"
        if proposed is not None:
            shown += f" (the model proposed {proposed})"
        # An approval that changed nothing is no difference: a stepped run lines up with a
        # plain one. A rejection, or an edit (and what the model proposed), is one.
        changed = None if decision is None else (decision.approved, decision.edited)
        shape = (
            "tool_call", step.name, self.same(arguments), self.same(proposed or ""),
            self.same(result), step.tool_status, step.status, attached,
            None if changed == (True, False) else changed,
        )  # fmt: skip
        where = result_at if result_at is not None else at
        return Side("tool_call", shape, label, shown, where + 1)

    def _result_of(self, step: StepRecord) -> int | None:
        """The place of the result message a call step was read from (a model may give two
        calls one id: each takes the first of that id's results not taken yet)."""
        if step.result is None:
            return None
        places = self.results.get(step.tool_call_id)
        while places:
            index = places.pop(0)
            if index not in self.covered:
                self.covered.add(index)
                return index
        return None

    def _message_side(self, message: Message, index: int) -> Side:
        text = message.content or ""
        files = tuple(message.attachments)
        shown = text + (f" [attached: {', '.join(files)}]" if files else "")
        if message.role == "assistant":
            return self._model_side(message, index, None)
        shape: tuple[Any, ...]
        if message.role == "tool":
            shape = ("result", self.same(text), message.tool_status, files)
            return Side("result", shape, f"result of {message.name or 'a call'}", shown, index + 1)
        if message.subagent_id is not None:  # a child's report, handed to the model as input
            child = self.names.get(message.subagent_id) or "a subagent"
            shape = ("report", self.same(text), files)
            return Side("report", shape, f"report from {child}", shown, index + 1)
        shape = (message.role, self.same(text), files)
        return Side(message.role, shape, message.role, shown, index + 1)


def _anchored(
    steps: Sequence[StepRecord], place: dict[str, int], count: int
) -> list[tuple[StepRecord, int]]:
    """Each step with the message it stands at: its own (an answer, the answer that made a
    call, the message a turn answers), else the next step's (a pause stands before it)."""
    anchors = [place.get(s.message_id or "", -1) for s in steps]
    following = count
    for index in range(len(steps) - 1, -1, -1):
        if anchors[index] < 0:
            anchors[index] = following
        following = anchors[index]
    return list(zip(steps, anchors, strict=True))


def _end_side(thread: Thread, same: Callable[[str], str], count: int) -> Side | None:
    """How the thread's last run ended, as its end was stored (none while a run goes on or
    after one stopped with no end: a branch's cut)."""
    end: RunFinishedEvent | None = None
    for event in thread.events:
        if isinstance(event, RunFinishedEvent) and not event.depth:
            end = event
        elif isinstance(event, ThreadStatusEvent) and event.status == "running" and end:
            end = None  # a run went on from there
    if end is None:
        return None
    shown = end.status + (f": {end.error}" if end.error else "")
    # What a waiting run waits on is told by its pause: its error names its own call ids.
    error = "" if end.status == "waiting" else same(end.error or "")
    shape = ("end", end.status, end.stop_reason, error)
    return Side("end", shape, "run ended", shown, count)


def _id_masker(thread: Thread, steps: Sequence[StepRecord]) -> Callable[[str], str]:
    """Text with the thread's id and its subagents' (in the order they were created) put as
    their places: two matching threads' texts then compare equal."""
    ids = [thread.id]
    for step in steps:
        child = step.child_thread_id
        if step.kind == "subagent" and step.event == "created" and child and child not in ids:
            ids.append(child)
    places = {thread_id: f"<thread {n}>" for n, thread_id in enumerate(ids)}
    pattern = re.compile("|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True)))
    return lambda text: pattern.sub(lambda found: places[found.group(0)], text)


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)
