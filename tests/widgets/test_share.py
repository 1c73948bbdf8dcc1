"""`tl.share(thread, path)`: one HTML file holding the player over the thread and its
subagents, the narration and the files, with no way out to the network; what it holds is what
a view holds — a secret only by its name, in the steps, the variables and the files alike."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, text

from ..execution.test_subagents import create_then, helper

SECRET = "sk-shared-5b1c9e7d2a"


def held(page: str, name: str) -> Any:
    found = re.search(f'<script type="application/json" id="{name}">(.*?)</script>', page, re.S)
    assert found is not None, name
    return json.loads(found.group(1))


async def test_the_page_holds_the_player_the_files_and_no_secret(
    rt: tl.Runtime, registry: tl.Registry, tmp_path: Path
) -> None:
    async def write(state: tl.ThreadState, args: dict[str, Any]) -> str:
        key = await state.env("API_KEY")
        await state.write_file("/index.html", f"<h1>Tea</h1><!-- key {key} -->")
        await state.write_file("/big.bin", b"x" * 5000)
        return f"wrote with {key}"

    secret = [tl.Variable("API_KEY", type="secret")]
    tl.define_tool("write", description="Write.", execute=write, variables=secret,
                   registry=registry)  # fmt: skip
    tl.define_prompt("site", prompt="Pages.", tools=["write"], registry=registry,
                     model=tl.models.ScriptedModel([call("write", {}), text("done")]))  # fmt: skip
    thread = await rt.create_thread("site", secrets={"API_KEY": SECRET})
    await thread.send("a page </script><script>alert(1)</script>")
    written = tl.share(thread, tmp_path / "thread.html", max_file_bytes=4096)
    page = written.read_text()
    assert SECRET not in page
    assert "default-src 'none'" in page  # nothing leaves the page
    state = held(page, "threadlab-state")
    assert state["view"] == "player"
    assert len(state["points"]) >= 6
    assert any("explain" in p for p in state["points"])  # the narration is there
    files = held(page, "threadlab-files")
    index = files[thread.id]["/index.html"]
    assert index["text"] == "<h1>Tea</h1><!-- key [secret:API_KEY] -->"
    assert "/big.bin" not in files[thread.id]
    assert "/big.bin: 5,000 bytes" in page  # said to be left out
    assert "<script>alert(1)</script>" not in page  # the user's text cannot end a script


async def test_a_subagents_thread_and_files_are_in_it(
    rt: tl.Runtime, registry: tl.Registry, tmp_path: Path
) -> None:
    helper(registry)
    lead = create_then(lambda ref: text("all done"))
    tl.define_prompt("lead", prompt="Lead.", model=lead, registry=registry)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]),
                    registry=registry)  # fmt: skip
    thread = await rt.create_thread("boss")
    await thread.send("go")
    (child,) = thread.children
    page = tl.share(thread, tmp_path / "tree.html").read_text()
    state = held(page, "threadlab-state")
    assert {t["id"] for t in state["trace"]["threads"]} >= {thread.id, child.id}
    files = held(page, "threadlab-files")
    assert files[child.id]["/attachments/out.txt"]["text"].startswith("work on:")


async def test_a_files_preview_in_a_view_names_a_secret_it_holds(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: Any
) -> None:
    """A tool wrote a secret's value into a file: the preview a view sends shows its name."""
    from threadlab.widgets import ThreadView, replay

    from .fake_comm import customs_of, install

    sent = install(monkeypatch)

    async def write(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.write_file("/.env", f"API_KEY={await state.env('API_KEY')}")
        return "saved"

    secret = [tl.Variable("API_KEY", type="secret")]
    tl.define_tool("write", description="Write.", execute=write, variables=secret,
                   registry=registry)  # fmt: skip
    tl.define_prompt("site", prompt="x", tools=["write"], registry=registry,
                     model=tl.models.ScriptedModel([call("write", {}), text("done")]))  # fmt: skip
    thread = await rt.create_thread("site", secrets={"API_KEY": SECRET})
    await thread.send("go")
    view = ThreadView(rt, replay(thread))
    view._on_message(view, {"op": "preview", "thread": thread.id, "path": "/.env"}, [])
    (reply,) = [c for c in customs_of(sent) if c["op"] == "preview"]
    assert reply["text"] == "API_KEY=[secret:API_KEY]"
    assert SECRET not in json.dumps(customs_of(sent))


async def test_a_file_is_shown_as_it_was_at_each_point(
    rt: tl.Runtime, registry: tl.Registry, tmp_path: Path, monkeypatch: Any
) -> None:
    """A file written twice: the player's points name each content, a view previews the one
    a point names, a shared page holds both, and a digest is no key to another thread's
    files (nor to content this path never held)."""
    from threadlab.widgets import ThreadView, replay

    from .fake_comm import customs_of, install

    sent = install(monkeypatch)

    async def draft(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.write_file("/notes.md", args["text"])
        return "saved"

    tl.define_tool("draft", description="Draft.", execute=draft, registry=registry,
                   args={"type": "object", "properties": {"text": {"type": "string"}}})  # fmt: skip
    tl.define_prompt("writer", prompt="x", tools=["draft"], registry=registry,
                     model=tl.models.ScriptedModel([call("draft", {"text": "first draft"}),
                                                    call("draft", {"text": "second draft"}),
                                                    text("done")]))  # fmt: skip
    thread = await rt.create_thread("writer")
    await thread.send("go")
    other = await rt.create_thread("writer")
    other.files.write_sync("/elsewhere.md", "another thread's notes")
    written = [e for e in thread.events if isinstance(e, tl.FileWrittenEvent)]
    first, second = (e.digest for e in written)
    assert first is not None
    assert second is not None

    from threadlab.widgets._history import history_and_events

    points = history_and_events(thread).points
    assert [p.get("digest") for p in points if p["kind"] == "file_written"] == [first, second]

    view = ThreadView(rt, replay(thread))
    asked = {"op": "preview", "thread": thread.id, "path": "/notes.md"}
    view._on_message(view, {**asked, "digest": first}, [])
    view._on_message(view, asked, [])
    view._on_message(view, {**asked, "digest": "0" * 64}, [])
    (then, now, unknown) = [c for c in customs_of(sent) if c["op"] == "preview"]
    assert (then["text"], then["digest"]) == ("first draft", first)
    assert now["text"] == "second draft"
    assert "never held that content" in unknown["error"]
    # Another thread's file: its digest does not open this thread's path, nor the other's.
    record = other.files.stat_sync("/elsewhere.md")
    assert record is not None
    for path in ("/elsewhere.md", "/notes.md"):
        with pytest.raises(tl.PathError):
            thread.files.read_version_sync(path, record.digest)

    page = tl.share(thread, tmp_path / "versions.html").read_text()
    files = held(page, "threadlab-files")[thread.id]
    assert files[f"/notes.md@{first}"]["text"] == "first draft"
    assert files[f"/notes.md@{second}"]["text"] == "second draft"
    assert files["/notes.md"]["text"] == "second draft"
