"""A notebook's approver: a call that needs a decision asks in the card of the live view that
shows it (Approve / Edit arguments / Reject), and the run waits there for the person's click.
With no such view on screen (a notebook run headless, a thread run from a script) it leaves
the decision to later: the run ends "waiting", for `%threadlab approve` or a reopened view."""

from __future__ import annotations

import asyncio
import weakref
from typing import Protocol

from .. import Approval, ApprovalRequest

__all__ = ["CardApprover"]


class _Shows(Protocol):
    rendered: bool
    live: bool

    def shows(self, thread_id: str) -> bool: ...


class CardApprover:
    """`Runtime(approver=CardApprover())`: decisions are asked for in the views' cards."""

    timeout_s: float | None = None
    """A person decides at their own pace: no hook timeout (an interrupt ends the wait)."""
    decided_by = "view"
    ready_s = 3.0
    """How long a call waits for the view that shows it to be on screen: a live view is
    displayed when its run starts, and a front end renders it a moment later."""

    def __init__(self) -> None:
        self._views: weakref.WeakSet[_Shows] = weakref.WeakSet()
        self._asked: dict[str, asyncio.Future[Approval]] = {}

    def watch(self, view: _Shows) -> None:
        """Let `view` take decisions on the calls of the threads it shows."""
        self._views.add(view)

    def asks(self, tool_call_id: str) -> bool:
        """Whether a run is waiting here, now, for a decision on `tool_call_id`."""
        future = self._asked.get(tool_call_id)
        return future is not None and not future.done()

    def decide(self, tool_call_id: str, approval: Approval) -> None:
        """The person's decision on a call a run is waiting for (see `asks`)."""
        future = self._asked.get(tool_call_id)
        if future is not None and not future.done():
            future.set_result(approval)

    async def __call__(self, request: ApprovalRequest) -> Approval | None:
        if not await self._on_screen(request.thread_id):
            return None  # nobody to ask now: the run waits for a later decision
        future: asyncio.Future[Approval] = asyncio.get_running_loop().create_future()
        self._asked[request.tool_call_id] = future
        try:
            return await future
        finally:
            self._asked.pop(request.tool_call_id, None)

    async def _on_screen(self, thread_id: str) -> bool:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.ready_s
        while True:
            if any(v.live and v.rendered and v.shows(thread_id) for v in list(self._views)):
                return True
            if loop.time() >= deadline:
                return False
            await asyncio.sleep(0.05)
