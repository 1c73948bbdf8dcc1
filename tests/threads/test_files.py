from __future__ import annotations

from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, text

from ..helpers import scripted_prompt, tool_messages


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("relative/file.txt", "is relative"),
        ("/a/../../etc/passwd", "contains '..'"),
        ("/a/\x00b", "NUL or control character"),
        ("/a\\b", "backslash"),
        ("~/secrets", "starts with '~'"),
        ("file:///etc/passwd", "is a URL"),
        ("/" + "x" * 256, "longer than 255 bytes"),
        ("", "cannot be empty"),
        ("/", "names the root"),
    ],
)
async def test_invalid_paths_are_rejected_with_a_clear_error(
    rt: tl.Runtime, registry: tl.Registry, path: str, problem: str
) -> None:
    tl.define_prompt("p", prompt="x", registry=registry)
    thread = await rt.create_thread("p")
    with pytest.raises(tl.PathError, match=problem):
        await thread.files.write(path, "data")
    assert await thread.files.list() == []


async def test_write_read_list_delete_and_normalisation(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_prompt("p", prompt="x", registry=registry)
    thread = await rt.create_thread("p")
    await thread.files.write("//attachments/./notes.txt", "hello")
    await thread.files.write("/attachments/img.bin", b"\x89PNG\x00")
    await thread.files.write("/other.txt", "x")
    assert await thread.files.read("/attachments/notes.txt") == b"hello"
    assert [f.path for f in await thread.files.list("/attachments")] == [
        "/attachments/img.bin",
        "/attachments/notes.txt",
    ]
    assert [f.size for f in await thread.files.list()] == [5, 5, 1]
    assert await thread.files.delete("/other.txt")
    assert not await thread.files.delete("/other.txt")
    with pytest.raises(tl.PathError, match=f"/other.txt not found in thread {thread.id}"):
        await thread.files.read("/other.txt")


async def test_files_are_per_thread(rt: tl.Runtime, registry: tl.Registry) -> None:
    tl.define_prompt("p", prompt="x", registry=registry)
    one = await rt.create_thread("p")
    two = await rt.create_thread("p")
    await one.files.write("/a.txt", "one")
    with pytest.raises(tl.PathError, match=f"not found in thread {two.id}"):
        await two.files.read("/a.txt")


async def test_equal_content_is_stored_once(rt: tl.Runtime, registry: tl.Registry) -> None:
    tl.define_prompt("p", prompt="x", registry=registry)
    payload = b"z" * 2_000_000
    for i in range(5):
        thread = await rt.create_thread("p")
        await thread.files.write(f"/copy{i}.bin", payload)
    db = rt.store._db  # type: ignore[attr-defined]
    (blobs,) = db.execute("SELECT COUNT(*) FROM blobs").fetchone()
    (files,) = db.execute("SELECT COUNT(*) FROM files").fetchone()
    assert (blobs, files) == (1, 5)


async def test_tools_use_the_thread_filesystem_and_writes_are_events(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    async def save(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.write_file(args["path"], args["content"])
        listed = await state.list_files()
        return ",".join(f.path for f in listed)

    def load(state: tl.ThreadState, args: dict[str, Any]) -> str:
        return state.sync.read_file(args["path"]).decode()

    schema = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
    }
    tl.define_tool("save", description="x", args=schema, execute=save, registry=registry)
    tl.define_tool("load", description="x", args=schema, execute=load, registry=registry)
    scripted_prompt(
        registry,
        [
            call("save", {"path": "/attachments/a.md", "content": "# A"}),
            call("load", {"path": "/attachments/a.md"}),
            call("save", {"path": "../escape", "content": "x"}),
            text("ok"),
        ],
        tools=["save", "load"],
    )
    thread = await rt.create_thread("p")
    await thread.send("go")
    saved, loaded, escaped = tool_messages(thread)
    assert saved.content == "/attachments/a.md"
    assert loaded.content == "# A"
    assert escaped.tool_status == "error"
    assert (escaped.content or "").startswith("PathError: thread path '../escape' is relative")
    written = [e for e in thread.events if isinstance(e, tl.FileWrittenEvent)]
    assert [(e.path, e.size) for e in written] == [("/attachments/a.md", 3)]


async def test_send_with_attachments_checks_they_exist(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_prompt("p", prompt="x", registry=registry)
    thread = await rt.create_thread("p")
    with pytest.raises(tl.PathError, match="not found"):
        await thread.send("look", attachments=["/attachments/none.png"])
    await thread.files.write("/attachments/img.png", b"png")
    await thread.send("look", attachments=["/attachments/img.png"])
    assert thread.messages[0].attachments == ("/attachments/img.png",)
