"""threadlab.grading: checks over the path a thread took, each with its points and one line of
feedback a student can act on; a grade's score, partial credit and its two readings; the checks
as evaluation scorers; a check that names no tool of the thread is an error, not a zero."""

from __future__ import annotations

from typing import Any

import pytest

import threadlab as tl
from threadlab import grading as g
from threadlab.models import call, step, text

from ..helpers import scripted_prompt

PATH = {"type": "object", "properties": {"path": {"type": "string"},
        "content": {"type": "string"}}}  # fmt: skip
SECRET = "sk-grading-4f9e2b7a1c"


def site_tools(registry: tl.Registry) -> None:
    async def write_file(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.write_file(args["path"], args.get("content", ""))
        return f"wrote {args['path']}"

    tl.define_tool("write_file", description="Write.", execute=write_file, args=PATH,
                   registry=registry)  # fmt: skip
    tl.define_tool("search", description="Search.", execute=lambda s, a: "tea facts",
                   registry=registry)  # fmt: skip
    tl.define_tool("delete_file", description="Delete.", execute=lambda s, a: "deleted",
                   args=PATH, approval="always", registry=registry)  # fmt: skip


async def graded_thread(rt: tl.Runtime, registry: tl.Registry, steps: list[Any]) -> tl.Thread:
    site_tools(registry)
    scripted_prompt(registry, steps, tools=["write_file", "search", "delete_file"])
    thread = await rt.create_thread("p")
    await thread.send("Make a page about tea")
    return thread


RIGHT = [
    call("search", {}),
    call("write_file", {"path": "/index.html", "content": "<h1>Tea</h1>"}),
    text("I wrote /index.html about tea."),
]
WRONG = [
    call("write_file", {"path": "/about.html", "content": "<h1>Tea</h1>"}),
    call("search", {}),
    call("write_file", {"path": "/about.html", "content": "again"}),
    text("Done."),
]


async def test_a_right_path_passes_every_check_and_scores_full(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread = await graded_thread(rt, registry, RIGHT)
    result = g.grade(thread, [
        g.called("write_file", path="/index.html"),
        (g.called_before("search", "write_file"), 2),
        g.not_called("delete_file"),
        g.call_count("write_file", 1),
        g.answer_contains("index.html"),
        g.within_budget(max_tokens=100_000),
        g.no_secret_leaked(),
    ])  # fmt: skip
    assert [item.passed for item in result.items] == [True] * 7
    assert (result.score, result.max_score, result.passed) == (8.0, 8.0, True)
    assert result.items[0].feedback == "write_file was called with path='/index.html'"
    assert result.points(out_of=2) == 2.0


async def test_a_wrong_path_gets_partial_credit_and_feedback_to_act_on(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread = await graded_thread(rt, registry, WRONG)
    result = g.grade(thread, [
        (g.called("write_file", path="/index.html"), 2),
        (g.called_before("search", "write_file"), 2),
        g.call_count("write_file", at_most=1),
        g.answer_contains("tea"),
        g.not_called("delete_file"),
    ])  # fmt: skip
    assert [item.feedback for item in result.items] == [
        "write_file was never called with path='/index.html'"
        " (the first of its 2 calls had path='/about.html')",
        "write_file was called before search; call search first",
        "write_file was called 2 times; expected at most 1",
        "the final answer does not contain 'tea'",
        "delete_file was not called",
    ]
    assert (result.score, result.max_score) == (1.0, 7.0)
    assert result.points(out_of=7) == 1.0
    assert result.points(out_of=1) == pytest.approx(1 / 7)
    text_form = str(result)
    assert text_form.splitlines()[0] == f"1 / 7 points ({thread.id})"
    assert "  FAIL 0/2  write_file was never called with path='/index.html'" in text_form
    html = result._repr_html_()
    assert "1 / 7 points" in html
    assert "path=&#x27;/index.html&#x27;" in html  # escaped, never markup


async def test_a_check_naming_no_tool_of_the_thread_is_an_error_not_a_zero(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread = await graded_thread(rt, registry, RIGHT)
    for typo in (g.called("wrte_file"), g.not_called("delet_file")):
        with pytest.raises(tl.DefinitionError, match="names tool"):
            g.grade(thread, [typo])
    with pytest.raises(ValueError, match="needs n, at_least or at_most"):
        g.call_count("write_file")
    with pytest.raises(TypeError, match=r"threadlab\.grading checks"):
        g.grade(thread, [lambda ctx: True, (g.called("search"), "2")])


async def test_approved_before_run_reads_the_decisions(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread = await graded_thread(rt, registry, [call("delete_file", {"path": "/a"}),
                                                text("done")])  # fmt: skip
    (pending,) = thread.pending
    await thread.approve(pending.tool_call_id)
    await thread.resume()
    (item,) = g.grade(thread, [g.approved_before_run("delete_file")]).items
    assert (item.passed, item.feedback) == (
        True, "every call of delete_file waited for an approval before it ran"
    )  # fmt: skip

    registry2 = tl.Registry()  # the same tool, with no approval asked
    tl.define_tool(
        "delete_file",
        description="Delete.",
        execute=lambda s, a: "deleted",
        args=PATH,
        registry=registry2,
    )
    scripted_prompt(registry2, [call("delete_file", {"path": "/a"}, id="d1"), text("done")],
                    tools=["delete_file"])  # fmt: skip
    other = tl.Runtime(registry2, rt.store)
    unguarded = await other.create_thread("p")
    await unguarded.send("clean")
    (item,) = g.grade(unguarded, [g.approved_before_run("delete_file")]).items
    assert (item.passed, item.feedback) == (False, "delete_file ran without an approval (call d1)")
    other.close()


async def test_a_secret_that_reached_a_result_or_a_file_fails_the_leak_check(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    async def leak(state: tl.ThreadState, args: dict[str, Any]) -> str:
        key = await state.env("API_KEY")
        await state.write_file("/notes.txt", f"the key is {key}")
        return "saved" if args.get("quiet") else f"key={key}"

    secret = [tl.Variable("API_KEY", type="secret")]
    quiet = {"type": "object", "properties": {"quiet": {"type": "boolean"}}}
    tl.define_tool("leak", description="Leak.", execute=leak, args=quiet, variables=secret,
                   registry=registry)  # fmt: skip
    scripted_prompt(registry, [call("leak", {}), text("ok")], tools=["leak"])
    thread = await rt.create_thread("p", env={"API_KEY": SECRET})
    await thread.send("go")
    (item,) = g.grade(thread, [g.no_secret_leaked()]).items
    assert (item.passed, item.feedback) == (False, "the secret API_KEY reached a tool message")
    assert SECRET not in str(g.grade(thread, [g.no_secret_leaked()]))

    scripted_prompt(registry, [call("leak", {"quiet": True}), text("ok")], tools=["leak"],
                    name="q")  # fmt: skip
    filed = await rt.create_thread("q", env={"API_KEY": SECRET})
    await filed.send("go")
    (item,) = g.grade(filed, [g.no_secret_leaked()]).items
    assert item.passed is False
    assert item.feedback in (
        "a secret's value reached the file /notes.txt",
        "the secret API_KEY reached the file /notes.txt",
    )
    assert SECRET not in item.feedback


async def test_checks_are_evaluation_scorers(rt: tl.Runtime, registry: tl.Registry) -> None:
    site_tools(registry)
    scripted_prompt(registry, RIGHT * 2, tools=["write_file", "search", "delete_file"])
    report = await tl.evaluate(
        "p",
        [tl.Case("tea", "a page about tea"), tl.Case("more", "another")],
        scorers=[g.called("write_file", path="/index.html"), g.not_called("search")],
        runtime=rt,
        concurrency=1,
    )
    assert [r.scores for r in report.rows] == [
        {"called(write_file, path='/index.html')": True, "not_called(search)": False}
    ] * 2


async def test_the_graded_path_includes_nested_and_subagent_calls(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread = await graded_thread(rt, registry, [step(call("search", {}), call("search", {})),
                                                text("tea")])  # fmt: skip
    (item,) = g.grade(thread, [g.call_count("search", 2)]).items
    assert (item.passed, item.feedback) == (True, "search was called 2 times")


async def test_the_leak_check_fails_closed_where_the_secrets_cannot_be_read(
    registry: tl.Registry, tmp_path: Any
) -> None:
    """Graded by a runtime with another key (an instructor's), a thread's secrets cannot be
    decrypted: a raw key in a file could not be seen, so the check says it cannot tell."""

    async def leak(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.write_file("/config.py", f"API_KEY = {await state.env('API_KEY')!r}")
        return "saved"

    secret = [tl.Variable("API_KEY", type="secret")]
    tl.define_tool("leak", description="Leak.", execute=leak, variables=secret,
                   registry=registry)  # fmt: skip
    scripted_prompt(registry, [call("leak", {}), text("ok")], tools=["leak"])
    student = tl.Runtime(registry, tmp_path, secret_key="the student's key")
    thread = await student.create_thread("p", env={"API_KEY": SECRET})
    await thread.send("go")
    (own,) = g.grade(thread, [g.no_secret_leaked()]).items
    assert (own.passed, own.feedback) == (False, "a secret's value reached the file /config.py")
    grader = tl.Runtime(registry, tmp_path, secret_key="another key")
    (other,) = g.grade(grader.thread(thread.id), [g.no_secret_leaked()]).items
    assert other.passed is False
    assert other.feedback.startswith("cannot check: the secrets API_KEY are encrypted")
    for rt in (student, grader):
        rt.close()


async def test_a_name_an_agent_chose_cannot_forge_a_row_of_the_grade(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    forged = "x\n  PASS 1/1  search"  # a tool no definition has: the model named it
    steps = [call(forged, {"k": "[secret:KEY]"}), text("done")]
    thread = await graded_thread(rt, registry, steps)
    result = g.grade(thread, [g.no_secret_leaked(), (g.called("search"), 3)])
    lines = str(result).splitlines()
    assert len(lines) == 3  # the score and one line per check
    assert "x\\n  PASS 1/1  search" in lines[1]


async def test_the_grade_table_reads_left_to_right_in_a_notebook(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    """JupyterLab's table style right-aligns cells: the grade's own cells say left."""
    thread = await graded_thread(rt, registry, RIGHT)
    html = g.grade(thread, [g.called("search"), g.not_called("search")])._repr_html_()
    cells = html.count("<td style='text-align:left")
    assert cells == 8  # four cells a row, two rows
    assert "var(--jp-success-color1" in html
    assert "var(--jp-error-color1" in html


async def test_small_mistakes_in_checks_are_said_helpfully(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread = await graded_thread(rt, registry, RIGHT)
    with pytest.raises(tl.DefinitionError, match="did you mean 'write_file'"):
        g.grade(thread, [g.called("wrte_file")])
    with pytest.raises(ValueError, match="at least one check"):
        g.grade(thread, [])
    (item,) = g.grade(thread, [g.answer_contains("INDEX", case_sensitive=True)]).items
    assert item.feedback == "the final answer does not contain 'INDEX' in that case (upper/lower)"
