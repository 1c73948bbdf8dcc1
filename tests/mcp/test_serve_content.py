"""What a served registry gives an MCP client beyond text, read with the official SDK's
client: files attached to a result as image, audio and embedded-resource content; structured
results with their output schema; the served threads' files as resources (listed, read,
completed, watched); prompts; log messages at the level the client set; and who may reach the
endpoint at all. Secrets stay redacted in all of it."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypedDict

import httpx2
import pytest
from mcp import types
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from pydantic import BaseModel

import threadlab as tl
from threadlab.models import ScriptedModel, call, text

from .conformance_server import conformance_registry, red_pixel_png, silent_wav
from .test_serve import client_of

pytestmark = pytest.mark.processes  # the endpoint serves over a socket, to the SDK's client

SECRET = "sk-served-0123456789abcdef"


@contextlib.contextmanager
def legacy_methods() -> Iterator[None]:
    """Room for the 2025 protocols' methods the SDK marks deprecated (the 2026 one drops
    them), which today's clients send."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", MCPDeprecationWarning)
        yield


async def test_attached_files_reach_the_client_as_image_audio_and_resources(
    store_dir: Path,
) -> None:
    rt = tl.Runtime(conformance_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service) as client:
            image = (await client.call_tool("test_image_content", {})).content
            audio = (await client.call_tool("test_audio_content", {})).content
            embedded = (await client.call_tool("test_embedded_resource", {})).content
            mixed = (await client.call_tool("test_multiple_content_types", {})).content
        assert [b.type for b in image] == ["text", "image"]
        assert image[0].text == "a red pixel"
        assert image[1].mime_type == "image/png"
        assert base64.b64decode(image[1].data) == red_pixel_png()
        assert (audio[1].mime_type, base64.b64decode(audio[1].data)) == ("audio/wav", silent_wav())
        (resource,) = embedded
        thread = next(t for t in rt.threads() if t.agent == "_mcp_test_embedded_resource")
        assert resource.resource.uri == f"threadlab://threads/{thread.id}/files/notes.txt"
        assert (resource.resource.mime_type, resource.resource.text) == (
            "text/plain", "This is an embedded resource content.")  # fmt: skip
        assert [b.type for b in mixed] == ["text", "image", "resource"]
        assert mixed[2].resource.mime_type == "application/json"
    finally:
        await service.close()
        await rt.aclose()


class Forecast(BaseModel):
    city: str
    celsius: float


class Totals(TypedDict):
    count: int
    names: list[str]


def structured_registry() -> tl.Registry:
    registry = tl.Registry()

    @tl.tool(registry=registry)
    def forecast(state: tl.ThreadState, city: str) -> Forecast:
        """The forecast for a city."""
        return Forecast(city=city, celsius=21.5)

    @tl.tool(registry=registry)
    def totals(state: tl.ThreadState, names: list[str]) -> Totals:
        """Count names."""
        return {"count": len(names), "names": sorted(names)}

    @tl.tool(registry=registry)
    def scores(state: tl.ThreadState) -> dict[str, int]:
        """Scores by name."""
        return {"ada": 3, "alan": 2}

    @tl.tool(registry=registry)
    def greet(state: tl.ThreadState, name: str) -> str:
        """Say hello."""
        return f"hello {name}"

    return registry


async def test_a_typed_result_is_structured_content_with_its_output_schema(
    store_dir: Path,
) -> None:
    rt = tl.Runtime(structured_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service) as client:
            listed = {t.name: t for t in (await client.list_tools()).tools}
            assert listed["forecast"].output_schema["properties"]["celsius"]["type"] == "number"
            assert listed["totals"].output_schema["required"] == ["count", "names"]
            assert listed["scores"].output_schema["additionalProperties"] == {"type": "integer"}
            assert listed["greet"].output_schema is None
            # the SDK's client checks structured content against the output schema
            weather = await client.call_tool("forecast", {"city": "Oslo"})
            counted = await client.call_tool("totals", {"names": ["b", "a"]})
            scored = await client.call_tool("scores", {})
            hello = await client.call_tool("greet", {"name": "Ada"})
        assert weather.structured_content == {"city": "Oslo", "celsius": 21.5}
        assert weather.content[0].text == '{"city": "Oslo", "celsius": 21.5}'  # older clients
        assert counted.structured_content == {"count": 2, "names": ["a", "b"]}
        assert scored.structured_content == {"ada": 3, "alan": 2}
        assert (hello.structured_content, hello.content[0].text) == (None, "hello Ada")
    finally:
        await service.close()
        await rt.aclose()


async def test_the_served_threads_files_are_resources_listed_read_and_completed(
    store_dir: Path,
) -> None:
    rt = tl.Runtime(conformance_registry(), store_dir)
    other = await rt.create_thread("test_simple_prompt")  # not served over MCP
    await other.files.write("/private.txt", "not for the client")
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service) as client:
            await client.call_tool("test_multiple_content_types", {})
            (served,) = [t for t in rt.threads() if t.origin == "mcp"]
            base = f"threadlab://threads/{served.id}/files"
            listed = {r.uri: r for r in (await client.list_resources()).resources
                      if r.uri.startswith("threadlab:")}  # fmt: skip
            assert set(listed) == {f"{base}/red.png", f"{base}/data.json"}
            assert listed[f"{base}/red.png"].mime_type == "image/png"
            template = (await client.list_resource_templates()).resource_templates[-1]
            assert template.uri_template == "threadlab://threads/{thread_id}/files/{path}"
            (png,) = (await client.read_resource(f"{base}/red.png")).contents
            assert base64.b64decode(png.blob) == red_pixel_png()
            (data,) = (await client.read_resource(f"{base}/data.json")).contents
            assert data.text == '{"test":"data","value":123}'
            ref = types.ResourceTemplateReference(type="ref/resource", uri=template.uri_template)
            ids = await client.complete(ref, {"name": "thread_id", "value": served.id[:4]})
            assert ids.completion.values == [served.id]
            paths = await client.complete(ref, {"name": "path", "value": "d"},
                                          context_arguments={"thread_id": served.id})  # fmt: skip
            assert paths.completion.values == ["data.json"]
            for refused in (
                f"threadlab://threads/{other.id}/files/private.txt",  # not a thread it served
                f"{base}/../../{other.id}/files/private.txt",
                f"{base}/missing.txt",
                "file:///etc/passwd",
            ):
                with pytest.raises(MCPError) as error:
                    await client.read_resource(refused)
                assert error.value.code == -32002, refused
    finally:
        await service.close()
    store_wide = await tl.mcp.serve(runtime=rt, resources="store")
    try:
        async with client_of(store_wide) as client:
            uri = f"threadlab://threads/{other.id}/files/private.txt"
            (private,) = (await client.read_resource(uri)).contents
            assert private.text == "not for the client"
    finally:
        await store_wide.close()
        await rt.aclose()


async def test_a_watched_file_rewritten_by_a_served_call_is_announced(store_dir: Path) -> None:
    registry = tl.Registry()

    @tl.tool(registry=registry, approval="always")
    async def publish(state: tl.ThreadState, text: str) -> str:
        """Publish a status."""
        await state.write_file("/status.txt", text)
        return "published"

    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(runtime=rt)
    updated: list[str] = []

    async def notified(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.append(message.params.uri)

    try:
        async with client_of(service, message_handler=notified, mode="legacy") as client:
            waiting = await client.call_tool("publish", {"text": "green"})
            assert waiting.is_error
            (thread,) = rt.threads()
            uri = f"threadlab://threads/{thread.id}/files/status.txt"
            with legacy_methods():
                await client.subscribe_resource(uri)
            await thread.approve(thread.pending[0].tool_call_id)
            done = await client.call_tool("publish", {"text": "green"})
            assert done.content[0].text == "published"
            for _ in range(100):
                if updated:
                    break
                await asyncio.sleep(0.05)
            assert updated == [uri]
    finally:
        await service.close()
        await rt.aclose()


async def test_prompts_that_are_not_tools_are_served_with_their_text_variables(
    store_dir: Path,
) -> None:
    registry = conformance_registry()
    tl.define_prompt(
        "signed", prompt="Sign as {{env:AUTHOR}} with key {{env:API_KEY}}.",
        variables=[tl.Variable("API_KEY", type="secret"), tl.Variable("AUTHOR", required=True)],
        env={"API_KEY": SECRET}, registry=registry,
    )  # fmt: skip
    tl.define_prompt("helper", prompt="Help.", expose_as_tool=True, registry=registry)
    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service) as client:
            prompts = {p.name: p for p in (await client.list_prompts()).prompts}
            assert sorted(prompts) == [
                "signed", "test_prompt_with_arguments", "test_prompt_with_embedded_resource",
                "test_prompt_with_image", "test_simple_prompt",
            ]  # fmt: skip
            assert [(a.name, a.required) for a in prompts["signed"].arguments] == [("AUTHOR", True)]
            got = await client.get_prompt("test_prompt_with_arguments",
                                          {"arg1": "hello", "arg2": "world"})  # fmt: skip
            (message,) = got.messages
            assert message.content.text == "Prompt with arguments: arg1='hello', arg2='world'"
            signed = await client.get_prompt("signed", {"AUTHOR": "Ada", "API_KEY": "guess"})
            assert signed.messages[0].content.text == "Sign as Ada with key [secret:API_KEY]."
            with pytest.raises(MCPError, match="missing required arguments: AUTHOR"):
                await client.get_prompt("signed", {})
            with pytest.raises(MCPError, match="Unknown prompt: helper"):
                await client.get_prompt("helper", {})
    finally:
        await service.close()
        await rt.aclose()


async def test_a_tools_log_reaches_the_client_at_the_level_it_set(store_dir: Path) -> None:
    registry = tl.Registry()

    @tl.tool(registry=registry)
    async def chatty(state: tl.ThreadState) -> str:
        """Logs at three levels."""
        state.emit("log", {"level": "debug", "message": "details"})
        state.emit("log", {"level": "info", "message": "working"})
        state.emit("log", {"level": "warn", "message": f"careful with {SECRET}"})
        state.emit("progress", {"step": 1, "of": 2, "message": "half"})
        return "done"

    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(runtime=rt)
    heard: list[tuple[str, Any]] = []

    async def log(params: types.LoggingMessageNotificationParams) -> None:
        heard.append((params.level, params.data))

    try:
        async with client_of(service, logging_callback=log, mode="legacy") as client:
            await client.call_tool("chatty", {})
            default = list(heard)
            heard.clear()
            with legacy_methods():
                await client.set_logging_level("warning")
            await client.call_tool("chatty", {})
            warnings = list(heard)
            heard.clear()
            with legacy_methods():
                await client.set_logging_level("debug")
            await client.call_tool("chatty", {})
        assert default == [("info", "working"), ("warning", f"careful with {SECRET}")]
        assert warnings == [("warning", f"careful with {SECRET}")]
        assert heard == [("debug", "details"), ("info", "working"),
                         ("warning", f"careful with {SECRET}"),
                         ("debug", "progress 1/2: half")]  # fmt: skip
    finally:
        await service.close()
        await rt.aclose()


async def test_a_secret_written_to_a_served_file_is_redacted_in_what_the_client_reads(
    store_dir: Path,
) -> None:
    registry = tl.Registry()

    @tl.tool(registry=registry, variables=[tl.Variable("API_KEY", type="secret")])
    async def configure(state: tl.ThreadState) -> tl.ToolResult:
        """Writes a config file."""
        key = await state.env("API_KEY")
        assert key is not None
        await state.write_file("/config.ini", f"[api]\nkey = {key}\n")
        await state.write_file("/key.bin", b"\x00\xff" + key.encode() + b"\x00")
        return tl.ToolResult(result=f"configured with {key}", attachments=("/config.ini",))

    tl.define_prompt(
        "setup", prompt="Set things up.", tools=["configure"], expose_as_tool=True,
        model=ScriptedModel([call("configure", {}), text("set up")]),
        env={"API_KEY": SECRET}, registry=registry,
    )  # fmt: skip
    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(runtime=rt)
    seen: list[str] = []
    try:
        async with client_of(service) as client:
            answer = await client.call_tool("setup", {"message": "go"})
            seen.append(answer.model_dump_json())
            for resource in (await client.list_resources()).resources:
                (contents,) = (await client.read_resource(resource.uri)).contents
                seen.append(contents.model_dump_json())
                if isinstance(contents, types.BlobResourceContents):
                    seen.append(repr(base64.b64decode(contents.blob)))
        assert answer.content[0].text == "set up"
        assert any("key = [secret:API_KEY]" in s for s in seen)  # .ini: read as text
        assert "b'\\x00\\xff[secret:API_KEY]\\x00'" in seen  # binary: changed, not sent
        assert not any(SECRET in s for s in seen)
    finally:
        await service.close()
        await rt.aclose()


async def test_any_bind_address_checks_host_and_origin_and_the_bearer_scheme_is_any_case(
    store_dir: Path,
) -> None:
    rt = tl.Runtime(structured_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt, host="0.0.0.0", allowed_hosts=["studio.local"])
    port = service.url.rsplit(":", 1)[1].split("/")[0]
    url = f"http://127.0.0.1:{port}/mcp"
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"}}}  # fmt: skip
    accept = {"Accept": "application/json, text/event-stream"}
    try:
        async with httpx2.AsyncClient() as http:

            async def status(**headers: str) -> int:
                sent = {**accept, "Authorization": f"Bearer {service.token}", **headers}
                return (await http.post(url, json=body, headers=sent)).status_code

            assert await status() == 200
            assert await status(Authorization=f"bearer {service.token}") == 200
            assert await status(Authorization=f"BEARER  {service.token}") == 200
            assert await status(Authorization=f"Basic {service.token}") == 401
            assert await status(Host=f"evil.example:{port}") == 421
            assert await status(Host="studio.local") == 200
            assert await status(Host=f"studio.local:{port}") == 200
            assert await status(Origin="http://evil.example") == 403
            assert await status(Origin=f"http://localhost:{port}") == 200
    finally:
        await service.close()
        await rt.aclose()
