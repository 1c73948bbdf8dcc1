"""The API key is sent to the provider and nowhere else: a run where the server echoes the key
back in streamed text, in a tool call's arguments and in an error, then a search of every
artifact — store files, persisted and live events, messages, the run's error, the notebook
export, the static HTML, the view state, the log — for any spelling of it."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import nbformat
import pytest

import threadlab as tl
from threadlab.kernel_ext._notebooks import thread_notebook
from threadlab.widgets import replay, static_html

from ..security.test_secrets import spellings
from ._protocols import chat_chunks, chat_frames
from ._server import Reply, ScriptedServer
from ._setup import KEY, arguments, remote_prompt


async def test_the_key_reaches_the_provider_and_no_artifact(
    registry: tl.Registry,
    store_dir: Path,
    server: ScriptedServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    remote_prompt(registry, server)
    echo = ("call_1", "write_file", arguments({"path": "/k.txt", "content": f"key={KEY}"}))
    server.reply(
        Reply(frames=chat_frames(chat_chunks(f"Your key is {KEY}.", [echo], size=5))),
        Reply(status=401, body={"error": {"message": f"Incorrect API key provided: {KEY}"}}),
    )
    rt = tl.Runtime(registry, store_dir, secret_key="scan-key")
    thread = await rt.create_thread("p", secrets={"OPENAI_API_KEY": KEY})
    live = [e.model_dump_json() async for e in thread.stream("go")]

    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"  # it did go out
    run_error = json.loads(live[-1])["error"]
    assert "rejected the API key in OPENAI_API_KEY" in run_error
    state = replay(thread)
    artifacts = {
        "live events": "\n".join(live),
        "stored events": "\n".join(e.model_dump_json() for e in thread.events),
        "messages": "\n".join(m.model_dump_json() for m in thread.all_messages()),
        "file": thread.files.read_sync("/k.txt").decode(),
        "export": nbformat.writes(thread_notebook(thread)),  # type: ignore[no-untyped-call]
        "static html": static_html(thread),
        "view state": json.dumps(state.snapshot(), ensure_ascii=False),
        "log": caplog.text,
        # What the provider was sent back as history (the second request).
        "history sent": json.dumps(server.requests[1].body),
    }
    rt.close()
    for path in store_dir.rglob("*"):
        if path.is_file():
            artifacts[f"store file {path.name}"] = path.read_bytes().decode("utf-8", "replace")
    assert "[secret:OPENAI_API_KEY]" in artifacts["messages"]  # the key really went around
    assert "[secret:OPENAI_API_KEY]" in run_error
    leaks = [
        (name, form)
        for name, content in artifacts.items()
        for form in spellings(KEY)
        if form in content
    ]
    assert leaks == []
