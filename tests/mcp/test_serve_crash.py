"""The serving process killed (`kill -9`) while the client's person has a call's form in
front of them: nothing ran, the thread stays waiting in the store with its request, and the
same call made to the server started again picks that thread up — one thread for the call,
and what is decided runs once."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import types

import threadlab as tl

from .gated_server import gated_registry
from .test_serve import client_of

pytestmark = pytest.mark.processes  # the server runs, and dies, in its own process

ROOT = Path(__file__).resolve().parents[2]


class Served:
    """The gated server in its own process, and how a client reaches it."""

    def __init__(self, store: Path, deleted: Path, url_file: Path) -> None:
        url_file.unlink(missing_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.mcp.gated_server", str(store), str(url_file),
             str(deleted)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 60
        while not url_file.exists() or not url_file.read_text():
            assert self.process.poll() is None, "the served registry's process exited"
            assert time.monotonic() < deadline, "the served registry did not start"
            time.sleep(0.1)
        self.url = url_file.read_text()

    headers: dict[str, str] = {}  # noqa: RUF012 - served without a token

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
        self.process.wait(30)


async def test_a_kill_9_while_the_form_is_out_leaves_one_waiting_thread_picked_up_again(
    tmp_path: Path,
) -> None:
    store, deleted, url_file = tmp_path / "store", tmp_path / "deleted.txt", tmp_path / "url"
    first = Served(store, deleted, url_file)
    forms: list[str] = []

    async def killed_while_asking(context: Any, params: Any) -> types.ElicitResult:
        forms.append(params.message)
        os.kill(first.process.pid, signal.SIGKILL)  # the worst moment: the form is out
        first.process.wait(30)
        return types.ElicitResult(action="accept", content={"decision": "approve"})

    try:
        with pytest.raises(Exception):  # noqa: B017, PT011 - the SDK says so its own way
            async with client_of(first, elicitation_callback=killed_while_asking,  # type: ignore[arg-type]
                                 mode="legacy") as client:  # fmt: skip
                await asyncio.wait_for(client.call_tool("delete", {"path": "/a"}), 60)
    finally:
        first.stop()
    assert len(forms) == 1
    assert not deleted.exists()  # nothing ran: the decision never arrived

    again = Served(store, deleted, url_file)
    rt = tl.Runtime(gated_registry(deleted), store)
    try:
        (thread,) = rt.threads()
        assert thread.status == "waiting"
        (request,) = thread.pending
        async with client_of(again) as client:  # type: ignore[arg-type]
            waits = await client.call_tool("delete", {"path": "/a"})
            assert waits.is_error
            assert f"in thread {thread.id}" in waits.content[0].text
            assert len(rt.threads()) == 1  # the same call found its thread
            await thread.approve(request.tool_call_id)  # where threadlab runs
            ran = await client.call_tool("delete", {"path": "/a"})
        assert (ran.is_error, ran.content[0].text) == (False, "deleted /a")
        assert deleted.read_text() == "/a\n"
    finally:
        again.stop()
        await rt.aclose()
