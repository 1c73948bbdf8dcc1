"""The routes, behind Jupyter's own authentication (`APIHandler`, `@authenticated`):

- `GET /threadlab/api/threads?q=&status=&origin=&parent=&limit=&cursor=` ->
  `{"threads": [...], "next": cursor or null}`, newest first;
- `GET /threadlab/api/threads/ID/steps` -> `{"steps": [...]}`;
- `GET /threadlab/api/threads/ID/view` -> `{"state": ..., "files": ..., "left_out": [...]}`: what
  `tl.share` writes into its page (the player's saved state, the threads' files), which the
  panel draws with the views' one script.

Every answer is JSON, an error's too: `{"error": ..., "store": ...}` with 400 for a bad
parameter, 404 for an unknown thread, 503 for a store that cannot be opened.
"""

from __future__ import annotations

import json
from typing import Any

import tornado.web
from jupyter_server.base.handlers import APIHandler

import threadlab as tl
from threadlab.store import ORIGIN_KINDS, ThreadQuery

from ._records import BadCursor, decode_cursor, encode_cursor, step_json, thread_json
from ._store_access import StoreAccess, StoreMissing, StoreUnavailable

__all__ = ["MAX_LIMIT", "StepsHandler", "ThreadsHandler", "ViewHandler"]

MAX_LIMIT = 200
"""The most threads one page holds, whatever `limit` asks."""
DEFAULT_LIMIT = 50


class _Bad(Exception):
    """A parameter the route cannot take: answered 400, naming it."""


class _StoreHandler(APIHandler):
    access: StoreAccess

    def initialize(self, access: StoreAccess) -> None:
        self.access = access

    def answer(self, status: int, body: dict[str, Any]) -> None:
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(body))

    def refuse(self, status: int, error: str) -> None:
        self.answer(status, {"error": error, "store": self.access.shown})

    def unavailable(self, exc: StoreUnavailable) -> None:
        self.answer(503, {"error": str(exc), "store": exc.store, "reason": exc.reason})


class ThreadsHandler(_StoreHandler):
    """A page of the store's threads."""

    @tornado.web.authenticated
    async def get(self) -> None:
        try:
            query = self._query()
        except _Bad as exc:
            self.refuse(400, str(exc))
            return
        try:
            page, following = await self.access.read(lambda rt: rt.browse(query))
        except StoreUnavailable as exc:
            self.unavailable(exc)
            return
        except StoreMissing:
            page, following = [], None
        self.answer(
            200,
            {
                "threads": [thread_json(o) for o in page],
                "next": encode_cursor(following.after) if following and following.after else None,
            },
        )

    def _query(self) -> ThreadQuery:
        origin = self.get_query_argument("origin", "") or None
        if origin is not None and origin not in ORIGIN_KINDS:
            raise _Bad(f"origin {origin[:40]!r} is none of {', '.join(ORIGIN_KINDS)}")
        cursor = self.get_query_argument("cursor", "")
        try:
            after = decode_cursor(cursor) if cursor else None
        except BadCursor as exc:
            raise _Bad(str(exc)) from None
        return ThreadQuery(
            text=self.get_query_argument("q", "")[:1000],
            status=self.get_query_argument("status", "") or None,
            origin=origin,
            parent_id=self.get_query_argument("parent", "") or None,
            after=after,
            limit=self._limit(),
        )

    def _limit(self) -> int:
        raw = self.get_query_argument("limit", "")
        if not raw:
            return DEFAULT_LIMIT
        try:
            asked = int(raw)
        except ValueError:
            raise _Bad(f"limit {raw[:40]!r} is not a whole number") from None
        return min(max(asked, 1), MAX_LIMIT)


class StepsHandler(_StoreHandler):
    """A thread's steps, its descendants' included (`thread.steps()`)."""

    @tornado.web.authenticated
    async def get(self, thread_id: str) -> None:
        try:
            steps = await self.access.read(lambda rt: _steps(rt, thread_id))
        except StoreUnavailable as exc:
            self.unavailable(exc)
            return
        except StoreMissing:
            steps = None
        if steps is None:
            self.refuse(404, f"no thread {thread_id!r} in this store")
            return
        self.answer(200, {"steps": [step_json(s) for s in steps]})


def _steps(rt: tl.Runtime, thread_id: str) -> list[tl.StepRecord] | None:
    if rt.store.get_thread(thread_id) is None:
        return None
    return rt.thread(thread_id).steps()


class ViewHandler(_StoreHandler):
    """What a thread's player is drawn from, as a shared page holds it."""

    @tornado.web.authenticated
    async def get(self, thread_id: str) -> None:
        try:
            shared = await self.access.read(lambda rt: _shared(rt, thread_id))
        except StoreUnavailable as exc:
            self.unavailable(exc)
            return
        except StoreMissing:
            shared = None
        if shared is None:
            self.refuse(404, f"no thread {thread_id!r} in this store")
            return
        self.answer(200, shared)


def _shared(rt: tl.Runtime, thread_id: str) -> dict[str, Any] | None:
    # The views (IPython, anywidget) load when a thread is first opened, not with the server.
    from threadlab.widgets import shared_thread

    if rt.store.get_thread(thread_id) is None:
        return None
    state, files, left_out = shared_thread(rt.thread(thread_id))
    return {"state": state, "files": files, "left_out": left_out}
