"""Nesting as it happened: a subagent's calls under the child, never the lead's, and its
report as a report from that child — in the replayed state, the static HTML and the text."""

from __future__ import annotations

import threadlab as tl
from threadlab.models import text
from threadlab.widgets import replay, static_html
from threadlab.widgets._replay import trace_for
from threadlab.widgets._static import static_text

from ..execution.test_subagents import create, helper, lead


async def test_a_childs_calls_and_report_belong_to_the_child(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    steps = [create("w1", "write notes"), text("waiting"), text("all done")]
    lead(registry, steps, tl.Subagent("helper", blocking=False))
    thread = await rt.create_thread("boss")
    await thread.send("go")

    state = replay(rt.thread(thread.id))
    child_id = next(t["id"] for t in state.threads.values() if t["parent"] == thread.id)
    finish = next(c for c in state.cards.values() if c["name"] == "finish")
    assert finish["thread"] == child_id  # the child's call, not the lead's
    reports = [m for m in state.messages[thread.id] if m["subagent"]]
    assert [m["subagent"] for m in reports] == [child_id]

    summary = static_text(rt.thread(thread.id)).splitlines()
    lead_lines = summary[1 : summary.index(next(s for s in summary if "subagent w1" in s))]
    assert not any("finish" in line for line in lead_lines)
    child_at = next(i for i, s in enumerate(summary) if "subagent w1" in s)
    assert any("] finish" in line and line.startswith("    ") for line in summary[child_at:])

    page = static_html(rt.thread(thread.id))
    assert "<b>report from w1 [" in page
    assert "attached: /attachments/" in page
    assert page.index("report from w1") < page.index("all done")


async def test_a_finished_blocking_child_says_how_its_run_ended_while_the_parent_runs(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(registry, [create("w1", "write notes"), text("all done")], tl.Subagent("helper"))
    thread = await rt.create_thread("boss")
    seen: list[tuple[str, str]] = []
    state = trace_for(thread, rt.thread)
    async for event in thread.stream("go"):
        state.apply(event)  # as the live view folds them in, before the run has settled
        if event.type == "run_finished" and event.thread_id != thread.id:
            seen.append((event.status, state.threads[event.thread_id]["status"]))
    assert seen == [("completed", "completed")]  # not "idle"


async def test_a_childs_card_names_it_as_the_tree_does_when_its_name_was_taken(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(registry, [create("page-1"), create("page-1"), text("both done")], tl.Subagent("helper"))
    thread = await rt.create_thread("boss")
    live = trace_for(thread, rt.thread)
    async for event in thread.stream("go"):
        live.apply(event)  # as the live view folds them in
    for state in (live, replay(rt.thread(thread.id))):
        names = [t["name"] for t in state.threads.values() if t["parent"] == thread.id]
        assert names == ["page-1", "page-1-2"]
        made = [c for c in state.cards.values() if c["name"] == "subagent_create"]
        assert [c["label"] for c in made] == ["helper · page-1", "helper · page-1-2"]


async def test_long_arguments_and_results_scroll_in_the_static_card(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    rows = "\n".join(f"row {i}" for i in range(200))
    tl.define_tool("echo", description="Echo.", execute=lambda state, args: args["text"],
                   args={"type": "object", "properties": {"text": {"type": "string"}}},
                   registry=registry)  # fmt: skip
    model = tl.models.ScriptedModel([tl.models.call("echo", {"text": rows}), text("")])
    tl.define_prompt("p", prompt="Echo.", model=model, tools=["echo"], registry=registry)
    thread = await rt.create_thread("p")
    await thread.send("go")
    page = static_html(thread)
    assert page.count("max-height:20em;overflow:auto") == 2  # the arguments and the result
