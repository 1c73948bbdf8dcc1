"""The error a fenced write raises: the run it was made for no longer holds its thread's lease.

A process stopped longer than a lease lasts (a suspended laptop, a debugger, a loop that
blocked) looks dead to the others: one of them repairs the thread and runs it. When the
stopped process goes on, each write it makes for that run is checked against the thread's lease
epoch in the write's own transaction, and refused with this error (`FencingStore`).
"""

from __future__ import annotations

from .._errors import ThreadlabError

__all__ = ["LeaseLostError"]


class LeaseLostError(ThreadlabError, RuntimeError):
    """A write for run `run_id` of thread `thread_id` was refused (its transaction rolled back):
    another process took the thread's lease over, so this run must end without writing more.
    The runtime ends such a run "interrupted"; the history goes on as the other process left
    it."""

    def __init__(self, thread_id: str, run_id: str) -> None:
        super().__init__(
            f"the lease of thread {thread_id} was taken over by another process while run"
            f" {run_id} held it here (this process was stopped or blocked for longer than a"
            " lease lasts); the run ends without writing more: open the thread again to see"
            " its history as the other process went on"
        )
        self.thread_id = thread_id
        self.run_id = run_id

    def __reduce__(self) -> tuple[type[LeaseLostError], tuple[str, str]]:
        # Pickled as its arguments (an engine's worker sends errors back to its head).
        return (type(self), (self.thread_id, self.run_id))
