"""The registry the official MCP conformance suite's server scenarios ask for, written as a
threadlab user writes tools, prompts and resources, served by `tl.mcp.serve`:
`python conformance_server.py STORE_DIR URL_FILE` serves it on 127.0.0.1 without a token (the
suite sends none) and writes its URL to URL_FILE.

Files a tool attaches are served as image, audio or embedded-resource content; a tool's log
and progress events go out as MCP log and progress notifications; prompts that are not tools
are MCP prompts, their variables the prompt's arguments, their attachments messages of their
own; resources defined with `tl.define_resource` are served beside the threads' files; a tool
that asks its caller (`state.elicit`, `state.sample`) asks the client's person and model."""

from __future__ import annotations

import asyncio
import json
import struct
import sys
import zlib
from pathlib import Path

import threadlab as tl


def red_pixel_png() -> bytes:
    """A 1x1 red PNG."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\x00\xff\x00\x00")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def silent_wav() -> bytes:
    """A tenth of a second of silence, 8 kHz mono 8-bit."""
    frames = b"\x80" * 800
    return (
        b"RIFF" + struct.pack("<I", 36 + len(frames)) + b"WAVEfmt "
        + struct.pack("<IHHIIHH", 16, 1, 1, 8000, 8000, 1, 8)
        + b"data" + struct.pack("<I", len(frames)) + frames
    )  # fmt: skip


def conformance_registry() -> tl.Registry:
    registry = tl.Registry()

    @tl.tool(registry=registry)
    def test_simple_text(state: tl.ThreadState) -> str:
        """Returns simple text."""
        return "This is a simple text response for testing."

    @tl.tool(registry=registry)
    async def test_image_content(state: tl.ThreadState) -> tl.ToolResult:
        """Returns a red pixel as an image."""
        await state.write_file("/red.png", red_pixel_png())
        return tl.ToolResult(result="a red pixel", attachments=("/red.png",))

    @tl.tool(registry=registry)
    async def test_audio_content(state: tl.ThreadState) -> tl.ToolResult:
        """Returns a short silence as audio."""
        await state.write_file("/silence.wav", silent_wav())
        return tl.ToolResult(result="silence", attachments=("/silence.wav",))

    @tl.tool(registry=registry)
    async def test_embedded_resource(state: tl.ThreadState) -> tl.ToolResult:
        """Returns a text file as an embedded resource."""
        await state.write_file("/notes.txt", "This is an embedded resource content.")
        return tl.ToolResult(result="", attachments=("/notes.txt",))

    @tl.tool(registry=registry)
    async def test_multiple_content_types(state: tl.ThreadState) -> tl.ToolResult:
        """Returns text, an image and a JSON file."""
        await state.write_file("/red.png", red_pixel_png())
        await state.write_file("/data.json", '{"test":"data","value":123}')
        return tl.ToolResult(
            result="Multiple content types test:", attachments=("/red.png", "/data.json")
        )

    @tl.tool(registry=registry)
    async def test_tool_with_logging(state: tl.ThreadState) -> str:
        """Logs three messages while it runs."""
        for n, message in enumerate(
            ["Tool execution started", "Tool processing data", "Tool execution completed"]
        ):
            if n:
                await asyncio.sleep(0.05)
            state.emit("log", {"level": "info", "message": message})
        return "logged three messages"

    @tl.tool(registry=registry)
    def test_error_handling(state: tl.ThreadState) -> str:
        """Always fails."""
        raise RuntimeError("This tool intentionally returns an error for testing")

    @tl.tool(registry=registry)
    async def test_tool_with_progress(state: tl.ThreadState) -> str:
        """Reports progress 0, 50 and 100 of 100."""
        for n, done in enumerate((0, 50, 100)):
            if n:
                await asyncio.sleep(0.05)
            state.emit("progress", {"step": done, "of": 100})
        return "progress reported"

    @tl.tool(registry=registry)
    async def test_sampling(state: tl.ThreadState, prompt: str) -> str:
        """Asks the client's model."""
        reply = await state.sample(prompt, max_tokens=100)
        return f"LLM response: {reply.text}"

    @tl.tool(registry=registry)
    async def test_elicitation(state: tl.ThreadState, message: str) -> str:
        """Asks the client's user for a name and an email address."""
        answer = await state.elicit(message, {
            "type": "object",
            "properties": {
                "username": {"type": "string", "description": "User's response"},
                "email": {"type": "string", "description": "User's email address"},
            },
            "required": ["username", "email"],
        })  # fmt: skip
        return f"User response: {_said(answer)}"

    @tl.tool(registry=registry)
    async def test_elicitation_sep1034_defaults(state: tl.ThreadState) -> str:
        """Asks a form whose every field has a default."""
        answer = await state.elicit("Your details?", {
            "type": "object",
            "properties": {
                "name": {"type": "string", "default": "John Doe"},
                "age": {"type": "integer", "default": 30},
                "score": {"type": "number", "default": 95.5},
                "status": {"type": "string", "enum": ["active", "inactive", "pending"],
                           "default": "active"},
                "verified": {"type": "boolean", "default": True},
            },
        })  # fmt: skip
        return f"Elicitation completed: {_said(answer)}"

    @tl.tool(registry=registry)
    async def test_elicitation_sep1330_enums(state: tl.ThreadState) -> str:
        """Asks a form with each kind of choice."""
        options = ["option1", "option2", "option3"]
        titled = [
            {"const": f"value{n}", "title": title}
            for n, title in enumerate(["First Option", "Second Option", "Third Option"], 1)
        ]
        answer = await state.elicit("Choose.", {
            "type": "object",
            "properties": {
                "untitledSingle": {"type": "string", "enum": options},
                "titledSingle": {"type": "string", "oneOf": titled},
                "legacyEnum": {"type": "string", "enum": ["opt1", "opt2", "opt3"],
                               "enumNames": ["Option One", "Option Two", "Option Three"]},
                "untitledMulti": {"type": "array", "items": {"type": "string", "enum": options}},
                "titledMulti": {"type": "array", "items": {"anyOf": titled}},
            },
        })  # fmt: skip
        return f"Elicitation completed: {_said(answer)}"

    address = {
        "type": "object",
        "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
    }
    tl.define_tool(
        "json_schema_2020_12_tool",
        description="Tool with JSON Schema 2020-12 features",
        args={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "$defs": {"address": address},
            "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"}},
            "additionalProperties": False,
        },
        execute=lambda state, args: args,
        registry=registry,
    )

    tl.define_prompt("test_simple_prompt", prompt="This is a simple prompt for testing.",
                     registry=registry)  # fmt: skip
    tl.define_prompt(
        "test_prompt_with_arguments",
        prompt="Prompt with arguments: arg1='{{env:arg1}}', arg2='{{env:arg2}}'",
        variables=[
            tl.Variable("arg1", required=True, description="First test argument"),
            tl.Variable("arg2", required=True, description="Second test argument"),
        ],
        registry=registry,
    )
    tl.define_prompt(
        "test_prompt_with_image", prompt="Please analyze the image above.",
        messages=[tl.Attachment(data=red_pixel_png(), mime_type="image/png")], registry=registry,
    )  # fmt: skip
    tl.define_prompt(
        "test_prompt_with_embedded_resource",
        prompt="Please process the embedded resource above.",
        variables=[tl.Variable("resourceUri", required=True,
                               description="URI of the resource to embed")],
        messages=[tl.Attachment(uri="{{env:resourceUri}}",
                                text="Embedded resource content for testing.")],
        registry=registry,
    )  # fmt: skip

    tl.define_resource(
        "test://static-text", mime_type="text/plain", registry=registry,
        read=lambda params: "This is the content of the static text resource.",
    )  # fmt: skip
    tl.define_resource("test://static-binary", read=lambda params: red_pixel_png(),
                       mime_type="image/png", registry=registry)  # fmt: skip

    def template_data(params: dict[str, str]) -> str:
        """Data for an id."""
        id_ = params["id"]
        return json.dumps({"id": id_, "templateTest": True, "data": f"Data for ID: {id_}"})

    tl.define_resource("test://template/{id}/data", read=template_data,
                       mime_type="application/json", registry=registry)  # fmt: skip
    # Watched by the suite's subscribe scenarios; the process says when it changes
    # (`service.resource_updated`).
    tl.define_resource("test://watched-resource", read=lambda params: "watched",
                       mime_type="text/plain", registry=registry)  # fmt: skip
    return registry


def _said(answer: dict[str, object] | None) -> str:
    return "action=decline" if answer is None else f"action=accept, content={json.dumps(answer)}"


async def main(store: Path, url_file: Path) -> None:
    await serve_until_stopped(conformance_registry(), store, url_file)


async def serve_until_stopped(registry: tl.Registry, store: Path, url_file: Path) -> None:
    """Serve `registry` (no token) from a runtime on `store`, its URL written to `url_file`
    once it serves, until the process is stopped."""
    rt = tl.Runtime(registry, store)
    service = await tl.mcp.serve(runtime=rt, token=None)
    url_file.write_text(service.url)
    try:
        await asyncio.Event().wait()
    finally:
        await service.close()
        await rt.aclose()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2])))
