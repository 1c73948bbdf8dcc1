"""Step mode before model steps: send(step="model") pauses before each top-level model step
with the request it is about to send; resume sends it, runs the step and its calls, and
pauses before the next. The pause is stored with the thread."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FunctionModel, ScriptedModel, call, text
from threadlab.runtime._explain import explain_paragraphs

from ..helpers import HangingTool, killed_script

SECRET = "key-of-the-adder-0042"


def adder(registry: tl.Registry) -> ScriptedModel:
    def add(state: tl.ThreadState, a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    tl.tool(registry=registry)(add)
    model = ScriptedModel([call("add", {"a": 2, "b": 3}, id="call_add"), text("5")])
    tl.define_prompt(
        "p",
        prompt="You add. Your key is {{env:KEY}}.",
        tools=["add"],
        model=model,
        variables=[tl.Variable("KEY", type="secret")],
        registry=registry,
    )
    return model


async def test_each_model_step_waits_with_the_request_it_is_about_to_send(
    store_spec: str, registry: tl.Registry
) -> None:
    model = adder(registry)
    first = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await first.create_thread("p", secrets={"KEY": SECRET})
    run = await thread.send("2+3?", step="model")
    assert (run.status, run.stop_reason, run.pending) == ("waiting", "waiting: model step", ())
    assert run.next_request is not None
    assert [(m.role, m.content) for m in run.next_request.messages] == [
        ("system", "You add. Your key is [secret:KEY]."),
        ("user", "2+3?"),
    ]
    assert [t["name"] for t in run.next_request.tools] == ["add"]
    assert model.requests == []  # nothing was sent
    assert [m.role for m in thread.messages] == ["user"]
    assert thread.status == "waiting"
    first.close()
    # A new process on the same store: the pause is there, and a resume sends that request.
    second = tl.Runtime(registry, store_spec, secret_key="k")
    again = second.thread(thread.id)
    run = await again.resume(step="model")
    (sent,) = model.requests
    assert [m.role for m in sent.messages] == ["system", "user"]
    assert sent.messages[1].content == "2+3?"
    assert (run.status, run.stop_reason) == ("waiting", "waiting: model step")
    assert [m.role for m in again.messages] == ["user", "assistant", "tool"]
    assert run.next_request is not None
    assert [(m.role, m.content) for m in run.next_request.messages][2:] == [
        ("assistant", None),
        ("tool", "5"),
    ]
    run = await again.resume(step="model")
    assert (run.status, run.text) == ("completed", "5")
    assert len(model.requests) == 2
    assert [m.role for m in again.messages] == ["user", "assistant", "tool", "assistant"]
    assert SECRET not in repr(run) + repr(again.events)
    titles = [s.title for s in explain_paragraphs(again)]
    assert titles.count("The run paused before a model step") == 2
    second.close()


async def test_all_pauses_before_model_steps_and_tool_calls(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    model = adder(registry)
    thread = await rt.create_thread("p", secrets={"KEY": SECRET})
    run = await thread.send("2+3?", step="all")
    assert run.stop_reason == "waiting: model step"
    run = await thread.resume(step="all")
    assert run.stop_reason == "waiting: approval"
    assert [r.tool_call_id for r in run.pending] == ["call_add"]
    await thread.approve("call_add")
    run = await thread.resume(step="all")
    assert run.stop_reason == "waiting: model step"
    assert [m.role for m in thread.messages] == ["user", "assistant", "tool"]
    run = await thread.resume()  # without step mode: the rest of the turn at once
    assert (run.status, run.text, len(model.requests)) == ("completed", "5", 2)


async def test_a_prompt_tools_nested_turn_does_not_pause(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    inner = ScriptedModel([text("inner answer")])
    tl.define_prompt("helper", prompt="Help.", model=inner, expose_as_tool=True, registry=registry)
    outer = ScriptedModel([call("helper", {"message": "go"}), text("done")])
    tl.define_prompt("main", prompt="Main.", model=outer, tools=["helper"], registry=registry)
    thread = await rt.create_thread("main")
    pauses = 0
    run = await thread.send("hi", step="model")
    while run.status == "waiting":
        pauses += 1
        run = await thread.resume(step="model")
    assert (run.status, run.text, pauses) == ("completed", "done", 2)
    assert len(inner.requests) == 1


async def test_a_step_option_that_is_not_one_is_refused_before_anything_is_stored(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    adder(registry)
    thread = await rt.create_thread("p", secrets={"KEY": SECRET})
    with pytest.raises(tl.ThreadlabError, match="step must be False, True, 'tools', 'model' or"):
        await thread.send("2+3?", step="models")  # type: ignore[arg-type]
    assert thread.messages == []


async def test_step_mode_on_a_thread_that_is_running_is_refused(
    registry: tl.Registry, store_dir: Path
) -> None:
    hanging = HangingTool("done")
    tl.define_tool("wait", description="Wait.", execute=hanging, registry=registry)
    tl.define_prompt(
        "w",
        prompt="x",
        model=ScriptedModel([call("wait"), text("ok")]),
        tools=["wait"],
        registry=registry,
    )
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await rt.create_thread("w")
    running = asyncio.ensure_future(thread.send("go"))
    await hanging.entered.wait()
    with pytest.raises(tl.ThreadBusyError, match="step mode needs a run of its own"):
        await thread.send("and this", step="model")
    hanging.release.set()
    assert (await running).status == "completed"
    assert [m.content for m in thread.messages if m.role == "user"] == ["go"]
    rt.close()


async def test_two_resumes_of_one_pause_at_once_send_the_step_once(
    store_spec: str, registry: tl.Registry
) -> None:
    asked: list[int] = []

    async def slow(messages: Any, tools: Any) -> Any:
        asked.append(len(messages))
        await asyncio.sleep(0.3)  # long enough for the other resume to arrive meanwhile
        return text("5")

    tl.define_prompt("p", prompt="You add.", model=FunctionModel(slow), registry=registry)
    first = tl.Runtime(registry, store_spec, secret_key="k")
    second = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await first.create_thread("p")
    await thread.send("2+3?", step="model")
    outcomes = await asyncio.gather(
        first.thread(thread.id).resume(step="model"),
        second.thread(thread.id).resume(step="model"),
        return_exceptions=True,
    )
    statuses = sorted(o.status if isinstance(o, tl.Run) else type(o).__name__ for o in outcomes)
    assert statuses in (["completed", "queued"], ["ThreadBusyError", "completed"]), outcomes
    assert asked == [2]  # one model call: the paused step, sent once
    assert [m.role for m in first.thread(thread.id).messages] == ["user", "assistant"]
    first.close()
    second.close()


async def test_the_next_request_is_gone_once_another_process_went_on_from_the_pause(
    store_spec: str, registry: tl.Registry
) -> None:
    # A handle remembers the request its run paused before; another process resumed the
    # thread since (and paused before a later step): this handle no longer says it waits
    # to send that old request.
    adder(registry)
    here = tl.Runtime(registry, store_spec, secret_key="k")
    there = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await here.create_thread("p", secrets={"KEY": SECRET})
    await thread.send("2+3?", step="model")
    assert thread.next_request is not None
    elsewhere = there.thread(thread.id)
    run = await elsewhere.resume(step="model")  # sends that step, pauses before the next
    assert run.stop_reason == "waiting: model step"
    assert thread.status == "waiting"
    assert thread.next_request is None  # not this handle's pause any more
    assert elsewhere.next_request is not None
    await elsewhere.resume()
    assert elsewhere.next_request is None
    for rt in (here, there):
        rt.close()


KILLED_GOING_ON = """
import asyncio, os, signal, sys
import threadlab as tl
from threadlab.models import ScriptedModel, call, text

def add(state, a: int, b: int) -> int:
    \"\"\"Add.\"\"\"
    os.kill(os.getpid(), signal.SIGKILL)
    return a + b

registry = tl.Registry()
tl.tool(registry=registry)(add)
tl.define_prompt("p", prompt="x", tools=["add"], registry=registry,
                 model=ScriptedModel([call("add", {"a": 2, "b": 3}, id="c1")]))

async def main():
    rt = tl.Runtime(registry, sys.argv[1], secret_key="k")
    await rt.thread(sys.argv[2]).resume(step="model")  # sends the step; its call kills it

asyncio.run(main())
"""


@pytest.mark.processes
async def test_the_next_request_is_gone_once_a_killed_process_went_on_from_the_pause(
    store_spec: str, registry: tl.Registry, tmp_path: Path
) -> None:
    # The process that went on from the pause sent the step and died in its call, leaving
    # no end: this handle's pause is still gone (its request was sent).
    tl.define_prompt("p", prompt="x", registry=registry, model=ScriptedModel([text("never")]))
    here = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await here.create_thread("p")
    await thread.send("2+3?", step="model")
    assert thread.next_request is not None
    killed_script(tmp_path, KILLED_GOING_ON, store_spec, thread.id)
    assert [m.role for m in thread.all_messages()] == ["user", "assistant"]  # it was sent
    assert thread.next_request is None
    here.close()


async def test_a_branch_from_before_a_pause_pauses_on_its_own(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # Where a run paused is read from the branch's own history: a branch cut before the
    # original paused does not send its first step as though it had been paused before.
    asked: list[str] = []  # the question each model step was sent

    async def answer(messages: Any, tools: Any) -> Any:
        asked.append(messages[-1].content)
        return text("ok")

    tl.define_prompt("p", prompt="You answer.", model=FunctionModel(answer), registry=registry)
    thread = await rt.create_thread("p")
    await thread.send("first")
    run = await thread.send("second", step="model")
    assert (run.status, run.stop_reason) == ("waiting", "waiting: model step")
    branch = await thread.fork(thread.messages[0].id)  # up to the first question
    run = await branch.resume(step="model")
    assert (run.status, run.stop_reason) == ("waiting", "waiting: model step")
    assert asked == ["first"]  # the original's first step only: the branch's waits
    run = await branch.resume(step="model")  # and now it is sent
    assert (run.status, run.text, asked) == ("completed", "ok", ["first", "first"])
    # The original's pause is its own: its resume sends the step it paused before.
    run = await thread.resume(step="model")
    assert (run.status, run.text, asked[2:]) == ("completed", "ok", ["second"])


KILLED_IN_ITS_STEP = """
import asyncio, os, signal, sys
import threadlab as tl
from threadlab.models import ScriptedModel, call, text

def boom(state) -> str:
    \"\"\"Boom.\"\"\"
    if os.environ.get("KILL"):
        os.kill(os.getpid(), signal.SIGKILL)
    return "ok"

registry = tl.Registry()
tl.tool(registry=registry)(boom)
tl.define_prompt("p", prompt="x", tools=["boom"], registry=registry,
                 model=ScriptedModel([call("boom", {}, id="c1"), text("one")]))

async def main():
    rt = tl.Runtime(registry, sys.argv[1], secret_key="k")
    thread = await rt.create_thread("p")
    await thread.send("hi", step="model")
    print(thread.id, flush=True)
    os.environ["KILL"] = "1"
    await thread.resume(step="model")  # sends the step; its call kills the process

asyncio.run(main())
"""


@pytest.mark.processes
async def test_a_step_whose_process_was_killed_is_paused_before_again(
    store_spec: str, registry: tl.Registry, tmp_path: Path
) -> None:
    # The run that went on from the pause stored the model's answer, then its owner died: a
    # resume in step mode pauses before the next step, it does not send it unasked.
    thread_id = killed_script(tmp_path, KILLED_IN_ITS_STEP, store_spec).split()[0]
    asked: list[str] = []

    async def answer(messages: Any, tools: Any) -> Any:
        asked.append(str(messages[-1].content))
        return text("after")

    tl.define_tool("boom", description="Boom.", execute=lambda s, a: "ok", registry=registry)
    tl.define_prompt("p", prompt="x", tools=["boom"], model=FunctionModel(answer),
                     registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread = rt.thread(thread_id)
    assert [m.role for m in thread.messages] == ["user", "assistant", "tool"]  # repaired
    run = await thread.resume(step="model")
    assert (run.status, run.stop_reason, asked) == ("waiting", "waiting: model step", [])
    run = await thread.resume(step="model")
    assert (run.status, run.text) == ("completed", "after")
    rt.close()
