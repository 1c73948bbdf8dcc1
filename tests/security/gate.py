"""The definitions both sides of the approval-gate tests load: this process and the processes
that decide, or die while a decision is asked for. A `cleaner` prompt calls note, delete
(which needs a decision; its progress argument says what it does), note; `ran` lists what
ran, in this process."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import threadlab as tl
from threadlab.models import call, step, text

ROOT = Path(__file__).resolve().parents[2]


def define(registry: tl.Registry, ran: list[str]) -> None:
    async def note(state: tl.ThreadState, args: dict[str, Any]) -> str:
        ran.append(f"note {args['path']}")
        return f"noted {args['path']}"

    async def delete(state: tl.ThreadState, args: dict[str, Any]) -> str:
        ran.append(f"delete {args['path']}")
        return f"deleted {args['path']}"

    path = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    deleting = {
        "type": "object",
        "properties": {"description": {"type": "string"}, "path": {"type": "string"}},
        "required": ["path"],
    }
    tl.define_tool("note", description="Note.", execute=note, args=path, registry=registry)
    tl.define_tool(
        "delete", description="Delete.", execute=delete, args=deleting, approval="always",
        progress_argument="description", registry=registry,
    )  # fmt: skip
    tl.define_prompt(
        "cleaner",
        prompt="Clean up.",
        tools=["note", "delete"],
        model=tl.models.ScriptedModel(
            [
                step(
                    call("note", {"path": "/a"}, id="call_1"),
                    call("delete", {"description": "deleting old.log", "path": "/old.log"},
                         id="call_2"),
                    call("note", {"path": "/c"}, id="call_3"),
                ),
                text("done"),
            ]
        ),
        registry=registry,
    )  # fmt: skip


def decide(store: str, thread_id: str, path: str, go: str) -> None:
    """One process approving the waiting delete with its own path, once `go` exists; prints
    "won" or "refused: <error>"."""
    registry = tl.Registry()
    define(registry, [])
    rt = tl.Runtime(registry, store, secret_key="k")
    thread = rt.thread(thread_id)
    Path(f"{go}.{os.getpid()}").touch()  # ready
    while not os.path.exists(go):
        pass  # spin: every decider starts its claim at the same moment
    try:
        asyncio.run(thread.approve("call_2", arguments={"path": path}))
        print("won", flush=True)
    except tl.ThreadlabError as exc:
        print(f"refused: {exc}", flush=True)
    rt.close()


def die_while_asked(store: str, thread_id_file: str, asked: str) -> None:
    """Run the cleaner with an approver that never answers; write `asked` when it is asked,
    then wait to be killed."""
    registry = tl.Registry()
    define(registry, [])

    async def person(request: tl.ApprovalRequest) -> bool:
        Path(asked).write_text(request.progress or "")
        await asyncio.Event().wait()
        return True

    person.timeout_s = None  # type: ignore[attr-defined]

    async def main() -> None:
        rt = tl.Runtime(registry, store, secret_key="k", approver=person)
        thread = await rt.create_thread("cleaner")
        Path(thread_id_file).write_text(thread.id)
        await thread.send("clean up")

    asyncio.run(main())


if __name__ == "__main__":
    if sys.argv[1] == "decide":
        decide(*sys.argv[2:])
    else:
        die_while_asked(*sys.argv[2:])
