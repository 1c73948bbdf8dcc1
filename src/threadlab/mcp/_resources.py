"""The files of served threads as MCP resources: listed, read by URI, offered as the template
`threadlab://threads/{thread_id}/files/{path}` (with completion of its parameters), and
watched: a client subscribed to a file's URI is told when a served call rewrites it."""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Literal

from .._errors import ThreadlabError
from ..runtime import Runtime, Thread
from ._content import mime_type, resource_contents
from ._uris import FILE_TEMPLATE, file_uri, parse_file_uri

__all__ = ["ThreadResources"]

Reach = Literal["served", "store"]
_NOT_FOUND = -32002  # the spec's "Resource not found"


class ThreadResources:
    """The resources of one MCP endpoint. `reach="served"`: the files of the threads its calls
    ran; "store": of every thread of the runtime's store."""

    def __init__(
        self, runtime: Runtime, reach: Reach, publish: Callable[[Any], Awaitable[None]]
    ) -> None:
        self._runtime = runtime
        self._reach = reach
        self._publish = publish  # to the clients listening on the 2026 protocol
        self._served: dict[str, None] = {}  # ids, in the order the calls ran
        self._watchers: dict[str, set[Any]] = {}  # uri -> the sessions subscribed to it
        self._known: set[str] = set()  # uris of files written while served

    def served(self, thread_id: str) -> None:
        """Note a thread a call of this endpoint ran."""
        self._served[thread_id] = None

    def _thread_ids(self) -> list[str]:
        if self._reach == "store":
            return [record.id for record in self._runtime.store.list_threads()]
        return list(reversed(self._served))

    def _thread(self, thread_id: str) -> Thread | None:
        if self._reach == "served" and thread_id not in self._served:
            return None
        try:
            return self._runtime.thread(thread_id)
        except ThreadlabError:
            return None

    async def listing(self) -> list[Any]:
        from mcp import types

        out = []
        for thread_id in self._thread_ids():
            thread = self._thread(thread_id)
            if thread is None:
                continue
            for record in await thread.files.list():
                out.append(types.Resource(
                    uri=file_uri(thread_id, record.path), name=record.path,
                    description=f"{record.path} of thread {thread_id} ({thread.agent})",
                    mime_type=mime_type(record.path), size=record.size,
                ))  # fmt: skip
        return out

    def templates(self) -> list[Any]:
        from mcp import types

        return [types.ResourceTemplate(
            name="thread file", uri_template=FILE_TEMPLATE,
            description="A file of a thread this server ran, by thread id and path.",
        )]  # fmt: skip

    async def read(self, uri: str) -> list[Any]:
        from mcp.shared.exceptions import MCPError

        located = parse_file_uri(uri)
        thread = self._thread(located[0]) if located is not None else None
        if located is None or thread is None:
            raise MCPError(_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})
        try:
            data = await thread.files.read(located[1])
        except (ThreadlabError, FileNotFoundError):
            raise MCPError(_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri}) from None
        return resource_contents(thread, located[1], data)

    async def complete(self, argument: str, value: str, context: dict[str, str]) -> list[str]:
        """Values of the template's `thread_id` or `path` that start with `value`."""
        if argument == "thread_id":
            return [t for t in self._thread_ids() if t.startswith(value)][:100]
        thread = self._thread(context.get("thread_id", ""))
        if argument != "path" or thread is None:
            return []
        paths = [record.path.lstrip("/") for record in await thread.files.list()]
        return [p for p in paths if p.startswith(value.lstrip("/"))][:100]

    def subscribe(self, uri: str, session: Any) -> None:
        self._watchers.setdefault(uri, set()).add(session)

    def unsubscribe(self, uri: str, session: Any) -> None:
        sessions = self._watchers.get(uri)
        if sessions is not None:
            sessions.discard(session)
            if not sessions:
                del self._watchers[uri]

    async def written(self, thread_id: str, paths: Iterable[str]) -> None:
        """Tell the clients watching these files of `thread_id` that they changed (and those
        listening for the list, that there is a new one)."""
        from mcp.shared.subscriptions import ResourcesListChanged, ResourceUpdated

        for path in paths:
            uri = file_uri(thread_id, path)
            await self._publish(ResourceUpdated(uri))
            if uri not in self._known:
                self._known.add(uri)
                await self._publish(ResourcesListChanged())
            for session in list(self._watchers.get(uri, ())):
                with contextlib.suppress(Exception):  # a session that went away
                    await session.send_resource_updated(uri)
