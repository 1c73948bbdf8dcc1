"""A notebook's elicitor: an MCP server that asks the user something in the middle of a call
gets its form in the card of the live view that shows the call, and the call waits there for
the person's answer (Submit, Decline or Cancel). With no such view on screen (a notebook run
headless) the question is declined, as with no elicitor at all."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Mapping
from typing import Any, Literal

from .. import Elicitation
from ._on_screen import Shows, on_screen

__all__ = ["CardElicitor", "FormAction"]

FormAction = Literal["accept", "decline", "cancel"]


class CardElicitor:
    """`Runtime(elicitor=CardElicitor())`: servers' forms are answered in the views' cards."""

    ready_s = 3.0
    """How long a question waits for the view that shows its call to be on screen."""

    def __init__(self) -> None:
        self._views: weakref.WeakSet[Shows] = weakref.WeakSet()
        # (thread, call id): ids are a thread's own, a child's may be its parent's too
        self._asked: dict[tuple[str, str], asyncio.Future[Mapping[str, Any] | None]] = {}

    def watch(self, view: Shows) -> None:
        """Let `view` answer the forms of the calls of the threads it shows."""
        self._views.add(view)

    def asks(self, thread_id: str, tool_call_id: str) -> bool:
        """Whether a call waits here, now, for a form's answer."""
        future = self._asked.get((thread_id, tool_call_id))
        return future is not None and not future.done()

    def answer(
        self, thread_id: str, tool_call_id: str, action: FormAction, content: Mapping[str, Any]
    ) -> None:
        """The person's answer to the form of `tool_call_id` (see `asks`)."""
        future = self._asked.get((thread_id, tool_call_id))
        if future is not None and not future.done():
            future.set_result(dict(content) if action == "accept" else None)

    async def __call__(self, question: Elicitation) -> Mapping[str, Any] | None:
        call = question.tool_call_id
        if call is None or question.thread_id is None:
            return None
        if not await on_screen(self._views, question.thread_id, self.ready_s):
            return None  # nobody to ask: declined
        future: asyncio.Future[Mapping[str, Any] | None] = (
            asyncio.get_running_loop().create_future()
        )
        self._asked[question.thread_id, call] = future
        try:
            return await future
        finally:
            self._asked.pop((question.thread_id, call), None)
