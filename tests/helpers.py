"""Small shared builders for tests."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import pytest

import threadlab as tl


def scripted_prompt(
    registry: tl.Registry,
    steps: list[Any],
    *,
    tools: Sequence[str] = (),
    name: str = "p",
    **kw: Any,
) -> tl.models.ScriptedModel:
    """Define prompt `name` on a ScriptedModel playing `steps`; return the model."""
    model = tl.models.ScriptedModel(steps, chunk_size=kw.pop("chunk_size", 8))
    tl.define_prompt(name, prompt="test", model=model, tools=list(tools), registry=registry, **kw)
    return model


def gated_delete(registry: tl.Registry, ran: list[str]) -> None:
    """Define `delete`, a tool that asks for a decision before every call; each path it
    deleted is appended to `ran`."""

    async def delete(state: tl.ThreadState, args: dict[str, Any]) -> str:
        ran.append(args["path"])
        return f"deleted {args['path']}"

    path = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    tl.define_tool("delete", description="Delete.", execute=delete, args=path,
                   approval="always", registry=registry)  # fmt: skip


def desks(
    registry: tl.Registry,
    front: tl.models.ScriptedModel,
    back: tl.models.ScriptedModel,
    back_tools: Sequence[str] = (),
) -> None:
    """Agent "support" (the front desk, on `front`) that can hand a thread over to agent
    "billing" (the billing desk, on `back`, with `back_tools`)."""
    tl.define_prompt("front_desk", prompt="Front.", model=front, tools=["billing"],
                     registry=registry)  # fmt: skip
    tl.define_prompt("billing_desk", prompt="Billing.", model=back, tools=list(back_tools),
                     registry=registry)  # fmt: skip
    tl.define_agent("billing", side_a="billing_desk", expose_as_tool=True, registry=registry)
    tl.define_agent("support", side_a="front_desk", registry=registry)


def tool_messages(thread: tl.Thread) -> list[tl.Message]:
    return [m for m in thread.messages if m.role == "tool"]


def missing_package(reason: str) -> NoReturn:
    """A system package a test needs is not installed: locally the test skips, naming it; CI
    installs it, so there a missing one is a failure, never a silent skip."""
    if os.environ.get("CI") == "true":
        pytest.fail(reason)
    pytest.skip(reason)


class HangingTool:
    """A tool body that says when a call has started, then waits until released (or forever).

    `entered` is set as a call begins; `release.set()` lets every waiting call return `result`.
    """

    def __init__(self, result: str = "never") -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()
        self.result = result
        self.calls = 0

    async def __call__(self, state: tl.ThreadState, args: Any) -> str:
        self.calls += 1
        self.entered.set()
        await self.release.wait()
        return self.result


SENT_AS_TEXT = ("trace", "points", "told")
"""The values a view sends as JSON text."""


def synced_state(state: dict[str, Any]) -> dict[str, Any]:
    """A widget's state as its front end reads it: the values a view sends as JSON text
    parsed."""
    return {
        name: json.loads(value) if name in SENT_AS_TEXT and isinstance(value, str) else value
        for name, value in state.items()
    }


def killed_script(folder: Path, source: str, *args: str) -> str:
    """Run `source` as a Python script of its own (in `folder`, with `args`) that its own code
    kills with SIGKILL at the worst moment; what it printed before dying."""
    script = folder / "killed.py"
    script.write_text(source)
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == -signal.SIGKILL, done.stderr
    return done.stdout
