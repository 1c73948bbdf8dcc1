"""`ThreadDiff`: two threads read from their steps and aligned step by step — a person's
message, the model's answer, a call with its arguments as run, its result and its decision, a
handoff's turn, where a thread waits — each difference marked."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

import threadlab as tl
from threadlab.models import FunctionModel, call, text
from threadlab.widgets import ThreadDiff

from ..execution.test_prompt_tools import NESTED_STEPS, caller, researcher
from ..execution.test_subagents import create, helper, lead
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
        ("run ended", "completed", False),
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
    assert [row.differs for row in diff.rows] == [True, False, True, True, False]
    assert f"first difference at step 1 of 5 (message 1 of {thread.id})" in repr(diff)
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
    assert rows(waiting)[2:-1] == [
        ("call [waiting]", 'delete({"path": "/a"})', False),
        ("waiting", "a decision on delete", False),
    ]
    assert rows(waiting)[-1][0::2] == ("run ended", False)  # each names its own call
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
    assert row.left.summary == (
        'delete({"path": "/tmp/a"}) → deleted /tmp/a (the model proposed {"path": "/a"})'
    )
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
    assert labels == ["user", "model (scripted)", "call", "model (scripted)", "run ended"]
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
        ("run ended", "completed"),
    ]
    assert [row.differs for row in diff.rows] == [True, True, True, True, True, False]


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
        (False, False, False),  # how the run ended
    ]
    assert f"first difference at step 4 of 7 (message 4 of {right.id})" in repr(diff)


async def test_what_the_model_proposed_and_a_results_files_are_compared(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    gated_delete(registry, ran)
    proposals = iter(["/", "/tmp/x-old"])
    model = FunctionModel(
        lambda m, t: (
            text("done") if m[-1].role == "tool" else call("delete", {"path": next(proposals)})
        )
    )
    tl.define_prompt("cleaner", prompt="Clean.", tools=["delete"], model=model,
                     registry=registry)  # fmt: skip
    edited = [await rt.create_thread("cleaner"), await rt.create_thread("cleaner")]
    for thread in edited:  # a person edits both to the same path
        await thread.send("clean up")
        await thread.approve(thread.pending[0].tool_call_id, arguments={"path": "/tmp/x"})
        await thread.resume()
    (row,) = [r for r in ThreadDiff(*edited).rows if r.differs]
    assert row.left is not None
    assert row.left.summary.endswith('(the model proposed {"path": "/"})')

    files = iter(["/attachments/good.txt", "/attachments/evil.txt"])

    async def report(state: tl.ThreadState, args: dict[str, Any]) -> tl.ToolResult:
        path = next(files)
        await state.write_file(path, "x")
        return tl.ToolResult(result="report ready", attachments=(path,))

    tl.define_tool("report", description="Report.", execute=report, registry=registry)
    tl.define_prompt("reporter", prompt="R.", tools=["report"], registry=registry,
                     model=FunctionModel(lambda m, t: text("ok") if m[-1].role == "tool"
                                         else call("report")))  # fmt: skip
    reported = [await rt.create_thread("reporter"), await rt.create_thread("reporter")]
    for thread in reported:
        await thread.send("go")
    (row,) = [r for r in ThreadDiff(*reported).rows if r.differs]
    assert row.right is not None
    assert row.right.summary == "report({}) → report ready [attached: /attachments/evil.txt]"


async def test_an_approval_that_changed_nothing_is_no_difference(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    adding(registry)
    plain, stepped = await rt.create_thread("calc"), await rt.create_thread("calc")
    await plain.send("abc")
    run = await stepped.send("abc", step="all")  # asks before each call, pauses each step
    while run.status == "waiting":
        for request in stepped.pending:
            await stepped.approve(request.tool_call_id)
        run = await stepped.resume(step="all")
    diff = ThreadDiff(plain, stepped)
    assert diff.first_difference is None
    assert [r.right.label for r in diff.rows if r.right][2] == "call approved"


async def test_subagents_ids_are_no_difference_and_a_report_is_named_by_its_child(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(registry, [create(), text("waiting"), text("got it")] * 2,
         tl.Subagent("helper", blocking=False))  # fmt: skip
    first, second = await rt.create_thread("boss"), await rt.create_thread("boss")
    for thread in (first, second):
        await thread.send("go")
    diff = ThreadDiff(first, second)
    assert diff.first_difference is None  # each names its own child, in the same place
    (report,) = [r for r in diff.rows if r.left and r.left.kind == "report"]
    assert report.left is not None
    assert report.left.label == "report from w1"
    assert first.children[0].id in report.left.summary  # shown as it is, compared masked
    branch = await first.fork(first.messages[-1].id)  # its child is a copy, with its own id
    assert ThreadDiff(first, branch).first_difference is None


async def test_how_the_last_run_ended_is_a_row(rt: tl.Runtime, registry: tl.Registry) -> None:
    tl.define_tool("t", description="T.", execute=lambda s, a: "r", registry=registry)

    def failing(messages: list[tl.Message], tools: Any) -> Any:
        if messages[-1].role == "tool":
            raise RuntimeError("provider: 401 unauthorized")
        return call("t")

    tl.define_prompt("f", prompt="x", tools=["t"], model=FunctionModel(failing),
                     registry=registry)  # fmt: skip
    tl.define_prompt("ok", prompt="x", tools=["t"], registry=registry,
                     model=FunctionModel(lambda m, t: text("fine") if m[-1].role == "tool"
                                         else call("t")))  # fmt: skip
    failed, done = await rt.create_thread("f"), await rt.create_thread("ok")
    await failed.send("go")
    await done.send("go")
    last = ThreadDiff(failed, done).rows[-1]
    assert last.differs
    assert last.left is not None
    assert last.right is not None
    assert last.left.label == "run ended"
    assert last.left.summary.startswith("failed: ")
    assert "401 unauthorized" in last.left.summary
    assert (last.right.label, last.right.summary) == ("run ended", "completed")


async def test_control_characters_cannot_move_a_terminals_cursor(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    forged = "\x1b[1A\u202e" + "\b" * 30 + "≠ ok"
    tl.define_prompt("echo", prompt="Echo.", model=tl.models.ScriptedModel([text(forged)]),
                     registry=registry)  # fmt: skip
    thread = await rt.create_thread("echo")
    await thread.send("hi")
    text_view = repr(ThreadDiff(thread, thread))
    assert not any(not c.isprintable() for c in text_view.replace("\n", ""))
    assert "\\x08" in text_view
    assert "\\x1b[1A" in text_view


async def test_the_summary_says_which_rows_a_damaged_history_left_out(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_prompt("echo", prompt="Echo.", model=tl.models.ScriptedModel([text("yes")]),
                     registry=registry)  # fmt: skip
    thread = await rt.create_thread("echo")
    await thread.send("hi")
    answer = thread.messages[-1].id
    with sqlite3.connect(rt.store.path) as db:  # type: ignore[attr-defined]
        db.execute("UPDATE messages SET data = '{broken' WHERE id = ?", (answer,))
    damaged = tl.Runtime(registry, rt.store.path.parent).thread(thread.id)  # type: ignore[attr-defined]
    diff = ThreadDiff(damaged, damaged)
    # Its step is read from the message: the row is gone, and the summary says why.
    assert [r.left.summary for r in diff.rows if r.left] == ["hi", "completed"]
    assert repr(diff).endswith(
        f"the two agree; damaged: {thread.id}: message {answer} cannot be read and is left out"
    )


async def test_a_difference_past_what_a_cell_shows_is_shown_and_each_side_is_named(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    adding(registry)
    thread = await rt.create_thread("calc")
    await thread.send("abc")
    same = "A" * 300
    left = await thread.fork("call_add", result=same + " ends with X " + "b" * 300)
    right = await thread.fork("call_add", result=same + " ends with Y " + "b" * 300)
    diff = ThreadDiff(left, right)
    assert [r.differs for r in diff.rows].count(True) == 1
    shown = diff.html()
    visible = re.findall(r'white-space:pre-wrap">(.*?)</code>', shown)  # not the hover titles
    # The excerpt is where they differ, not their shared start.
    assert any("ends with X" in text for text in visible)
    assert any("ends with Y" in text for text in visible)
    assert "ends with X" in repr(diff)
    assert f"branch of {thread.id}" in shown  # under each id: its agent, where it came from
    assert "calc · branch of" in shown
    assert "table-layout:fixed" in shown  # a long unbroken text wraps in its half
