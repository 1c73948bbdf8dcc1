"""What a served endpoint's clients cannot do: approve a call with an answer that is not
"approve", pick up or decide a call another session left waiting, subscribe to what is not
there or without bound, or end their session by reading a file too large for the transport.
The clients: the official SDK's, on the 2025 protocols ("legacy") and the newest."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import pytest
from mcp import types
from mcp.shared.exceptions import MCPError

import threadlab as tl
from threadlab.mcp._resources import MAX_SUBSCRIPTIONS

from .test_serve import client_of
from .test_serve_decisions import ARGS, deleting_registry, person

pytestmark = pytest.mark.processes  # the endpoint serves over a socket, to the SDK's client

MODES = ["legacy", "auto"]


@contextlib.contextmanager
def legacy_methods() -> Iterator[None]:
    """Room for the 2025 protocols' methods the SDK marks deprecated."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("answer", "why"),
    [
        ({"decision": "rejected"}, 'the answer\'s decision "rejected" is neither approve nor'),
        ({"decision": "no"}, 'the answer\'s decision "no" is neither approve nor reject'),
        ({"decision": True}, "the answer's decision true is neither approve nor reject"),
        ({"reason": "fine"}, "the answer has no decision"),
        ({}, "the answer has no decision"),
    ],
)
async def test_an_answer_that_does_not_say_approve_runs_nothing_and_says_why(
    store_dir: Path, mode: str, answer: dict[str, Any], why: str
) -> None:
    deleted: list[str] = []
    rt = tl.Runtime(deleting_registry(deleted), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    callback, shown = person(answer)
    try:
        async with client_of(service, elicitation_callback=callback, mode=mode) as client:
            refused = await client.call_tool("delete", ARGS)
        assert len(shown) == 1
        assert deleted == []
        (thread,) = rt.threads()
        assert thread.pending  # still waiting: decided where threadlab runs, or asked again
        said = refused.content[0].text
        assert refused.is_error
        assert said.startswith(f"nothing was decided: {why}")
        assert f"waits for a decision ({thread.pending[0].tool_call_id}) in thread" in said
    finally:
        await service.close()
        await rt.aclose()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("label", ["Reject", " REJECT "])
async def test_the_forms_own_reject_label_rejects(store_dir: Path, mode: str, label: str) -> None:
    deleted: list[str] = []
    rt = tl.Runtime(deleting_registry(deleted), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    callback, _ = person({"decision": label, "reason": "keep it"})
    try:
        async with client_of(service, elicitation_callback=callback, mode=mode) as client:
            refused = await client.call_tool("delete", ARGS)
        assert (refused.is_error, refused.content[0].text) == (True, "rejected: keep it")
        assert deleted == []
    finally:
        await service.close()
        await rt.aclose()


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_a_declined_or_cancelled_form_runs_nothing_and_says_so(
    store_dir: Path, mode: str, action: Literal["decline", "cancel"]
) -> None:
    deleted: list[str] = []
    rt = tl.Runtime(deleting_registry(deleted), store_dir)
    service = await tl.mcp.serve(runtime=rt)

    async def answer(context: Any, params: Any) -> types.ElicitResult:
        return types.ElicitResult(action=action, content={"decision": "approve"})

    try:
        async with client_of(service, elicitation_callback=answer, mode=mode) as client:
            refused = await client.call_tool("delete", ARGS)
        assert refused.is_error
        assert refused.content[0].text.startswith(f"the form was {action}")
        assert deleted == []
    finally:
        await service.close()
        await rt.aclose()


async def test_another_session_making_the_same_call_does_not_pick_up_its_waiting_thread(
    store_dir: Path,
) -> None:
    """Client A's call waits (A cannot answer forms); client B makes the very same call and
    approves what it is asked: B's own call runs, A's stays waiting for A (or for a decision
    where threadlab runs)."""
    deleted: list[str] = []
    rt = tl.Runtime(deleting_registry(deleted), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    approves, shown = person({"decision": "approve"})
    try:
        async with client_of(service, mode="legacy") as a:
            waits = await a.call_tool("delete", ARGS)
            (first,) = rt.threads()
            assert f"in thread {first.id}" in waits.content[0].text
            async with client_of(service, elicitation_callback=approves, mode="legacy") as b:
                ran = await b.call_tool("delete", ARGS)
            assert (ran.is_error, ran.content[0].text) == (False, "deleted /logs/old.log")
            (form,) = shown
            assert f"thread {first.id}" not in form.message  # B was asked about its own call
            assert first.pending  # A's call: still waiting, undecided
            again = await a.call_tool("delete", ARGS)  # A's session still finds it
            assert f"in thread {first.id}" in again.content[0].text
        assert len(rt.threads()) == 2
        assert deleted == ["/logs/old.log"]  # once: B's call
        async with client_of(service, mode="legacy") as c:  # A's session ended: not for C
            fresh = await c.call_tool("delete", ARGS)
        assert f"in thread {first.id}" not in fresh.content[0].text
        assert len(rt.threads()) == 3
    finally:
        await service.close()
        await rt.aclose()


def files_registry() -> tl.Registry:
    registry = tl.Registry()

    @tl.tool(registry=registry)
    async def make(state: tl.ThreadState, kilobytes: int) -> tl.ToolResult:
        """Writes a text and a binary file of `kilobytes` KB each, attached."""
        await state.write_file("/notes.txt", "a" * (kilobytes * 1024))
        await state.write_file("/data.bin", bytes(range(256)) * (kilobytes * 4))
        return tl.ToolResult(result="made", attachments=("/data.bin",))

    return registry


async def test_subscriptions_name_a_served_file_are_bounded_and_end_with_their_session(
    store_dir: Path,
) -> None:
    rt = tl.Runtime(files_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode="legacy") as client:
            await client.call_tool("make", {"kilobytes": 1})
            (thread,) = rt.threads()
            uri = f"threadlab://threads/{thread.id}/files"
            with legacy_methods():
                for unknown in ("file:///etc/passwd", "threadlab://threads/thr_nope/files/a.txt",
                                f"{uri}/../../etc/passwd"):  # fmt: skip
                    with pytest.raises(MCPError, match="Resource not found") as refused:
                        await client.subscribe_resource(unknown)
                    assert refused.value.error.code == -32002
                await client.subscribe_resource(f"{uri}/notes.txt")
                await client.subscribe_resource(f"{uri}/notes.txt")  # the same: held once
                for n in range(MAX_SUBSCRIPTIONS - 1):  # a file the thread may yet write
                    await client.subscribe_resource(f"{uri}/later-{n}.txt")
                with pytest.raises(MCPError, match="watches 100 resources, the most one may"):
                    await client.subscribe_resource(f"{uri}/one-too-many.txt")
                await client.unsubscribe_resource(f"{uri}/later-0.txt")
                await client.subscribe_resource(f"{uri}/one-too-many.txt")
            assert service.resources.subscriptions() == MAX_SUBSCRIPTIONS
        for _ in range(5):  # sessions that subscribe and close
            async with client_of(service, mode="legacy") as client, asyncio.timeout(30):
                with legacy_methods():
                    for n in range(20):
                        await client.subscribe_resource(f"{uri}/other-{n}.txt")
        for _ in range(100):
            if service.resources.subscriptions() == 0:
                break
            await asyncio.sleep(0.05)
        assert service.resources.subscriptions() == 0  # every one went with its session
    finally:
        await service.close()
        await rt.aclose()


@pytest.mark.parametrize("mode", MODES)
async def test_a_file_too_large_for_one_event_is_refused_by_name_and_the_session_goes_on(
    store_dir: Path, mode: str
) -> None:
    """A 2 MiB file: on the 2025 protocols (a response is one server-sent event, which the
    SDK's client reads up to 1 MiB) its read is an MCP error naming the limit, and the session
    goes on; on 2026-07-28 (a read is answered as JSON) it is read whole. In a call's answer
    it goes as a link to the resource."""
    rt = tl.Runtime(files_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode=mode) as client:
            made = await client.call_tool("make", {"kilobytes": 2048})
            (thread,) = rt.threads()
            uri = f"threadlab://threads/{thread.id}/files"
            assert [b.type for b in made.content] == ["text", "resource_link"]
            assert (made.content[1].uri, made.content[1].size) == (f"{uri}/data.bin", 2 << 20)
            for name in ("notes.txt", "data.bin"):
                if mode == "legacy":
                    with pytest.raises(MCPError, match="Resource too large to send") as refused:
                        await client.read_resource(f"{uri}/{name}")
                    assert f"{uri}/{name} is 2,097,152 bytes" in str(refused.value)
                    assert "reads up to 1,048,576 bytes" in str(refused.value)
                else:
                    (whole,) = (await client.read_resource(f"{uri}/{name}")).contents
                    data = whole.text.encode() if name == "notes.txt" else \
                        base64.b64decode(whole.blob)  # fmt: skip
                    assert len(data) == 2 << 20
                assert [t.name for t in (await client.list_tools()).tools] == ["make"]
            smaller = await client.call_tool("make", {"kilobytes": 512})
            assert [b.type for b in smaller.content] == ["text", "resource"]
            latest = next(t for t in rt.threads() if t.id != thread.id)
            (fits,) = (await client.read_resource(
                f"threadlab://threads/{latest.id}/files/data.bin")).contents  # fmt: skip
            assert len(base64.b64decode(fits.blob)) == 512 << 10
    finally:
        await service.close()
        await rt.aclose()
