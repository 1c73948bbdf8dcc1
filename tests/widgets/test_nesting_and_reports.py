"""Nesting as it happened: a subagent's calls under the child, never the lead's, and its
report as a report from that child — in the replayed state, the static HTML and the text."""

from __future__ import annotations

import threadlab as tl
from threadlab.models import text
from threadlab.widgets import replay, static_html
from threadlab.widgets._static import static_text

from ..runtime.test_subagents import create, lead, worker


async def test_a_childs_calls_and_report_belong_to_the_child(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    worker(registry)
    steps = [create("w1", "write notes"), text("waiting"), text("all done")]
    lead(registry, steps, tl.Subagent("worker", blocking=False))
    thread = await rt.create_thread("boss")
    await thread.send("go")

    state = replay(rt.thread(thread.id))
    child_id = next(t["id"] for t in state.threads.values() if t["parent"] == thread.id)
    finish = next(c for c in state.cards.values() if c["name"] == "finish")
    assert finish["thread"] == child_id  # the child's call, not the lead's
    reports = [m for m in state.messages[thread.id] if m["subagent"]]
    assert [m["subagent"] for m in reports] == [child_id]

    summary = static_text(state).splitlines()
    lead_lines = summary[1 : summary.index(next(s for s in summary if "subagent w1" in s))]
    assert not any("finish" in line for line in lead_lines)
    child_at = next(i for i, s in enumerate(summary) if "subagent w1" in s)
    assert any("] finish" in line and line.startswith("    ") for line in summary[child_at:])

    page = static_html(state)
    assert "<b>report from w1 [" in page
    assert "📎 /attachments/" in page
    assert page.index("report from w1") < page.index("all done")
