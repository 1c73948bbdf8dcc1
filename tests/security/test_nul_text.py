"""U+0000 in what a model or a provider sends: PostgreSQL's text cannot hold it, so a NUL in a
model's answer or a provider's error must not fail the step's write and leave the run
"running". Both stores keep and return the same text."""

from __future__ import annotations

from typing import Any

import threadlab as tl
from threadlab.models import FunctionModel, text

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
