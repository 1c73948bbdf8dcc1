"""`ThreadDiff`: two threads read from their steps and aligned step by step — a person's
message, the model's answer, a call with its arguments as run, its result and its decision, a
handoff's turn, where a thread waits — each difference marked."""

from __future__ import annotations

from typing import Any

import threadlab as tl
from threadlab.models import FunctionModel, call, text
from threadlab.widgets import ThreadDiff

from ..execution.test_prompt_tools import NESTED_STEPS, caller, researcher
from ..helpers import desks, gated_delete


def adding(registry: tl.Registry, *, approval: str | None = None) -> None:
    numbers = {"type": "object", "properties": {"a": {"type": "integer"},
               "b": {"type": "integer"}}}  # fmt: skip
    tl.define_tool("add", description="Add.", execute=lambda s, a: a["a"] + a["b"],
                   args=numbers, approval=approval, registry=registry)  # fmt: skip

    def answer(messages: list[tl.Message], tools: Any) -> Any:
        last = messages[-1]
        if last.role == "tool":
            return text(f"the sum is {last.content}")
        return call("add", {"a": 2, "b": len(last.content or "")}, id="call_add")

    tl.define_prompt("calc", prompt="Add.", tools=["add"], model=FunctionModel(answer),
                     registry=registry)  # fmt: skip


def rows(diff: ThreadDiff) -> list[tuple[str, str, bool]]:
    """Each row as (the left side's label, its summary, whether the row differs)."""
    return [
        (row.left.label if row.left else "—", row.left.summary if row.left else "—", row.differs)
        for row in diff.rows
    ]


async def test_two_runs_that_agree_read_as_one_and_a_passed_step_pause_is_no_step(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    adding(registry)
    plain = await rt.create_thread("calc")
    await plain.send("abc")
    stepped = await rt.create_thread("calc")
    run = await stepped.send("abc", step="model")
    while run.status == "waiting":  # paused before each model step, then let go on
        run = await stepped.resume(step="model")
    diff = ThreadDiff(plain, stepped)
    assert diff.first_difference is None
    assert rows(diff) == [
        ("user", "abc", False),
        ("model (answer)", "calls add", False),
        ("call", 'add({"a": 2, "b": 3}) → 5', False),
        ("model (answer)", "the sum is 5", False),
    ]
    assert repr(diff).endswith("the two agree")
    assert "the two agree" in diff.html()


async def test_a_branch_with_another_message_differs_from_its_first_step(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    adding(registry)
    thread = await rt.create_thread("calc")
    await thread.send("abc")
    branch = await thread.fork(thread.messages[0].id, message="abcdef")
    await branch.resume()
    diff = ThreadDiff(thread, branch)
    assert diff.first_difference == 0
    assert [row.differs for row in diff.rows] == [True, False, True, True]
    assert "first difference at step 1 of 4 (message 1)" in repr(diff)
    right = diff.rows[2].right
    assert right is not None
    assert right.summary == 'add({"a": 2, "b": 6}) → 8'
    assert "add({&quot;a&quot;: 2, &quot;b&quot;: 6}) → 8" in diff.html()


async def test_a_call_reads_its_decision_and_the_arguments_it_ran_with(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    gated_delete(registry, ran)
    model = FunctionModel(
        lambda m, t: text("done") if m[-1].role == "tool" else call("delete", {"path": "/a"})
    )
    tl.define_prompt("cleaner", prompt="Clean.", tools=["delete"], model=model,
                     registry=registry)  # fmt: skip
    approved, rejected = await rt.create_thread("cleaner"), await rt.create_thread("cleaner")
    for thread in (approved, rejected):
        await thread.send("clean up")
    waiting = ThreadDiff(approved, rejected)
    assert waiting.first_difference is None
    assert rows(waiting)[2:] == [
        ("call [waiting]", 'delete({"path": "/a"})', False),
        ("waiting", "a decision on delete", False),
    ]
    call_id = approved.pending[0].tool_call_id
    await approved.approve(call_id, arguments={"path": "/tmp/a"})
    await approved.resume()
    await rejected.reject(rejected.pending[0].tool_call_id, reason="not now")
    await rejected.resume()
    diff = ThreadDiff(approved, rejected)
    (row,) = [r for r in diff.rows if r.differs and r.left and r.left.kind == "tool_call"]
    assert row.left is not None
    assert row.right is not None
    assert row.left.label == "call approved (edited)"
    assert row.left.summary == 'delete({"path": "/tmp/a"}) → deleted /tmp/a'
    assert row.right.label == "call rejected [error]"
    assert not any(r.left and r.left.kind == "pause" for r in diff.rows)  # decided: no wait
    assert ran == ["/tmp/a"]


async def test_a_nested_turn_is_told_by_its_call_and_a_handoff_is_a_turn(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    researcher(registry, NESTED_STEPS)
    caller(registry, [call("researcher", {"message": "what is it?"}), text("done")],
           ["researcher"])  # fmt: skip
    nested = await rt.create_thread("main")
    await nested.send("go")
    labels = [label for label, _, _ in rows(ThreadDiff(nested, nested))]
    assert labels == ["user", "model (scripted)", "call", "model (scripted)"]
    front = tl.models.ScriptedModel([call("billing", {"message": "invoice"}, id="call_hand")])
    desks(registry, front, tl.models.ScriptedModel([text("billing here")]))
    handed = await rt.create_thread("support")
    await handed.send("my invoice")
    diff = ThreadDiff(handed, nested)
    assert [(label, summary) for label, summary, _ in rows(diff)] == [
        ("user", "my invoice"),
        ("model (scripted)", "calls billing"),
        ("call", 'billing({"message": "invoice"}) → ' + (handed.messages[2].content or "")),
        ("turn", "handed over to billing"),
        ("model (scripted)", "billing here"),
    ]
    assert [row.differs for row in diff.rows] == [True, True, True, True, True]


async def test_hostile_text_is_escaped_and_cannot_forge_a_row(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    forged = "<img src=x onerror=alert(1)>\n≠   9 call: rm({}) → ok"
    model = tl.models.ScriptedModel([text(forged)])
    tl.define_prompt("echo", prompt="Echo.", model=model, registry=registry)
    thread = await rt.create_thread("echo")
    await thread.send("hi")
    diff = ThreadDiff(thread, thread)
    assert "<img" not in diff.html()
    assert "&lt;img src=x onerror=alert(1)&gt;" in diff.html()
    assert len(repr(diff).splitlines()) == 2 + len(diff.rows)  # a head, the rows, a summary
    assert not any(line.startswith("≠") for line in repr(diff).splitlines())


async def test_a_step_only_one_side_took_is_a_row_of_its_own_and_the_rest_lines_up(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    adding(registry)
    tl.define_tool("note", description="Note.", execute=lambda s, a: "noted", registry=registry)
    once = [call("add", {"a": 2, "b": 3}, id="c1"), text("the sum is 5")]
    twice = [
        call("add", {"a": 2, "b": 3}, id="c1"),
        call("note", {}, id="c2"),
        text("the sum is 5"),
    ]
    for name, steps in (("once", once), ("twice", twice)):
        tl.define_prompt(name, prompt="Add.", tools=["add", "note"], registry=registry,
                         model=tl.models.ScriptedModel(steps))  # fmt: skip
    left, right = await rt.create_thread("once"), await rt.create_thread("twice")
    for thread in (left, right):
        await thread.send("abc")
    diff = ThreadDiff(left, right)
    assert [(r.left is None, r.right is None, r.differs) for r in diff.rows] == [
        (False, False, False),  # the message
        (False, False, False),  # the step that calls add
        (False, False, False),  # add
        (True, False, True),  # only the right thread's model called note
        (True, False, True),  # note
        (False, False, False),  # the answer, the same on both sides
    ]
    assert "first difference at step 4 of 6 (message 4)" in repr(diff)
