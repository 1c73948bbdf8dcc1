"""The spans are the thread's steps (`thread.steps()`, the one reading every view uses): each
model step's and call's span has that step's times, a call that waited for a decision across
two runs is one step in both traces, and a child's runs hang under the call the steps say
created it."""

from __future__ import annotations

from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import threadlab as tl
from threadlab.models import ScriptedModel, call, text

from ..execution.test_subagents import create, helper, lead
from ..helpers import scripted_prompt
from ..runtime.test_steps import deleting
from .test_conventions import attrs, spans_of


def _ns(seconds: float | None) -> int:
    return int((seconds or 0) * 1_000_000_000)


def _times(span: ReadableSpan) -> tuple[int | None, int | None]:
    return span.start_time, span.end_time


async def test_each_span_has_its_steps_times(rt: tl.Runtime, registry: tl.Registry) -> None:
    ran: list[str] = []
    deleting(registry, ran)
    scripted_prompt(
        registry,
        [call("note", {}, id="n1"), call("note", {}, id="n2"), text("noted twice")],
        tools=["note"],
    )
    thread = await rt.create_thread("p")
    await thread.send("note it")
    spans = spans_of(thread, False)
    steps = thread.steps()
    chats = [s for s in spans if s.name.startswith("chat ")]
    models = [s for s in steps if s.kind == "model"]
    assert [_times(s) for s in chats] == [(_ns(m.started_at), _ns(m.ended_at)) for m in models]
    calls = {attrs(s)["gen_ai.tool.call.id"]: s for s in spans if s.name == "execute_tool note"}
    for step in (s for s in steps if s.kind == "tool_call"):
        assert _times(calls[step.tool_call_id or ""]) == (_ns(step.started_at), _ns(step.ended_at))


async def test_a_call_that_waited_for_a_decision_is_one_step_in_both_runs(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    deleting(registry, ran)
    scripted_prompt(registry, [call("delete", {"path": "/a"}, id="d1"), text("gone")],
                    tools=["delete"])  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("delete /a")
    await thread.approve("d1")
    await thread.resume()
    assert ran == ["/a"]
    spans = spans_of(thread, True)
    runs = [s for s in spans if s.name.startswith("invoke_agent")]
    assert len(runs) == 2
    deletes = [s for s in spans if s.name == "execute_tool delete"]
    # The first run left it waiting: there it did not finish; the second ran it.
    assert [d.context.trace_id for d in deletes] == [r.context.trace_id for r in runs]
    assert attrs(deletes[0])["error.type"] == "interrupted"
    assert "error.type" not in attrs(deletes[1])
    assert attrs(deletes[1])["gen_ai.tool.call.result"] == "deleted /a"
    assert deletes[0].context.span_id == deletes[1].context.span_id  # one step
    (step,) = [s for s in thread.steps() if s.kind == "tool_call"]
    assert _times(deletes[1]) == (_ns(step.started_at), _ns(step.ended_at))
    # The answer after the decision is a model step of the second run, from its start.
    second = [s for s in spans if s.name.startswith("chat ")][-1]
    assert second.context.trace_id == runs[1].context.trace_id
    assert (second.start_time or 0) >= (runs[1].start_time or 0)


async def test_a_childs_run_hangs_under_the_call_the_steps_say_created_it(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead(registry, [create("w1", "write notes"), text("done")], tl.Subagent("helper"))
    thread = await rt.create_thread("boss")
    await thread.send("go")
    steps = thread.steps()
    (created,) = [s for s in steps if s.kind == "subagent" and s.event == "created"]
    creator = next(s for s in steps if s.id == created.parent_id)
    spans = spans_of(thread, False)
    by_id: dict[Any, ReadableSpan] = {s.context.span_id: s for s in spans}
    children = [s for s in spans if s.name.startswith("invoke_agent") and s.parent is not None]
    assert children
    for child in children:
        parent = by_id[child.parent.span_id if child.parent else None]
        assert attrs(parent)["gen_ai.tool.call.id"] == creator.tool_call_id


async def test_a_call_id_the_model_repeats_is_two_calls(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # A model may give a later step's call the id of an earlier one: two calls ran, two
    # steps, two spans (one span, read by its id, hid the first call).
    ran: list[str] = []
    deleting(registry, ran)
    scripted_prompt(
        registry,
        [call("note", {}, id="same"), call("note", {}, id="same"), text("noted twice")],
        tools=["note"],
    )
    thread = await rt.create_thread("p")
    await thread.send("note it")
    spans = [s for s in spans_of(thread, True) if s.name == "execute_tool note"]
    calls = [s for s in thread.steps() if s.kind == "tool_call"]
    assert len(calls) == 2
    assert len({s.context.span_id for s in spans}) == len(spans) == 2
    assert [_times(s) for s in spans] == [(_ns(c.started_at), _ns(c.ended_at)) for c in calls]


async def test_each_span_has_only_its_own_calls_events_when_an_id_repeats(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    def tag(state: tl.ThreadState, args: dict[str, Any]) -> str:
        state.emit("mark", {"tag": args["tag"]})
        if args["tag"] == "second":
            raise ValueError("second failed")
        return f"ok {args['tag']}"

    tl.define_tool("tag", description="Tag.", execute=tag, progress_argument="tag",
                   args={"type": "object", "properties": {"tag": {"type": "string"}}},
                   registry=registry)  # fmt: skip
    scripted_prompt(registry, [call("tag", {"tag": "first"}, id="x"),
                               call("tag", {"tag": "second"}, id="x"), text("done")],
                    tools=["tag"])  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    first, second = [s for s in spans_of(thread, True) if s.name == "execute_tool tag"]
    told = [[(e.name, dict(e.attributes or {})) for e in s.events] for s in (first, second)]
    assert told[0] == [
        ("progress", {"threadlab.progress": "first"}),
        ("mark", {"threadlab.data": '{"tag": "first"}'}),
    ]
    assert [name for name, _ in told[1]] == ["progress", "exception", "mark"]
    assert told[1][0][1] == {"threadlab.progress": "second"}
    assert "error.type" not in attrs(first)
    assert attrs(second)["error.type"] == "ValueError"


async def test_a_childs_later_run_is_in_the_parents_run_it_happened_in(
    registry: tl.Registry, store_dir: Any
) -> None:
    # A blocking child waits for a decision, so the parent's run ends waiting; once decided
    # and resumed, the child's second run belongs to the parent's second trace (it was in
    # the first one's, after that run had ended, and in none when sent live).
    tl.define_tool("delete", description="D.", execute=lambda s, a: "deleted",
                   approval="always", registry=registry)  # fmt: skip
    tl.define_prompt(
        "work",
        prompt="W.",
        tools=["delete"],
        registry=registry,
        model=ScriptedModel([call("delete", {}, id="cd"), text("child done")]),
    )
    tl.define_agent("helper", side_a=tl.Side("work"), registry=registry)
    lead(registry, [call("subagent_create", {"agent": "helper", "name": "w1", "message": "t"},
                         id="c1"), text("done")], tl.Subagent("helper"))  # fmt: skip
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    rt = tl.Runtime(registry, store_dir, tracer_provider=provider)
    thread = await rt.create_thread("boss")
    first = await thread.send("go")
    await thread.approve("cd")
    second = await thread.resume()
    child_runs = [e.run_id for e in thread.children[0].events if e.type == "run_finished"]
    assert len(child_runs) == 2

    def runs_by_trace(spans: Any) -> dict[str, set[str]]:
        traced: dict[Any, str] = {
            s.context.trace_id: attrs(s)["threadlab.run.id"]
            for s in spans
            if s.name == "invoke_agent boss"
        }
        found: dict[str, set[str]] = {}
        for s in spans:
            if s.name.startswith("invoke_agent"):
                found.setdefault(traced[s.context.trace_id], set()).add(
                    attrs(s)["threadlab.run.id"]
                )
        return found

    expected = {first.id: {first.id, child_runs[0]}, second.id: {second.id, child_runs[1]}}
    assert runs_by_trace(exporter.get_finished_spans()) == expected  # live
    assert runs_by_trace(spans_of(thread, False)) == expected  # exported again
    rt.close()


async def test_a_call_still_waiting_when_a_later_run_ends_is_in_that_runs_trace(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    deleting(registry, ran)
    scripted_prompt(registry, [call("delete", {"path": "/a"}, id="d1"), text("gone")],
                    tools=["delete"])  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("delete /a")
    again = await thread.resume()  # undecided: the run ends waiting on it again
    assert again.status == "waiting"
    spans = spans_of(thread, False)
    runs = {attrs(s)["threadlab.run.id"]: s.context.trace_id for s in spans
            if s.name.startswith("invoke_agent")}  # fmt: skip
    deletes = [s for s in spans if s.name == "execute_tool delete"]
    assert sorted(d.context.trace_id for d in deletes) == sorted(runs.values())
    assert all(attrs(d)["error.type"] == "interrupted" for d in deletes)
