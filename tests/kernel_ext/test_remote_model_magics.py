"""A notebook on a real provider's protocol: `%%prompt --model`, `%threadlab models` and a
`%%thread` against the scripted server, the key from the environment and never shown."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from IPython.core.interactiveshell import InteractiveShell

from ..providers._protocols import chat_chunks, chat_frames
from ..providers._server import Reply, ScriptedServer, serve
from ..providers._setup import KEY
from .test_magics import magics, run, shell

__all__ = ["shell"]


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    yield from serve()


def test_a_prompt_on_a_remote_model_runs_in_a_cell_and_the_key_is_never_shown(
    shell: InteractiveShell, server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    run(
        shell,
        "import threadlab as tl\n"
        f"tl.define_model('local', provider='openai', model='llama3.2', base_url='{server.url}/v1',"
        " options={'max_retries': 0})",
    )
    listing = repr(run(shell, "%threadlab models"))
    assert f"local: openai llama3.2 at {server.url}/v1; key OPENAI_API_KEY NOT SET" in listing
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    listing = repr(run(shell, "%threadlab models"))
    assert "key OPENAI_API_KEY set (environment)" in listing
    assert KEY not in listing

    run(shell, "%%prompt helper --model local\nYou help.")
    server.reply(Reply(frames=chat_frames(chat_chunks("Hello from llama."))))
    run(shell, "%%thread helper\nSay hello.")
    thread_id = magics(shell).memory.last_thread["helper"]
    thread = magics(shell).memory.runtime.thread(thread_id)
    assert thread.messages[-1].content == "Hello from llama."
    assert server.requests[0].body["model"] == "llama3.2"
    assert server.requests[0].body["messages"][0] == {"role": "system", "content": "You help."}
    assert KEY not in repr(run(shell, f"%threadlab open {thread_id}"))
