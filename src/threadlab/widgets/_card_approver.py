"""A notebook's approver: a call that needs a decision asks in the card of the live view that
shows it (Approve / Edit arguments / Reject), and the run waits there for the person's click.
With no such view on screen (a notebook run headless, a thread run from a script) it leaves
the decision to later: the run ends "waiting", for `%threadlab approve` or a reopened view."""

from __future__ import annotations

import asyncio
import weakref

from .. import Approval, ApprovalRequest
from ._on_screen import Shows, on_screen

__all__ = ["CardApprover"]


class CardApprover:
    """`Runtime(approver=CardApprover())`: decisions are asked for in the views' cards."""

    timeout_s: float | None = None
    """A person decides at their own pace: no hook timeout (an interrupt ends the wait)."""
    decided_by = "view"
    ready_s = 3.0
    """How long a call waits for the view that shows it to be on screen: a live view is
    displayed when its run starts, and a front end renders it a moment later."""

    def __init__(self) -> None:
        self._views: weakref.WeakSet[Shows] = weakref.WeakSet()
        # (thread, call id): ids are a thread's own, a child's may be its parent's too
        self._asked: dict[tuple[str, str], asyncio.Future[Approval]] = {}

    def watch(self, view: Shows) -> None:
        """Let `view` take decisions on the calls of the threads it shows."""
        self._views.add(view)

    def asks(self, thread_id: str, tool_call_id: str) -> bool:
        """Whether a run is waiting here, now, for a decision on `tool_call_id`."""
        future = self._asked.get((thread_id, tool_call_id))
        return future is not None and not future.done()

    def decide(self, thread_id: str, tool_call_id: str, approval: Approval) -> None:
        """The person's decision on a call a run is waiting for (see `asks`)."""
        future = self._asked.get((thread_id, tool_call_id))
        if future is not None and not future.done():
            future.set_result(approval)

    async def __call__(self, request: ApprovalRequest) -> Approval | None:
        if not await on_screen(self._views, request.thread_id, self.ready_s):
            return None  # nobody to ask now: the run waits for a later decision
        future: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()
        self._asked[request.thread_id, request.tool_call_id] = future
        try:
            return await future
        finally:
            self._asked.pop((request.thread_id, request.tool_call_id), None)
