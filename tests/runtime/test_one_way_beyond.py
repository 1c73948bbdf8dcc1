"""One way to run beyond this process: the runtime's engine. The polling workers that came
before it are gone (`Runtime.serve`, `children="workers"`, `python -m threadlab worker`);
`thread.queue` without an engine says what to do instead, and a store written while those
workers ran still opens: a child left to them, messaged again, runs where its parent runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FunctionModel, call, text


def _team(registry: tl.Registry) -> None:
    def helping(messages: list[tl.Message], tools: Any) -> Any:
        return text(f"done: {messages[-1].content}")

    tl.define_prompt("help", prompt="Help.", model=FunctionModel(helping), registry=registry)
    tl.define_agent("helper", side_a="help", tool_description="Helps.", registry=registry)

    def leading(messages: list[tl.Message], tools: Any) -> Any:
        last = messages[-1]
        said = last.content or ""
        if last.role == "user" and last.subagent_id:
            return text(f"heard {last.subagent_id}")
        if last.role == "user" and said == "create":
            return call("subagent_create", {"agent": "helper", "name": "h", "message": "task"})
        if last.role == "user" and said.startswith("again "):
            return call("subagent_message", {"reference": said.split()[1], "message": "more"})
        return text("waiting")

    tl.define_prompt("lead", prompt="Lead.", model=FunctionModel(leading), registry=registry)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[
        tl.Subagent("helper", blocking=False, resumable=True)]), registry=registry)  # fmt: skip


def test_the_workers_options_are_gone(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="children"):
        tl.Runtime(tl.Registry(), tmp_path, children="workers")  # type: ignore[call-arg]
    assert not hasattr(tl.Runtime, "serve")
    from threadlab.__main__ import main

    with pytest.raises(SystemExit):  # `python -m threadlab worker` is no command now
        main(["worker", "--store", str(tmp_path)])


async def test_queue_without_an_engine_says_how_to_run_the_message(tmp_path: Path) -> None:
    registry = tl.Registry()
    _team(registry)
    rt = tl.Runtime(registry, tmp_path, secret_key="k")
    thread = await rt.create_thread("boss")
    with pytest.raises(tl.ThreadlabError, match=r"engine=tl\.RayEngine\(\.\.\.\).*send"):
        await thread.queue("create")
    assert thread.messages == []  # nothing was left waiting for nobody
    assert (await thread.send("create")).status == "completed"
    rt.close()


async def test_a_child_left_to_the_old_workers_runs_here_when_messaged_again(
    tmp_path: Path,
) -> None:
    registry = tl.Registry()
    _team(registry)
    rt = tl.Runtime(registry, tmp_path, secret_key="k")
    lead = await rt.create_thread("boss")
    assert (await lead.send("create")).status == "completed"
    (child,) = lead.children
    # As a store written while the polling workers ran holds it.
    child._context.identity.set_meta(runs_on="workers")
    rt.close()

    rt = tl.Runtime(registry, tmp_path, secret_key="k")
    lead = rt.thread(lead.id)
    run = await lead.send(f"again {child.id}")
    assert run.status == "completed"
    child = rt.thread(child.id)
    assert [m.content for m in child.messages if m.role == "user"] == ["task", "more"]
    assert child.messages[-1].content == "done: more"
    reports = [m.subagent_id for m in lead.messages if m.role == "user" and m.subagent_id]
    assert reports == [child.id, child.id]
    rt.close()
