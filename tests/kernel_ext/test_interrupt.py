"""A kernel interrupt stops a running %%thread cell cleanly, in a real kernel."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

import threadlab as tl

pytestmark = pytest.mark.processes  # it starts a Jupyter kernel


def reply_to(client: Any, msg_id: str, timeout: float = 60) -> dict[str, Any]:
    """The shell reply to one request: replies to earlier requests that come first are skipped."""
    deadline = time.monotonic() + timeout
    while True:
        reply: dict[str, Any] = client.get_shell_msg(timeout=max(deadline - time.monotonic(), 1))
        if reply["parent_header"].get("msg_id") == msg_id:
            return reply


def execute(client: Any, code: str, timeout: float = 60) -> tuple[str, str]:
    msg_id = client.execute(code)
    reply = reply_to(client, msg_id, timeout)
    text = []
    deadline = time.monotonic() + timeout
    while True:
        message = client.get_iopub_msg(timeout=max(deadline - time.monotonic(), 1))
        if message["parent_header"].get("msg_id") != msg_id:
            continue
        kind = message["msg_type"]
        if kind == "stream":
            text.append(message["content"]["text"])
        elif kind == "error":
            text.append(f"{message['content']['ename']}: {message['content']['evalue']}")
        elif kind == "status" and message["content"]["execution_state"] == "idle":
            return reply["content"]["status"], "".join(text)


def test_interrupting_a_running_thread_cell_leaves_a_valid_history(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path), env=env)
    try:
        assert execute(client, "%load_ext threadlab\nimport asyncio, threadlab as tl")[0] == "ok"
        execute(
            client,
            '%%tool\nasync def hang(state) -> str:\n    """Hang."""\n'
            '    open("started", "w").close()\n    await asyncio.sleep(60)\n'
            '    return "never"',
        )
        execute(client, "%%prompt p --tools hang\nx")
        msg_id = client.execute("%%thread p\ngo")
        deadline = time.monotonic() + 60
        while not (tmp_path / "started").exists():
            assert time.monotonic() < deadline, "the tool never started"
            time.sleep(0.05)
        manager.interrupt_kernel()
        reply = reply_to(client, msg_id)
        assert reply["content"]["status"] == "ok"  # the cell ended cleanly, no traceback
        status, out = execute(
            client,
            "t = tl.Runtime().threads()[0]\n"
            "print([(m.role, m.content) for m in t.messages], t.status)",
        )
        assert status == "ok"
        assert (
            "[('user', 'go'), ('assistant', None), ('tool', 'interrupted: the run was stopped"
            " before this call finished')] idle"
        ) in out
        # Every part of the view that stays in the notebook says the same of the thread:
        # the header, the root's node in the tree (no "calling hang" left), the card.
        status, out = execute(
            client,
            "import gc\nfrom threadlab.widgets import ThreadView\n"
            "(v,) = [o for o in gc.get_objects() if isinstance(o, ThreadView)]\n"
            "print(v.trace['run']['status'],"
            " [(n['status'], n['progress']) for n in v.trace['threads']],"
            " [c['status'] for c in v.trace['cards'].values()])",
        )
        assert status == "ok", out
        assert out.strip() == "interrupted [('interrupted', None)] ['interrupted']"
        # What the notebook keeps for viewers without threadlab says so too (the run's
        # text and HTML, drawn from its steps, not the line shown while it streamed).
        status, out = execute(client, "print(*v.static_texts()[0].splitlines()[:2], sep='|')")
        assert status == "ok", out
        assert out.strip().endswith("— run interrupted|  [interrupted] hang"), out
        assert execute(client, "print('still alive')")[1] == "still alive\n"
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_an_interrupt_while_a_card_asks_leaves_the_call_waiting(tmp_path: Path) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config")}
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path), env=env)
    try:
        assert execute(client, "%load_ext threadlab\nimport threadlab as tl")[0] == "ok"
        execute(
            client,
            "%%tool --approval always\ndef delete(state, path: str) -> str:\n"
            '    """Delete."""\n    return f"deleted {path}"',
        )
        execute(client, "%%prompt p --tools delete\nx")
        msg_id = client.execute("%%thread p\ngo")
        # Be the front end: the view is drawn ("ready"), so its cards can ask.
        view = None
        deadline = time.monotonic() + 60
        while view is None:
            assert time.monotonic() < deadline, "no view was displayed"
            message = client.get_iopub_msg(timeout=30)
            if message["msg_type"] == "comm_open":
                state = message["content"]["data"].get("state", {})
                if state.get("view") == "inspector":
                    view = message["content"]["comm_id"]
        ready = {"method": "custom", "content": {"op": "ready"}}
        client.shell_channel.send(client.session.msg("comm_msg", {"comm_id": view, "data": ready}))
        store = tl.Runtime(tl.Registry(), store=tmp_path / ".threadlab")
        while not [t for t in store.threads() if t.pending]:
            assert time.monotonic() < deadline, "the call never asked"
            time.sleep(0.1)
        time.sleep(4)  # past the wait for a view: it is the card that asks now
        manager.interrupt_kernel()
        reply = reply_to(client, msg_id)
        assert reply["content"]["status"] == "ok"
        status, out = execute(
            client,
            "t = tl.Runtime().threads()[0]\n"
            "print(t.status, [r.name for r in t.pending], [m.role for m in t.messages])",
        )
        # Never started, so not "interrupted": it waits for its decision.
        assert "waiting ['delete'] ['user', 'assistant']" in out
        call_id = store.threads()[0].pending[0].tool_call_id
        status, out = execute(client, f"%threadlab approve {call_id}")
        assert status == "ok"
        assert (
            "idle ['deleted"
            in execute(
                client,
                "t = tl.Runtime().threads()[0]\n"
                "print(t.status, [m.content for m in t.messages if m.role == 'tool'])",
            )[1]
        )
        store.close()
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
