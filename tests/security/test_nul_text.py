"""Characters a store cannot take as they come. U+0000 in what a model or a provider sends:
PostgreSQL's text cannot hold it, so a NUL in a model's answer or a provider's error must not
fail the step's write and leave the run "running"; both stores keep and return the same text.
A lone surrogate (no UTF-8 text holds one): in a call's arguments it is that call's error
result, in an answer it becomes U+FFFD, in a user message a clear error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FunctionModel, ScriptedModel, call, step, text

ANSWER = "before\x00after"


async def test_a_nul_in_an_answer_or_an_error_is_kept_on_both_stores(
    registry: tl.Registry, store_spec: str
) -> None:
    def answers(messages: Any, tools: Any) -> Any:
        return text(ANSWER)

    def fails(messages: Any, tools: Any) -> Any:
        raise RuntimeError("the provider said \x00 here")

    tl.define_prompt("ok", prompt="x", model=FunctionModel(answers), registry=registry)
    tl.define_prompt("bad", prompt="x", model=FunctionModel(fails), registry=registry)
    rt = tl.Runtime(registry, store_spec, secret_key="k")
    thread = await rt.create_thread("ok")
    run = await thread.send("say it")
    assert (run.status, run.text) == ("completed", ANSWER)
    failing = await rt.create_thread("bad")
    failed = await failing.send("say it")
    assert failed.status == "failed"
    assert failed.error is not None
    assert "\x00 here" in failed.error
    rt.close()

    again = tl.Runtime(registry, store_spec, secret_key="k")
    reopened, reopened_failing = again.thread(thread.id), again.thread(failing.id)
    assert reopened.status == "idle"
    assert reopened.messages[-1].content == ANSWER
    (finished,) = [e for e in reopened.events if isinstance(e, tl.RunFinishedEvent)]
    assert finished.text == ANSWER
    (finished,) = [e for e in reopened_failing.events if isinstance(e, tl.RunFinishedEvent)]
    assert finished.error == failed.error
    await reopened.send("again")  # the thread goes on
    again.close()


async def test_a_lone_surrogate_in_arguments_is_an_error_result_and_the_run_goes_on(
    registry: tl.Registry, rt: tl.Runtime, store_dir: Path
) -> None:
    ran: list[Any] = []

    async def echo(state: tl.ThreadState, args: dict[str, Any]) -> str:
        ran.append(args)
        return "echoed"

    schema = {
        "type": "object",
        "properties": {"description": {"type": "string"}, "path": {"type": "string"}},
    }
    tl.define_tool("echo", description="Echo.", execute=echo, args=schema,
                   progress_argument="description", registry=registry)  # fmt: skip
    model = ScriptedModel(
        [
            step(
                call("echo", {"description": "bad \ud800", "path": "a\ud800b"}, id="c1"),
                call("echo", {"path": "/fine"}, id="c2"),
            ),
            text("done \udfff"),
        ]
    )
    tl.define_prompt("p", prompt="x", model=model, tools=["echo"], registry=registry)
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    assert run.status == "completed"
    results = [
        (m.tool_call_id, m.tool_status, m.content) for m in thread.messages if m.role == "tool"
    ]
    assert results[0][:2] == ("c1", "error")
    assert "not valid UTF-8 text" in (results[0][2] or "")
    assert results[1] == ("c2", "success", "echoed")
    assert ran == [{"path": "/fine"}]
    assert thread.messages[-1].content == "done \ufffd\ufffd\ufffd"  # kept, made storable
    again = tl.Runtime(registry, store_dir, secret_key="test-key").thread(thread.id)
    assert len(again.messages) == len(thread.messages)  # all of it stored


async def test_a_lone_surrogate_in_a_user_message_is_a_clear_error(
    registry: tl.Registry, rt: tl.Runtime
) -> None:
    tl.define_prompt("p", prompt="x", model=ScriptedModel([text("hi")]), registry=registry)
    thread = await rt.create_thread("p")
    with pytest.raises(tl.ThreadlabError, match="not valid UTF-8 text: a lone surrogate"):
        await thread.send("bad \ud800 text")
    assert thread.messages == []  # nothing was stored
