"""Tools of MCP servers in threads: the npm "everything" server over stdio, and the tests'
own servers over stdio and streamable HTTP; every bad input a clear error, no hang, no
process left behind."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.definitions import ThreadDefinitions
from threadlab.models import ScriptedModel, call, text

from .conftest import HttpServer, processes_running, stdio_server

pytestmark = pytest.mark.processes  # it starts MCP servers and clients in their own processes


def results(thread: tl.Thread) -> list[tuple[str, str]]:
    return [(m.tool_status or "", m.content or "") for m in thread.messages if m.role == "tool"]


async def run_calls(
    registry: tl.Registry, store: Path, tools: list[str], *calls: Any
) -> tuple[tl.Thread, tl.Run, tl.Runtime]:
    model = ScriptedModel([*(call(name, args) for name, args in calls), text("done")])
    tl.define_prompt("p", prompt="Use the tools.", model=model, tools=tools, registry=registry)
    rt = tl.Runtime(registry, store)
    thread = await rt.create_thread("p")
    return thread, await thread.send("go"), rt


async def test_the_everything_servers_tools_run_with_progress_and_images(
    everything: list[str], registry: tl.Registry, store_dir: Path
) -> None:
    command, *args = everything
    tl.define_mcp_server("everything", command=command, args=args, registry=registry)
    thread, run, rt = await run_calls(
        registry, store_dir, ["mcp:everything"],
        ("echo", {"message": "hi there"}),
        ("get-sum", {"a": 2, "b": 40}),
        ("trigger-long-running-operation", {"duration": 1, "steps": 3}),
        ("get-tiny-image", {}),
        ("get-sum", {"a": 2, "b": "forty"}),
    )  # fmt: skip
    try:
        assert run.status == "completed"
        (echo, total, long, image, refused) = results(thread)
        assert echo == ("success", "Echo: hi there")
        assert total[0] == "success"
        assert "42" in total[1]
        assert long[0] == "success"
        assert "Steps: 3" in long[1]
        progress = [e.data for e in thread.events
                    if isinstance(e, tl.CustomEvent) and e.event_type == "progress"]  # fmt: skip
        assert progress == [{"step": 1.0, "of": 3.0}, {"step": 2.0, "of": 3.0},
                            {"step": 3.0, "of": 3.0}]  # fmt: skip
        assert image[0] == "success"
        (attached,) = [m for m in thread.messages if m.role == "tool" and m.attachments]
        (path,) = attached.attachments
        assert path.startswith("/mcp/everything/")
        assert path.endswith(".png")
        assert thread.files.read_sync(path).startswith(b"\x89PNG")
        assert refused[0] == "error"
        assert "is not of type 'number'" in refused[1]
    finally:
        await rt.aclose()
    assert processes_running(args[0]) == []


async def test_a_prefix_avoids_a_clash_with_a_defined_tool(
    everything: list[str], registry: tl.Registry, store_dir: Path
) -> None:
    tl.define_tool("echo", description="Mine.", execute=lambda s, a: "mine", registry=registry)
    command, *args = everything
    tl.define_mcp_server("everything", command=command, args=args, registry=registry)
    tl.define_prompt("p", prompt="x", tools=["echo", "mcp:everything"], registry=registry)
    rt = tl.Runtime(registry, store_dir)
    with pytest.raises(tl.DefinitionError, match=r"has the name of a defined tool.*prefix="):
        await rt.create_thread("p")
    await rt.aclose()
    tl.define_mcp_server("everything", command=command, args=args, prefix="ev",
                         tools=["echo"], registry=registry)  # fmt: skip
    thread, _run, rt = await run_calls(
        registry, store_dir, ["echo", "mcp:everything"], ("echo", {}), ("ev_echo", {"message": "x"})
    )
    assert results(thread) == [("success", "mine"), ("success", "Echo: x")]
    assert [t.name for t in registry.tools() if t.mcp_server] == ["ev_echo"]
    await rt.aclose()


async def test_an_http_server_with_a_token_errors_and_a_changing_list(
    http_server: HttpServer, registry: tl.Registry, store_dir: Path
) -> None:
    tl.define_mcp_server("remote", url=http_server.url,
                         headers={"Authorization": "Bearer {{env:REMOTE_TOKEN}}"},
                         registry=registry)  # fmt: skip
    with pytest.MonkeyPatch.context() as env:
        env.setenv("REMOTE_TOKEN", http_server.token)
        thread, run, rt = await run_calls(
            registry, store_dir, ["mcp:remote"],
            ("add", {"a": 1, "b": 2}), ("fail", {"reason": "no"}), ("grow", {}),
        )  # fmt: skip
        try:
            assert run.status == "completed"
            assert results(thread) == [("success", '{"result": 3}'),
                                       ("error", "Error executing tool fail"),
                                       ("success", '{"result": "grown"}')]  # fmt: skip
            for _ in range(50):  # the change comes on its own stream
                if registry.tool("extra") is None:
                    await rt._host.prepare_definitions()
                    await asyncio.sleep(0.1)
            extra = registry.tool("extra")
            assert extra is not None
            assert extra.mcp_server == "remote"
        finally:
            await rt.aclose()


async def test_a_wrong_token_and_an_unreachable_url_say_so_quickly(
    http_server: HttpServer, registry: tl.Registry, store_dir: Path
) -> None:
    tl.define_mcp_server("remote", url=http_server.url,
                         headers={"Authorization": "Bearer wrong-token-1234"},
                         registry=registry)  # fmt: skip
    tl.define_prompt("p", prompt="x", tools=["mcp:remote"], registry=registry)
    rt = tl.Runtime(registry, store_dir)
    with pytest.raises(tl.MCPServerError, match="HTTP 401: the server refused the creden") as e:
        await rt.create_thread("p")
    assert "wrong-token-1234" not in str(e.value)
    await rt.aclose()
    from .conftest import free_port

    tl.define_mcp_server("remote", url=f"http://127.0.0.1:{free_port()}/mcp", registry=registry)
    rt = tl.Runtime(registry, store_dir)
    started = time.monotonic()
    with pytest.raises(tl.MCPServerError, match=r"could not be reached: .*onnect"):
        await rt.create_thread("p")
    assert time.monotonic() - started < 10
    assert rt.threads() == []
    await rt.aclose()


async def test_an_interrupted_call_is_cancelled_on_the_server(
    http_server: HttpServer, registry: tl.Registry, store_dir: Path
) -> None:
    tl.define_mcp_server("remote", url=http_server.url,
                         headers={"Authorization": f"Bearer {http_server.token}"},
                         registry=registry)  # fmt: skip
    tl.define_prompt("p", prompt="x", model=ScriptedModel([call("slow", {}), text("never")]),
                     tools=["mcp:remote"], registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store_dir)
    thread = await rt.create_thread("p")
    running = asyncio.create_task(thread.send("go"))
    deadline = time.monotonic() + 30
    while not (http_server.markers / "started").exists():
        assert time.monotonic() < deadline, "the slow tool never started"
        await asyncio.sleep(0.05)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    marker = http_server.markers / "cancelled"
    while not marker.exists():
        assert time.monotonic() < deadline, "the server never heard of the cancellation"
        await asyncio.sleep(0.05)
    assert results(thread)[-1][0] == "error"
    progress = [e.data for e in thread.events
                if isinstance(e, tl.CustomEvent) and e.event_type == "progress"]  # fmt: skip
    assert progress == [{"step": 1.0, "of": 10.0, "message": "started"}]
    await rt.aclose()


async def test_a_server_that_dies_mid_call_is_an_error_then_started_again(
    registry: tl.Registry, store_dir: Path
) -> None:
    command, *args = stdio_server()
    tl.define_mcp_server("local", command=command, args=args, registry=registry)
    thread, _run, rt = await run_calls(
        registry, store_dir, ["mcp:local"], ("pid", {}), ("die", {}), ("pid", {})
    )
    first, died, second = results(thread)
    await rt.aclose()
    assert died[0] == "error"
    assert "ended during the call" in died[1]
    assert first[0] == second[0] == "success"
    assert first[1] != second[1]
    assert processes_running(args[0]) == []


async def test_a_flood_of_progress_is_stored_coalesced_and_heard_whole(
    registry: tl.Registry, store_dir: Path
) -> None:
    """A server sending 10,000 progress notifications in one call: each is heard live, the
    store keeps a few per second of the call and the last one."""
    command, *args = stdio_server()
    tl.define_mcp_server("local", command=command, args=args, registry=registry)
    model = ScriptedModel([call("flood", {"count": 10_000}), text("done")])
    tl.define_prompt("p", prompt="x", model=model, tools=["mcp:local"], registry=registry)
    rt = tl.Runtime(registry, store_dir)
    thread = await rt.create_thread("p")
    started = time.monotonic()
    heard = [e async for e in thread.stream("go") if isinstance(e, tl.CustomEvent)]
    took = time.monotonic() - started
    assert results(thread)[0] == ("success", '{"result": "sent 10000"}')
    live = [e.data["step"] for e in heard if e.event_type == "progress"]
    assert live[:10_000] == [float(n) for n in range(1, 10_001)]  # every one, in order
    stored = [e.data for e in thread.events
              if isinstance(e, tl.CustomEvent) and e.event_type == "progress"]  # fmt: skip
    assert stored[0] == {"step": 1.0, "of": 10_000.0}
    assert stored[-1] == {"step": 10_000.0, "of": 10_000.0}  # the last value is kept
    assert len(stored) <= 4 * took + 2  # at most four a second, and the last
    assert [s["step"] for s in stored] == sorted(s["step"] for s in stored)
    await rt.aclose()


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (["/nonexistent/mcp-server"], "could not be started: FileNotFoundError"),
        ([sys.executable, "-c",
          "print('garbage, not JSON-RPC', flush=True); import time; time.sleep(60)"],
         "did not finish the MCP handshake within 3 s"),
    ],
)  # fmt: skip
async def test_a_server_that_cannot_start_or_talks_garbage(
    command: list[str], expected: str, registry: tl.Registry, store_dir: Path
) -> None:
    tl.define_mcp_server("bad", command=command[0], args=command[1:], timeout=3,
                         registry=registry)  # fmt: skip
    tl.define_prompt("p", prompt="x", tools=["mcp:bad"], registry=registry)
    rt = tl.Runtime(registry, store_dir)
    started = time.monotonic()
    with pytest.raises(tl.MCPServerError, match=expected):
        await rt.create_thread("p")
    assert time.monotonic() - started < 15
    await rt.aclose()
    assert processes_running("garbage, not JSON-RPC") == []


async def test_a_tool_schema_that_is_not_json_schema_is_named(
    registry: tl.Registry, store_dir: Path
) -> None:
    command, *args = stdio_server("bad-schema")
    tl.define_mcp_server("local", command=command, args=args, registry=registry)
    tl.define_prompt("p", prompt="x", tools=["mcp:local"], registry=registry)
    rt = tl.Runtime(registry, store_dir)
    with pytest.raises(
        tl.DefinitionError,
        match="MCP server 'local': tool 'broken': args is not a valid JSON Schema",
    ):
        await rt.create_thread("p")
    await rt.aclose()
    assert processes_running(args[0]) == []


def test_definitions_that_do_not_fit_are_refused(registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match="exactly one of command="):
        tl.define_mcp_server("x", registry=registry)
    with pytest.raises(tl.DefinitionError, match="exactly one of command="):
        tl.define_mcp_server("x", command="a", url="http://b", registry=registry)
    with pytest.raises(tl.DefinitionError, match="url must start with http"):
        tl.define_mcp_server("x", url="ftp://b", registry=registry)
    with pytest.raises(tl.DefinitionError, match="headers= is for an HTTP server"):
        tl.define_mcp_server("x", command="a", headers={"A": "b"}, registry=registry)
    with pytest.raises(tl.DefinitionError, match="timeout must be a positive"):
        tl.define_mcp_server("x", command="a", timeout=0, registry=registry)
    tl.define_prompt("p", prompt="x", tools=["mcp:nowhere"], registry=registry)
    with pytest.raises(tl.DefinitionError, match="no MCP server 'nowhere' is defined"):
        ThreadDefinitions(registry, "p")


async def test_a_servers_tools_can_need_a_decision(
    everything: list[str], registry: tl.Registry, store_dir: Path
) -> None:
    command, *args = everything
    tl.define_mcp_server("everything", command=command, args=args, tools=["echo"],
                         approval="always", registry=registry)  # fmt: skip
    thread, run, rt = await run_calls(registry, store_dir, ["echo"], ("echo", {"message": "m"}))
    try:
        assert run.status == "waiting"
        (request,) = thread.pending
        await thread.approve(request.tool_call_id, arguments={"message": "edited"})
        assert (await thread.resume()).status == "completed"
        assert results(thread) == [("success", "Echo: edited")]
    finally:
        await rt.aclose()
