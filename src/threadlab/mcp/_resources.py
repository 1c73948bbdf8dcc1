"""The files of served threads as MCP resources: listed, read by URI, offered as the template
`threadlab://threads/{thread_id}/files/{path}` (with completion of its parameters), and
watched: a client subscribed to a file's URI is told when a served call rewrites it.

A subscription names a file of a thread the endpoint offers (one the thread has yet to write
too: that is what a watcher waits for); any other URI is "Resource not found". A session holds
at most `MAX_SUBSCRIPTIONS`, and they end with it. A read answered as one server-sent event
refuses a file too large for one (`_large_files`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any, Literal

from .._errors import ThreadlabError
from ..runtime import Runtime, Thread
from ..store import FileRecord
from ._content import mime_type, resource_contents
from ._large_files import fits, room, too_large
from ._uris import FILE_TEMPLATE, file_uri, parse_file_uri
from ._watchers import MAX_SUBSCRIPTIONS, Watchers

__all__ = ["MAX_SUBSCRIPTIONS", "ThreadResources"]

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
        self._watchers = Watchers()
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

    def _located(self, uri: str) -> tuple[Thread, str, FileRecord | None]:
        """The thread and path of a file URI of a thread offered here, and the file's record
        (None: not written yet); "Resource not found" for any other URI."""
        from mcp.shared.exceptions import MCPError

        located = parse_file_uri(uri)
        thread = self._thread(located[0]) if located is not None else None
        if located is None or thread is None:
            raise MCPError(_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})
        try:
            record = thread.files.stat_sync(located[1])
        except ThreadlabError:  # no path a thread can have
            raise MCPError(_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri}) from None
        return thread, located[1], record

    async def read(self, uri: str, as_event: bool = False) -> list[Any]:
        """The contents of the file `uri`; `as_event`: the answer travels as one server-sent
        event, so a file too large for one is refused (an MCP error naming the limit)."""
        from mcp import types
        from mcp.shared.exceptions import MCPError

        thread, path, record = self._located(uri)
        if record is None:
            raise MCPError(_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})
        if as_event and record.size > room():  # too large however it is spelt: not read
            raise _too_large(uri, record.size)
        try:
            data = await thread.files.read(path)
        except (ThreadlabError, FileNotFoundError):
            raise MCPError(_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri}) from None
        contents = resource_contents(thread, path, data)
        if as_event and not fits(types.ReadResourceResult(contents=contents)):
            raise _too_large(uri, len(data))
        return contents

    async def complete(self, argument: str, value: str, context: dict[str, str]) -> list[str]:
        """Values of the template's `thread_id` or `path` that start with `value`."""
        if argument == "thread_id":
            return [t for t in self._thread_ids() if t.startswith(value)][:100]
        thread = self._thread(context.get("thread_id", ""))
        if argument != "path" or thread is None:
            return []
        paths = [record.path.lstrip("/") for record in await thread.files.list()]
        return [p for p in paths if p.startswith(value.lstrip("/"))][:100]

    def subscribe(self, uri: str, session: str, channel: Any) -> None:
        """Tell `session` (through `channel`, its SDK session) when the file `uri` changes."""
        self._located(uri)
        self._watchers.subscribe(uri, session, channel)

    def unsubscribe(self, uri: str, session: str) -> None:
        self._watchers.unsubscribe(uri, session)

    def session_ended(self, session: str) -> None:
        """Drop the subscriptions of a session that ended."""
        self._watchers.session_ended(session)

    def subscriptions(self) -> int:
        """How many subscriptions are held, all sessions together."""
        return self._watchers.count()

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
            await self._watchers.tell(uri)


def _too_large(uri: str, size: int) -> Exception:
    return too_large("Resource", uri, size, ", or read it from its thread where threadlab runs")
