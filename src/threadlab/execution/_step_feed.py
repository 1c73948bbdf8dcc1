"""A thread's steps read as its history grows (`thread.iter`): each read takes only the events
and messages stored since the one before, and returns the steps that ended since — so
following a long run costs each step once, not the whole history again at every step."""

from __future__ import annotations

from .._data import StepRecord
from ..store import Store
from ._snapshot import HistoryPoint, point_of
from ._step_reading import NeedsDecision, RequestOf, StepMessage, StepReader

__all__ = ["StepFeed"]


class StepFeed:
    """The steps of `thread_id` and its descendants, handed out once each as they end."""

    def __init__(
        self,
        store: Store,
        thread_id: str,
        *,
        request_of: RequestOf | None = None,
        needs_decision: NeedsDecision | None = None,
    ) -> None:
        self._store = store
        self._root = thread_id
        self._parents: dict[str, str | None] = {thread_id: None}
        self._messages: dict[str, dict[str, StepMessage]] = {}
        self._reader = StepReader(self._messages, {}, request_of, needs_decision, self._parents)
        self._read_to: dict[str, int] = {}  # thread -> the last event's seq read
        self._last_row: dict[str, str] = {}  # thread -> the last message row read
        self._told: set[int] = set()  # id() of the steps handed out
        self._untold_from = 0  # every step before this index was handed out

    def skip(self) -> None:
        """Take every step that has ended by now as handed out: the reads that follow
        return the steps that end from now on (a call left open before goes on)."""
        self._read()
        for opened in self._reader.steps:
            if opened.fields["ended_at"] is not None:
                self._told.add(id(opened))
        self._advance()

    def read(self, *, final: bool = False) -> list[StepRecord]:
        """The steps that ended since the last read, in the order they happened; with
        `final` (the run has ended), every step not handed out yet, as it stands. A
        descendant's steps wait for its "created" step (which a blocking child's call
        stores when it ends), so that one comes first."""
        self._read()
        reader, ready = self._reader, []
        for opened in reader.steps[self._untold_from :]:
            if id(opened) in self._told:
                continue
            thread = opened.fields["thread_id"]
            announced = thread == self._root or thread in reader.announced
            if final or (opened.fields["ended_at"] is not None and announced):
                ready.append(reader.record(opened))
                self._told.add(id(opened))
        self._advance()
        return sorted(ready, key=lambda step: step.seq)

    def _advance(self) -> None:
        steps = self._reader.steps
        while self._untold_from < len(steps) and id(steps[self._untold_from]) in self._told:
            self._untold_from += 1

    def _read(self) -> None:
        points: list[HistoryPoint] = []
        for thread in self._tree(self._root):
            for event in self._store.iter_events(thread, after=self._read_to.get(thread)):
                point = point_of(event)
                if point is not None:
                    self._read_to[thread] = point.seq
                    points.append(point)
        for thread in {p.thread_id for p in points if p.kind == "message_created"}:
            self._read_messages(thread)
        points.sort(key=lambda p: (p.seq, p.kind != "subagent_created"))
        first_seen = self._reader.first_seen
        for point in points:
            first_seen.setdefault(point.thread_id, (float(point.seq), point.at))
        for point in points:
            self._reader.see(point)

    def _tree(self, thread_id: str) -> list[str]:
        found = [thread_id]
        for child in self._store.list_children(thread_id):
            self._parents[child.id] = thread_id
            found += self._tree(child.id)
        return found

    def _read_messages(self, thread_id: str) -> None:
        rows = self._store.list_messages(thread_id, after=self._last_row.get(thread_id))
        known = self._messages.setdefault(thread_id, {})
        for row in rows:
            self._last_row[thread_id] = row.id
            try:
                message = StepMessage.model_validate_json(row.data)
            except ValueError:
                continue  # a damaged row: the history goes on without it
            known[message.id] = message
