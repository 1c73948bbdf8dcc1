"""Resources and prompts of a registry's own (`tl.define_resource`, `define_prompt(messages=)`)
served over MCP, read with the official SDK's client on the 2025 protocols ("legacy") and the
newest: fixed text and binary resources, templates with parameters, reads that fail, URIs
that are not there, prompts that carry an image and an embedded resource."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import os
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import types
from mcp.shared.exceptions import MCPError

import threadlab as tl
from threadlab.mcp import _defined_resources
from threadlab.models import ScriptedModel, call, text

from .conformance_server import red_pixel_png, silent_wav
from .test_serve import client_of

pytestmark = pytest.mark.processes  # the endpoint serves over a socket, to the SDK's client

MODES = ["legacy", "auto"]
SECRET = "sk-resource-0123456789abcdef"


@contextlib.contextmanager
def legacy_methods() -> Iterator[None]:
    """Room for the 2025 protocols' methods the SDK marks deprecated."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def notes_registry() -> tl.Registry:
    registry = tl.Registry()
    tl.define_resource("notes://today", read=lambda params: "Tea at four.",
                       description="Today's note.", registry=registry)  # fmt: skip

    async def logo(params: dict[str, str]) -> bytes:
        await asyncio.sleep(0)
        return red_pixel_png()

    tl.define_resource("assets://logo.png", read=logo, name="logo", registry=registry)

    def note(params: dict[str, str]) -> str:
        """A note on a topic, for a day."""
        return f"{params['day']}: notes on {params['topic']}"

    tl.define_resource("notes://{day}/{topic}.md", read=note, registry=registry)

    def broken(params: dict[str, str]) -> str:
        raise ConnectionError(f"https://user:hunter2@notes.example/x?api_key=KEY-1 for {params}")

    tl.define_resource("notes://broken/{n}", read=broken, registry=registry)
    tl.define_resource("notes://number", read=lambda params: 42, registry=registry)
    return registry


@pytest.mark.parametrize("mode", MODES)
async def test_fixed_resources_and_templates_are_listed_and_read(
    store_dir: Path, mode: str
) -> None:
    rt = tl.Runtime(notes_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode=mode) as client:
            listed = {r.uri: r for r in (await client.list_resources()).resources}
            assert sorted(listed) == ["assets://logo.png", "notes://number", "notes://today"]
            today = listed["notes://today"]
            assert (today.name, today.description) == ("notes://today", "Today's note.")
            assert (listed["assets://logo.png"].name, listed["assets://logo.png"].mime_type) == (
                "logo", "image/png")  # fmt: skip
            templates = (await client.list_resource_templates()).resource_templates
            by_uri = {t.uri_template: t for t in templates}
            assert list(by_uri) == [
                "notes://{day}/{topic}.md", "notes://broken/{n}",
                "threadlab://threads/{thread_id}/files/{path}",
            ]  # fmt: skip
            note = by_uri["notes://{day}/{topic}.md"]
            assert (note.description, note.mime_type) == ("A note on a topic, for a day.",
                                                          "text/markdown")  # fmt: skip

            (text,) = (await client.read_resource("notes://today")).contents
            assert isinstance(text, types.TextResourceContents)
            assert (text.uri, text.mime_type, text.text) == (
                "notes://today", "text/plain", "Tea at four.")  # fmt: skip
            (blob,) = (await client.read_resource("assets://logo.png")).contents
            assert isinstance(blob, types.BlobResourceContents)
            assert blob.mime_type == "image/png"
            assert base64.b64decode(blob.blob) == red_pixel_png()
            (filled,) = (await client.read_resource("notes://monday/green%20tea.md")).contents
            assert isinstance(filled, types.TextResourceContents)
            assert filled.uri == "notes://monday/green%20tea.md"
            assert (filled.text, filled.mime_type) == ("monday: notes on green tea",
                                                       "text/markdown")  # fmt: skip
    finally:
        await service.close()
        await rt.aclose()


@pytest.mark.parametrize("mode", MODES)
async def test_a_read_that_fails_is_an_error_naming_the_resource_and_the_session_goes_on(
    store_dir: Path, mode: str
) -> None:
    rt = tl.Runtime(notes_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode=mode) as client:
            with pytest.raises(MCPError) as failed:
                await client.read_resource("notes://broken/7")
            said = str(failed.value)
            assert "resource notes://broken/7: read failed: ConnectionError:" in said
            assert "{'n': '7'}" in said
            assert "hunter2" not in said  # scrubbed, as URLs are in any error shown
            assert "KEY-1" not in said
            with pytest.raises(MCPError, match="read returned int; it must return str"):
                await client.read_resource("notes://number")
            for missing in ("notes://tomorrow", "notes://monday/tea.txt", "other://today"):
                with pytest.raises(MCPError, match="Resource not found") as unknown:
                    await client.read_resource(missing)
                assert unknown.value.code == -32002, missing
            (still,) = (await client.read_resource("notes://today")).contents
            assert isinstance(still, types.TextResourceContents)
            assert still.text == "Tea at four."
    finally:
        await service.close()
        await rt.aclose()


async def test_reads_that_hang_time_out_and_hold_none_of_the_processs_other_work(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_defined_resources, "READ_TIMEOUT_S", 0.5)
    released = threading.Event()
    registry = tl.Registry()
    tl.define_resource("slow://{n}", read=lambda params: released.wait(30) and "late",
                       registry=registry)  # fmt: skip

    async def loud(params: dict[str, str]) -> str:
        raise ValueError("x" * 100_000)

    tl.define_resource("loud://x", read=loud, registry=registry)
    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode="legacy") as client:
            hung = [client.read_resource(f"slow://{n}") for n in range(8)]
            answers = await asyncio.gather(*hung, return_exceptions=True)
            assert all(isinstance(a, MCPError) for a in answers), answers
            assert "read did not answer within 0.5 s" in str(answers[0])
            # The process's own worker threads are free: a lookup, a sync call elsewhere.
            await asyncio.wait_for(asyncio.to_thread(lambda: "free"), 5)
            with pytest.raises(MCPError) as refused:
                await client.read_resource("loud://x")
            assert len(str(refused.value)) < 2_100
            assert "characters, cut)" in str(refused.value)
    finally:
        released.set()
        await service.close()
        await rt.aclose()


@pytest.mark.parametrize("mode", MODES)
async def test_a_resource_too_large_for_one_event_is_refused_as_a_large_file_is(
    store_dir: Path, mode: str
) -> None:
    registry = tl.Registry()
    tl.define_resource("data://big", read=lambda params: b"\0" * (2 << 20), registry=registry)
    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode=mode) as client:
            if mode == "legacy":
                with pytest.raises(MCPError, match="Resource too large to send") as refused:
                    await client.read_resource("data://big")
                assert "data://big is 2,097,152 bytes" in str(refused.value)
                assert "reads up to 1,048,576 bytes" in str(refused.value)
            else:
                (whole,) = (await client.read_resource("data://big")).contents
                assert isinstance(whole, types.BlobResourceContents)
                assert len(base64.b64decode(whole.blob)) == 2 << 20
            assert [r.uri for r in (await client.list_resources()).resources] == ["data://big"]
    finally:
        await service.close()
        await rt.aclose()


def attached_registry() -> tl.Registry:
    registry = tl.Registry()
    tl.define_prompt(
        "review", prompt="Review {{env:FOCUS}} in the chart and the notes above.",
        variables=[tl.Variable("FOCUS", required=True),
                   tl.Variable("TOKEN", type="secret")],
        env={"TOKEN": SECRET},
        messages=[
            tl.Attachment(data=red_pixel_png(), mime_type="image/png"),
            tl.Attachment(data=silent_wav(), mime_type="audio/wav"),
            tl.Attachment(uri="notes://{{env:FOCUS}}", text="Notes on {{env:FOCUS}}"
                          " ({{env:TOKEN}})."),
            tl.Attachment(uri="assets://raw.bin", data=b"\x00\x01"),
        ],
        registry=registry,
    )  # fmt: skip
    image = tl.Attachment(data=red_pixel_png(), mime_type="image/png")
    tl.define_prompt("picture", prompt="", messages=[image], registry=registry)
    return registry


@pytest.mark.parametrize("mode", MODES)
async def test_a_prompt_carries_its_image_audio_and_embedded_resources_before_its_text(
    store_dir: Path, mode: str
) -> None:
    rt = tl.Runtime(attached_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode=mode) as client:
            listed = {p.name: p for p in (await client.list_prompts()).prompts}
            assert [(a.name, a.required) for a in listed["review"].arguments] == [("FOCUS", True)]
            got = await client.get_prompt("review", {"FOCUS": "tea", "TOKEN": "guess"})
            with pytest.raises(MCPError, match="missing required arguments: FOCUS"):
                await client.get_prompt("review", {})
            with pytest.raises(MCPError, match="not a URI once the prompt's arguments fill it"):
                await client.get_prompt("review", {"FOCUS": "tea <img src=x>"})
            (only,) = (await client.get_prompt("picture", {})).messages
        assert {m.role for m in got.messages} == {"user"}
        image, audio, note, raw, text = (m.content for m in got.messages)
        assert isinstance(image, types.ImageContent)
        assert (image.mime_type, base64.b64decode(image.data)) == ("image/png", red_pixel_png())
        assert isinstance(audio, types.AudioContent)
        assert (audio.mime_type, base64.b64decode(audio.data)) == ("audio/wav", silent_wav())
        assert isinstance(note, types.EmbeddedResource)
        assert isinstance(note.resource, types.TextResourceContents)
        assert (note.resource.uri, note.resource.mime_type, note.resource.text) == (
            "notes://tea", "text/plain", "Notes on tea ([secret:TOKEN]).")  # fmt: skip
        assert isinstance(raw, types.EmbeddedResource)
        assert isinstance(raw.resource, types.BlobResourceContents)
        assert (raw.resource.mime_type, base64.b64decode(raw.resource.blob)) == (
            "application/octet-stream", b"\x00\x01")  # fmt: skip
        assert isinstance(text, types.TextContent)
        assert text.text == "Review tea in the chart and the notes above."
        assert SECRET not in got.model_dump_json()
        assert isinstance(only.content, types.ImageContent)  # no text: no empty text message
    finally:
        await service.close()
        await rt.aclose()


async def test_a_resource_of_the_registrys_own_may_be_watched_fixed_or_templated(
    store_dir: Path,
) -> None:
    rt = tl.Runtime(notes_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode="legacy") as client:
            for uri in ("notes://today", "notes://monday/tea.md"):
                with legacy_methods():
                    await client.subscribe_resource(uri)
            assert service.defined_resources.watchers.count() == 2
            with legacy_methods(), pytest.raises(MCPError, match="Resource not found"):
                await client.subscribe_resource("notes://tomorrow")  # no definition's
            ref = types.ResourceTemplateReference(type="ref/resource",
                                                  uri="notes://{day}/{topic}.md")  # fmt: skip
            offered = await client.complete(ref, {"name": "topic", "value": "t"})
            assert offered.completion.values == []
    finally:
        await service.close()
        await rt.aclose()


async def test_a_resource_defined_while_serving_is_announced_and_listed(store_dir: Path) -> None:
    registry = notes_registry()
    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service) as client:
            async with client.listen(resources_list_changed=True) as subscription:
                tl.define_resource("notes://later", read=lambda params: "Later.",
                                   registry=registry)  # fmt: skip
                event = await asyncio.wait_for(anext(aiter(subscription)), 10)
                assert type(event).__name__ == "ResourcesListChanged"
            listed = (await client.list_resources(cache_mode="refresh")).resources
            assert "notes://later" in [r.uri for r in listed]
    finally:
        await service.close()
        await rt.aclose()


async def test_no_secret_of_a_served_thread_is_in_the_resource_listing(store_dir: Path) -> None:
    registry = notes_registry()

    @tl.tool(registry=registry, variables=[tl.Variable("API_KEY", type="secret")])
    async def stash(state: tl.ThreadState) -> str:
        """Writes a file holding the key, and one named by it."""
        key = await state.env("API_KEY")
        assert key is not None
        await state.write_file("/config.ini", f"key = {key}\n")
        await state.write_file(f"/keys/{key}.txt", "the name is the secret")
        return "stashed"

    tl.define_prompt(
        "keeper", prompt="Keep the key.", tools=["stash"], expose_as_tool=True,
        model=ScriptedModel([call("stash", {}), text("kept")]),
        env={"API_KEY": SECRET}, registry=registry,
    )  # fmt: skip
    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service) as client:
            assert (await client.call_tool("keeper", {"message": "go"})).content[0].text == "kept"
            (thread,) = rt.threads()
            listing = (await client.list_resources()).model_dump_json()
            ref = types.ResourceTemplateReference(
                type="ref/resource", uri="threadlab://threads/{thread_id}/files/{path}"
            )
            paths = await client.complete(ref, {"name": "path", "value": ""},
                                          context_arguments={"thread_id": thread.id})  # fmt: skip
        assert "notes://today" in listing
        assert f"threadlab://threads/{thread.id}/files/config.ini" in listing
        assert sorted(paths.completion.values) == ["config.ini", "keys/[secret:API_KEY].txt"]
        assert SECRET not in listing
    finally:
        await service.close()
        await rt.aclose()


@pytest.mark.parametrize("mode", MODES)
async def test_a_prompt_too_large_for_one_event_is_refused_by_name(
    store_dir: Path, mode: str
) -> None:
    registry = tl.Registry()
    poster = tl.Attachment(data=b"\0" * (1 << 20), mime_type="image/png")
    tl.define_prompt("poster", prompt="Look.", messages=[poster], registry=registry)
    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode=mode) as client:
            if mode == "legacy":
                with pytest.raises(MCPError, match="Prompt too large to send: poster is 1,3"):
                    await client.get_prompt("poster", {})
            else:
                image, said = (await client.get_prompt("poster", {})).messages
                assert isinstance(said.content, types.TextContent)
                assert isinstance(image.content, types.ImageContent)
                assert len(base64.b64decode(image.content.data)) == 1 << 20
            assert [p.name for p in (await client.list_prompts()).prompts] == ["poster"]
    finally:
        await service.close()
        await rt.aclose()


async def test_a_read_error_never_tells_a_declared_secret(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read that fails with a secret in its words (a key in a connection string): the
    client is told the error with the secret's name in place of its value."""
    secret = "sk-resource-9f3e1d2c7b"
    monkeypatch.setenv("NOTES_KEY", secret)
    registry = tl.Registry()

    def fetch(params: dict[str, str]) -> str:
        raise PermissionError(f"notes server refused key {os.environ['NOTES_KEY']}")

    tl.define_resource("notes://remote", read=fetch, registry=registry)
    tl.define_tool("sync", description="Sync notes.", execute=lambda s, a: "ok",
                   variables=[tl.Variable("NOTES_KEY", type="secret")],
                   registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode="legacy") as client:
            with pytest.raises(MCPError) as failed:
                await client.read_resource("notes://remote")
            said = str(failed.value)
            assert secret not in said
            assert "[secret:NOTES_KEY]" in said
    finally:
        await service.close()
        await rt.aclose()


async def test_a_defined_resource_is_watched_and_told_when_the_process_says_it_changed(
    store_dir: Path,
) -> None:
    """What `read` returns changes unseen: a client watching the resource is told when the
    process says so (`service.resource_updated`), until it stops watching; a URI no
    definition answers for cannot be announced."""
    status = {"text": "green"}
    registry = tl.Registry()
    tl.define_resource("status://build", read=lambda params: status["text"], registry=registry)
    rt = tl.Runtime(registry, store_dir)
    service = await tl.mcp.serve(runtime=rt)
    updated: list[str] = []

    async def notified(message: Any) -> None:
        if isinstance(message, types.ResourceUpdatedNotification):
            updated.append(str(message.params.uri))

    async def told(count: int) -> None:
        for _ in range(100):
            if len(updated) >= count:
                return
            await asyncio.sleep(0.05)

    try:
        async with client_of(service, message_handler=notified, mode="legacy") as client:
            with legacy_methods():
                await client.subscribe_resource("status://build")
            status["text"] = "red"
            await service.resource_updated("status://build")
            await told(1)
            assert updated == ["status://build"]
            (now,) = (await client.read_resource("status://build")).contents
            assert isinstance(now, types.TextResourceContents)
            assert now.text == "red"
            with legacy_methods():
                await client.unsubscribe_resource("status://build")
            await service.resource_updated("status://build")
            await asyncio.sleep(0.3)
            assert updated == ["status://build"]  # no longer watched: not told
        assert service.defined_resources.watchers.count() == 0  # gone with its session
        with pytest.raises(ValueError, match="not a resource the registry defines"):
            await service.resource_updated("status://elsewhere")
    finally:
        await service.close()
        await rt.aclose()
