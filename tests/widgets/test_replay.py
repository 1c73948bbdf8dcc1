"""A thread's view state rebuilt from the store, with the threads related to it: the thread a
branch was forked from, and the branches of a thread."""

from __future__ import annotations

import threadlab as tl
from threadlab.models import ScriptedModel, text
from threadlab.widgets._replay import relate, replay


async def test_a_branch_names_the_thread_it_was_forked_from(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    model = ScriptedModel([text("first"), text("again")])
    tl.define_prompt("tutor", prompt="Teach.", model=model, registry=registry)
    thread = await rt.create_thread("tutor")
    await thread.send("hello")
    branch = await thread.fork(thread.messages[0].id)
    nodes = {t["id"]: t for t in relate(replay(branch), branch).snapshot()["threads"]}
    origin = nodes[thread.id]
    assert (origin["relation"], origin["name"]) == ("origin", "forked from tutor")
    assert nodes[branch.id]["parent"] == thread.id
