"""Every way a provider fails ends in a persisted, readable state and a call that returns:
rejected keys, unknown models, rate limits and server errors after the SDK's retries, timeouts,
unreachable servers, streams cut in the middle of a call, garbage, and cancellation."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest

import threadlab as tl

from ._protocols import PROVIDERS, chat_chunks, chat_frames, provider_frames
from ._server import Reply, ScriptedServer, sse
from ._setup import KEY, arguments, key_variable, new_thread, remote_prompt

WRITE = ("call_1", "write_file", arguments({"path": "/out.txt", "content": "z" * 400}))


def error_body(message: str) -> dict[str, Any]:
    # Both providers wrap the message the same way.
    return {"error": {"message": message, "type": "error"}}


async def failed_run(rt: tl.Runtime, provider: str) -> tl.Run:
    thread = await new_thread(rt, provider)
    run = await thread.send("go")
    assert run.status == "failed"
    assert run.error is not None
    assert KEY not in run.error
    # The failure is persisted: the thread reopened says the same.
    assert rt.thread(thread.id).messages[0].content == "go"
    return run


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [401, 403])
async def test_a_rejected_key_names_the_variable_to_set(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str, status: int
) -> None:
    remote_prompt(registry, server, provider)
    # Real providers echo part of a bad key; this one echoes all of it.
    server.reply(Reply(status=status, body=error_body(f"Incorrect API key provided: {KEY}")))
    run = await failed_run(rt, provider)
    assert f"rejected the API key in {key_variable(provider)}" in run.error  # type: ignore[operator]
    assert f"%threadlab secret {key_variable(provider)}" in run.error  # type: ignore[operator]
    assert f"HTTP {status}" in run.error  # type: ignore[operator]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_an_unknown_model_names_the_model_and_the_url(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider)
    server.reply(Reply(status=404, body=error_body("The model `test-model` does not exist")))
    run = await failed_run(rt, provider)
    assert "model 'test-model' was not found at http://127.0.0.1:" in run.error  # type: ignore[operator]
    assert "does not exist" in run.error  # type: ignore[operator]


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("status", [429, 500, 503])
async def test_rate_limits_and_server_errors_are_retried_then_fail_with_the_message(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str, status: int
) -> None:
    remote_prompt(registry, server, provider, max_retries=2)
    fast = {"retry-after-ms": "10"}  # the SDKs honour it: keeps the backoff short here
    for _ in range(3):
        server.reply(Reply(status=status, body=error_body("slow down"), headers=fast))
    run = await failed_run(rt, provider)
    assert len(server.requests) == 3  # the first try and two retries
    assert f"HTTP {status} (after 2 retries): slow down" in run.error  # type: ignore[operator]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_retry_that_succeeds_completes_the_run(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider, max_retries=2)
    server.reply(
        Reply(status=429, body=error_body("busy"), headers={"retry-after-ms": "10"}),
        Reply(frames=provider_frames(provider, "fine now")),
    )
    thread = await new_thread(rt, provider)
    run = await thread.send("go")
    assert run.status == "completed"
    assert run.text == "fine now"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_no_answer_within_the_timeout(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider, timeout=0.3)
    server.reply(Reply(frames=provider_frames(provider, "late"), stall=1.5))
    run = await failed_run(rt, provider)
    assert "no answer from http://127.0.0.1:" in run.error  # type: ignore[operator]
    assert "within 0.3 s" in run.error  # type: ignore[operator]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_read_timeout_in_the_middle_of_a_stream(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider, timeout=0.3)
    server.reply(Reply(frames=provider_frames(provider, calls=[WRITE]), pace=1.0))
    run = await failed_run(rt, provider)
    assert "within 0.3 s" in run.error  # type: ignore[operator]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_an_unreachable_server(rt: tl.Runtime, registry: tl.Registry, provider: str) -> None:
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # closed again: nothing listens there

    class Nowhere:
        url = f"http://127.0.0.1:{port}"

    remote_prompt(registry, Nowhere(), provider)  # type: ignore[arg-type]
    run = await failed_run(rt, provider)
    assert f"cannot reach http://127.0.0.1:{port}" in run.error  # type: ignore[operator]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_stream_cut_inside_a_calls_arguments_executes_nothing(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider)
    whole = provider_frames(provider, "Writing.", calls=[WRITE], size=20)
    server.reply(Reply(frames=whole[: len(whole) - 8], cut=True))  # inside the arguments
    run = await failed_run(rt, provider)
    assert "broke off" in run.error or "cannot reach" in run.error  # type: ignore[operator]
    thread = rt.thread(rt.threads()[0].id)
    assert [m.role for m in thread.messages] == ["user"]  # no half call, nothing executed
    assert thread.files.stat_sync("/out.txt") is None


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    "garbage",
    [b"data: {this is not json\n\n", b"<html>502 Bad Gateway</html>", b'data: {"hello": 1}\n\n'],
    ids=["broken-json", "html", "wrong-shape"],
)
async def test_a_server_that_sends_garbage(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str, garbage: bytes
) -> None:
    remote_prompt(registry, server, provider)
    if provider != "openai" and garbage.startswith(b"data"):
        # The typed APIs read the event name first.
        garbage = b"event: content_block_delta\n" + garbage
        if provider == "openai-responses":
            garbage = garbage.replace(b"content_block_delta", b"response.output_text.delta")
    server.reply(Reply(raw=garbage))
    thread = await new_thread(rt, provider)
    run = await thread.send("go")
    assert run.status == "failed"
    assert run.error is not None
    assert f"model 'remote' failed: the response from {server.url}" in run.error
    assert "not the protocol" in run.error
    assert [m.role for m in thread.messages] == ["user"]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_cancelling_mid_stream_closes_the_connection_at_once(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider)
    server.reply(Reply(frames=provider_frames(provider, calls=[WRITE], size=2), pace=0.02))
    thread = await new_thread(rt, provider)
    seen = asyncio.Event()

    async def watch() -> None:
        async for event in thread.stream("go"):
            if event.type == "tool_call_delta":
                seen.set()

    task = asyncio.ensure_future(watch())
    await asyncio.wait_for(seen.wait(), 10)
    task.cancel()
    cancelled_at = time.monotonic()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(server.disconnected.wait, 5)
    assert server.disconnected_at - cancelled_at <= 1.0
    sent = server.frames_sent
    await asyncio.sleep(0.2)
    assert server.frames_sent == sent  # nothing more was streamed to nobody
    history = rt.thread(thread.id).messages
    assert [m.role for m in history] == ["user"]  # the half-streamed call never ran
    assert thread.files.stat_sync("/out.txt") is None


def test_sse_helper_frames_events() -> None:
    assert sse({"a": 1}, "x") == b'event: x\ndata: {"a": 1}\n\n'


def endless(provider: str, repeated: bytes | None = None) -> Iterator[bytes]:
    """A stream's opening frames, then `repeated` forever (by default, its text frame)."""
    opening = provider_frames(provider, "A" * 65536, size=65536)
    text_at = next(i for i, frame in enumerate(opening) if b"AAAA" in frame)
    yield from opening[:text_at]
    while True:
        yield repeated if repeated is not None else opening[text_at]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_stream_that_never_ends_is_cut_at_max_output_bytes(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider, max_output_bytes=1 << 20)
    server.reply(Reply(frames=endless(provider)))
    run = await failed_run(rt, provider)
    assert "went over 1,048,576 bytes (the model's max_output_bytes option)" in run.error  # type: ignore[operator]
    assert server.disconnected.wait(10)  # the connection was dropped, not read to its end
    sent = server.frames_sent
    await asyncio.sleep(0.3)
    assert server.frames_sent == sent  # and the endless stream stopped there


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_keep_alive_comments_do_not_hold_off_the_timeout(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer, provider: str
) -> None:
    remote_prompt(registry, server, provider, timeout=0.5)
    server.reply(Reply(frames=endless(provider, b": keep-alive\n\n"), pace=0.1))
    started = time.monotonic()
    run = await failed_run(rt, provider)
    assert "within 0.5 s (keep-alives do not count)" in run.error  # type: ignore[operator]
    assert time.monotonic() - started < 10


def test_the_default_cap_on_one_response_is_8_mib() -> None:
    from threadlab.models._remote import DEFAULT_MAX_OUTPUT_BYTES

    assert DEFAULT_MAX_OUTPUT_BYTES == 8 << 20


async def test_a_mid_stream_error_event_is_the_providers_error_quoted(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    # Groq's shape: text streams, then an `error` event carrying the error object.
    remote_prompt(registry, server, "openai")
    said = "Rate limit reached for model `llama-3.3-70b` in organization `org_1`: tokens per minute"
    error = {"error": {"message": said, "type": "tokens", "code": "rate_limit_exceeded"}}
    started = chat_frames(chat_chunks("Partial answ", size=4, usage=None))[:-2]  # no finish
    server.reply(Reply(frames=[*started, sse(error, event="error")]))
    run = await failed_run(rt, "openai")
    assert run.error == (
        f"model 'remote' failed: {server.url}/v1 reported an error mid-stream: {said}"
    )
