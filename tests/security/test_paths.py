"""Hostile paths: every spelling that could leave a thread, hide a name or split one name into
two is refused with tl.PathError, wherever a path comes in (files, attachments to send, a
tool result's attachments)."""

from __future__ import annotations

import unicodedata
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, text

from ..helpers import scripted_prompt, tool_messages

HOSTILE = [
    "../../etc/passwd",
    "rel/x",
    "/a/\x00b",
    "C:\\win",
    "/a/\ud800b",  # a lone surrogate
    "/a/\u202ebidi",  # right-to-left override
    "/a/zero\u200bwidth",
    "/a/\ufeffbom",
    "/a/\x85next-line",  # a C1 control
    "~/x",
    "file:///etc/passwd",
    "/" + "a" * 256,
    "/" + "/".join(["d" * 200] * 25),  # over 4096 bytes in all
]


@pytest.mark.parametrize("path", HOSTILE)
async def test_a_hostile_path_is_refused_when_writing(rt: tl.Runtime, path: str) -> None:
    tl_registry = rt.registry
    tl.define_prompt("p", prompt="x", registry=tl_registry)
    thread = await rt.create_thread("p")
    with pytest.raises(tl.PathError):
        await thread.files.write(path, "x")
    assert await thread.files.list() == []


async def test_nfc_and_nfd_spellings_are_one_file(rt: tl.Runtime, registry: tl.Registry) -> None:
    tl.define_prompt("p", prompt="x", registry=registry)
    thread = await rt.create_thread("p")
    composed = unicodedata.normalize("NFC", "/café.txt")
    decomposed = unicodedata.normalize("NFD", "/café.txt")
    assert composed != decomposed
    await thread.files.write(decomposed, "one")
    await thread.files.write(composed, "two")
    assert [f.path for f in await thread.files.list()] == [composed]
    assert await thread.files.read(decomposed) == b"two"


async def test_a_tool_results_attachments_are_checked(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    async def hand(state: tl.ThreadState, args: Any) -> tl.ToolResult:
        await state.write_file("/ok.txt", "fine")
        return tl.ToolResult(result="here", attachments=tuple(args["paths"]))

    tl.define_tool(
        "hand",
        description="Hand files.",
        execute=hand,
        args={"type": "object", "properties": {"paths": {"type": "array"}}},
        registry=registry,
    )
    steps = [
        call("hand", {"paths": [p]}) for p in ("../../etc/passwd", "rel/x", "/a\x00", "/missing")
    ]
    scripted_prompt(
        registry, [*steps, call("hand", {"paths": ["/ok.txt"]}), text("done")], tools=["hand"]
    )
    thread = await rt.create_thread("p")
    await thread.send("go")
    results = tool_messages(thread)
    assert [m.tool_status for m in results] == ["error"] * 4 + ["success"]
    assert all("unusable attachment" in (m.content or "") for m in results[:4])
    assert results[-1].attachments == ("/ok.txt",)


async def test_one_path_given_as_a_string_is_one_attachment(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    scripted_prompt(registry, [text("ok")])
    thread = await rt.create_thread("p")
    await thread.files.write("/note.md", "# note")
    await thread.send("see attached", attachments="/note.md")
    assert thread.messages[0].attachments == ("/note.md",)
