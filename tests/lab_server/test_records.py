"""What the Threads panel's routes answer of a listed thread: a branch names the thread it
was forked from."""

from __future__ import annotations

import threadlab as tl
from threadlab.lab_server._records import thread_json
from threadlab.store import ThreadQuery


async def test_a_listed_branch_names_the_thread_it_was_forked_from(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_prompt("p", prompt="x", model=tl.models.ScriptedModel(["one"]), registry=registry)
    thread = await rt.create_thread("p")
    await thread.send("hi")
    branch = await thread.fork(thread.messages[0].id)
    listed, _ = rt.browse(ThreadQuery())
    answered = {t.id: thread_json(t)["forked_from"] for t in listed}
    assert answered == {thread.id: None, branch.id: thread.id}
