"""thread.steps(): a thread's history read once into steps — model steps, calls, pauses,
subagents' moments, turns — each with its place, its times and its status as of its own end.
A past step never reads "running"; a child's "created" step comes before any of its steps;
time paused is no step's."""

from __future__ import annotations

import asyncio
from typing import Any

import threadlab as tl
from threadlab.models import call, step, text
from threadlab.runtime._explain import explain_paragraphs
from threadlab.widgets._replay import replay

from ..execution.test_prompt_tools import NESTED_STEPS, caller, researcher
from ..execution.test_subagents import create, create_then, helper, lead
from ..helpers import HangingTool, desks, scripted_prompt


def kinds(steps: list[tl.StepRecord]) -> list[tuple[str, str]]:
    return [(s.kind, s.reason or s.event or s.side or s.name or "") for s in steps]


def deleting(registry: tl.Registry, ran: list[str]) -> None:
    def delete(state: tl.ThreadState, args: dict[str, Any]) -> str:
        ran.append(args["path"])
        return f"deleted {args['path']}"

    path = {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}
    tl.define_tool("delete", description="Delete.", execute=delete, args=path,
                   approval="always", registry=registry)  # fmt: skip
    tl.define_tool("note", description="Note.", execute=lambda s, a: "noted", registry=registry)


async def test_a_model_step_its_calls_and_their_results(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    numbers = {"type": "object", "properties": {"a": {"type": "integer"},
               "b": {"type": "integer"}}}  # fmt: skip
    tl.define_tool("add", description="Add.", execute=lambda s, a: a["a"] + a["b"],
                   args=numbers, registry=registry)  # fmt: skip
    scripted_prompt(registry, [call("add", {"a": 2, "b": 3}, id="c1"), text("5")], tools=["add"])
    thread = await rt.create_thread("p")
    await thread.send("What is 2 + 3?")
    steps = thread.steps()
    assert kinds(steps) == [("model", ""), ("tool_call", "add"), ("model", "")]
    first, added, answer = steps
    assert first.message_id == first.id
    assert first.status == answer.status == "completed"
    assert (added.tool_call_id, added.arguments, added.result, added.tool_status) == (
        "c1",
        {"a": 2, "b": 3},
        "5",
        "success",
    )
    assert added.parent_id is None
    assert added.id == f"call:{first.id}:c1"
    assert added.message_id == first.message_id  # the model step that made it
    assert all(s.ended and s.thread_id == thread.id and s.depth == 0 for s in steps)
    assert first.started_at <= (first.ended_at or 0) <= added.started_at <= (added.ended_at or 0)
    assert first.request is not None  # what it was sent, read when asked
    assert [m.content for m in first.request.messages if m.role == "user"] == ["What is 2 + 3?"]
    assert thread.steps() == steps  # the same on every read


async def test_a_decision_is_a_pause_and_the_call_runs_as_edited(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    deleting(registry, ran)
    scripted_prompt(registry, [call("delete", {"path": "/a"}), text("done")], tools=["delete"])
    thread = await rt.create_thread("p")
    run = await thread.send("clean up")
    assert run.status == "waiting"
    _, waiting, pause = thread.steps()
    assert (waiting.kind, waiting.status, waiting.ended_at) == ("tool_call", "waiting", None)
    assert (pause.kind, pause.reason, pause.status) == ("pause", "decision", "waiting")
    assert pause.tool_call_id == waiting.tool_call_id
    assert pause.parent_id == waiting.id  # the call it holds back
    await asyncio.sleep(0.05)  # a person takes a while: the wait is the pause's, not the call's
    await thread.approve(waiting.tool_call_id or "", arguments={"path": "/tmp/a"})
    await thread.resume()
    steps = thread.steps()
    assert kinds(steps) == [("model", ""), ("tool_call", "delete"), ("pause", "decision"),
                            ("model", "")]  # fmt: skip
    _, ran_call, paused, _ = steps
    assert paused.status == "completed"
    assert paused.ended_at is not None
    decision = ran_call.decision
    assert decision is not None
    assert (decision.approved, decision.edited, decision.by) == (True, True, "api")
    assert (ran_call.arguments, ran_call.proposed_arguments) == ({"path": "/tmp/a"},
                                                                 {"path": "/a"})  # fmt: skip
    assert ran_call.started_at >= paused.ended_at
    assert ran == ["/tmp/a"]


async def test_the_calls_after_one_that_waits_for_a_decision_wait_too_until_they_run(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # A run that pauses for a decision interrupts nothing: the calls after the one that
    # waits never started, and each runs (or asks) when a resume reaches it.
    ran: list[str] = []
    deleting(registry, ran)
    asks = step(*(call("delete", {"path": p}, id=i) for p, i in (("/a", "d1"), ("/b", "d2"),
                                                                  ("/c", "d3"))))  # fmt: skip
    scripted_prompt(registry, [asks, text("done")], tools=["delete"])
    thread = await rt.create_thread("p")
    await thread.send("clean up")

    def calls() -> dict[str, tuple[str, bool]]:
        return {
            s.tool_call_id or "": (s.status, s.ended_at is None)
            for s in thread.steps()
            if s.kind == "tool_call"
        }

    assert calls() == {"d1": ("waiting", True), "d2": ("waiting", True), "d3": ("waiting", True)}
    await thread.reject("d1", "no")
    await thread.resume()  # d2 asks in its turn
    assert calls() == {"d1": ("completed", False), "d2": ("waiting", True),
                       "d3": ("waiting", True)}  # fmt: skip
    await thread.approve("d2")
    await thread.resume()
    await thread.approve("d3")
    await thread.resume()
    assert calls() == {"d1": ("completed", False), "d2": ("completed", False),
                       "d3": ("completed", False)}  # fmt: skip
    assert ran == ["/b", "/c"]


async def test_step_mode_pauses_before_a_tool_and_before_a_model_step(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    deleting(registry, [])
    scripted_prompt(registry, [call("note"), text("done")], tools=["note"])
    thread = await rt.create_thread("p")
    await thread.send("go", step="model")
    (paused,) = thread.steps()
    assert (paused.kind, paused.reason, paused.status) == ("pause", "before_model", "waiting")
    await asyncio.sleep(0.1)
    await thread.resume(step=True)  # the model step, then a pause before the call
    steps = thread.steps()
    assert kinds(steps)[:3] == [("pause", "before_model"), ("model", ""), ("tool_call", "note")]
    before_model, model, _ = steps[:3]
    assert before_model.status == "completed"
    # The model's time starts when the run went on, not while the run was paused.
    assert model.started_at >= (before_model.ended_at or 0)
    assert (model.duration_s or 0) < 0.1
    (before_tool,) = [s for s in steps if s.reason == "before_tool"]
    assert before_tool.status == "waiting"


async def test_a_subagent_is_created_before_its_first_step_and_its_steps_hang_under_the_call(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    lead = create_then(lambda ref: text("all done"))
    tl.define_prompt("lead", prompt="Lead.", model=lead, registry=registry)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]),
                    registry=registry)  # fmt: skip
    thread = await rt.create_thread("boss")
    await thread.send("go")
    (child,) = thread.children
    steps = thread.steps()
    (creating,) = [s for s in steps if s.kind == "tool_call" and s.name == "subagent_create"]
    (created,) = [s for s in steps if s.event == "created"]
    own = [s for s in steps if s.thread_id == child.id]
    assert own  # the child's steps are in the parent's reading
    assert steps.index(created) < steps.index(own[0])
    assert created.parent_id == creating.id
    assert (created.child_thread_id, created.thread_id) == (child.id, thread.id)
    assert all(s.parent_id == creating.id for s in own if s.depth == 0 and s.kind != "turn")
    (finished,) = [s for s in steps if s.event == "finished"]
    assert (finished.child_thread_id, finished.status) == (child.id, "completed")
    assert steps.index(finished) > steps.index(own[-1])
    (turn,) = [s for s in own if s.kind == "turn"]  # the child is a dual_ai session
    assert turn.side == "a"


async def test_a_handoff_is_the_next_agents_turn_caused_by_its_call(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    front = tl.models.ScriptedModel([call("billing", {"message": "invoice"}, id="call_hand")])
    back = tl.models.ScriptedModel([text("billing here")])
    desks(registry, front, back)
    thread = await rt.create_thread("support")
    assert (await thread.send("my invoice")).text == "billing here"
    steps = thread.steps()
    assert kinds(steps) == [
        ("model", ""), ("tool_call", "billing"), ("turn", "billing"), ("model", ""),
    ]  # fmt: skip
    handing, turn, answer = steps[1:]
    assert (turn.parent_id, turn.started_at) == (handing.id, turn.started_at)
    assert handing.started_at <= turn.started_at <= answer.ended_at  # type: ignore[operator]
    assert (turn.status, turn.ended_at is not None) == ("completed", True)  # its run ended
    assert turn.message_id == thread.messages[0].id  # the message it answers
    # The handoff is an event of its own, as the thread streamed it and stored it.
    (handoff,) = [e for e in thread.events if isinstance(e, tl.HandoffEvent)]
    assert (handoff.agent, handoff.tool_call_id) == ("billing", "call_hand")


async def test_a_prompt_tools_nested_turn_hangs_under_its_call(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    researcher(registry, NESTED_STEPS)
    caller(registry, [call("researcher", {"message": "what is it?"}), text("done")],
           ["researcher"])  # fmt: skip
    thread = await rt.create_thread("main")
    await thread.send("go")
    steps = thread.steps()
    (prompt_call,) = [s for s in steps if s.name == "researcher"]
    nested = [s for s in steps if s.depth == 1]
    assert kinds(nested) == [("model", ""), ("tool_call", "search"), ("tool_call", "fail"),
                             ("model", "")]  # fmt: skip
    assert all(s.parent_id == prompt_call.id for s in nested)
    assert nested[2].tool_status == "error"
    assert prompt_call.started_at <= nested[0].started_at
    assert nested[-1].ended_at is not None
    assert nested[-1].ended_at <= (prompt_call.ended_at or 0)


async def test_a_call_whose_run_was_interrupted_is_never_running_again(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    hanging = HangingTool()
    tl.define_tool("wait", description="Wait.", execute=hanging, registry=registry)
    scripted_prompt(registry, [call("wait"), text("ok")], tools=["wait"])
    thread = await rt.create_thread("p")
    task = asyncio.ensure_future(thread.send("go"))
    await hanging.entered.wait()
    (_, running) = thread.steps()
    assert (running.status, running.ended_at) == ("running", None)  # its run goes on
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    (_, interrupted) = thread.steps()
    assert interrupted.status == "interrupted"
    assert interrupted.ended_at is not None
    assert interrupted.tool_status == "error"


async def test_a_tool_that_says_it_was_interrupted_still_finished(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    words = "interrupted: the run was stopped before this call finished"

    def raising(state: tl.ThreadState, args: Any) -> str:
        raise RuntimeError(words)

    tl.define_tool("says", description="S.", execute=lambda s, a: words, registry=registry)
    tl.define_tool("raises", description="R.", execute=raising, registry=registry)
    scripted_prompt(registry, [step(call("says"), call("raises")), text("ok")],
                    tools=["says", "raises"])  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    calls = [s for s in thread.steps() if s.kind == "tool_call"]
    assert [(c.status, c.tool_status) for c in calls] == [
        ("completed", "success"),
        ("completed", "error"),
    ]
    cards = replay(thread).cards
    assert [cards[c.tool_call_id or ""]["status"] for c in calls] == ["success", "error"]


async def test_a_branch_cut_at_a_call_has_it_waiting_not_running(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("note", description="Note.", execute=lambda s, a: "noted", registry=registry)
    scripted_prompt(registry, [step(call("note", id="c1"), call("note", id="c2")), text("ok"),
                               text("again")],
                    tools=["note"])  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    branch = await thread.fork("c2")  # cut inside the run: c1 ran, c2 never did here
    _, first, second = branch.steps()
    assert (first.status, first.tool_status) == ("completed", "success")
    assert (second.tool_call_id, second.status, second.ended_at) == ("c2", "waiting", None)
    await branch.resume()  # it runs now, and reads as any call that ran
    _, _, ran, _ = branch.steps()
    assert (ran.tool_call_id, ran.status, ran.result) == ("c2", "completed", "noted")


async def test_a_replayed_step_is_marked_and_the_fallbacks_is_not(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    scripted_prompt(registry, [text("hello")])
    recorded = await rt.create_thread("p")
    await recorded.send("hi")
    fallback = tl.models.ScriptedModel([text("something new")])
    replay = await rt.create_thread("p", model=tl.models.ReplayModel(recorded, fallback=fallback))
    await replay.send("hi")
    await replay.send("and now?")
    assert [s.replayed for s in replay.steps()] == [True, False]
    assert [s.model for s in replay.steps()] == ["replay", "scripted"]


async def test_a_model_that_repeats_call_ids_gets_one_step_each_with_its_own_result(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("echo", description="Echo.", execute=lambda s, a: a["n"],
                   args={"type": "object", "properties": {"n": {"type": "integer"}}},
                   registry=registry)  # fmt: skip
    # Twice in one step, once more in the next, and once inside a prompt tool's own turn.
    scripted_prompt(registry, [call("echo", {"n": 1}, id="c1"), text("inner done")],
                    name="inner", tools=["echo"], expose_as_tool=True)  # fmt: skip
    scripted_prompt(registry, [step(call("echo", {"n": 2}, id="c1"), call("echo", {"n": 3},
                    id="c1")), call("inner", {"message": "go"}, id="c1"), text("done")],
                    tools=["echo", "inner"])  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    calls = [s for s in thread.steps() if s.kind == "tool_call"]
    assert len({s.id for s in calls}) == len(calls) == 4
    assert [(s.depth, s.name, s.result) for s in calls] == [
        (0, "echo", "2"), (0, "echo", "3"), (0, "inner", calls[2].result), (1, "echo", "1")
    ]  # fmt: skip
    assert "inner done" in (calls[2].result or "")
    assert all(s.status == "completed" for s in calls)
    assert calls[3].parent_id == calls[2].id


async def test_each_child_hangs_under_the_call_that_created_it(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    tl.define_prompt("lead", prompt="Lead.", registry=registry, model=tl.models.ScriptedModel([
        step(call("subagent_create", {"agent": "helper", "name": "w1", "message": "one"}),
             call("subagent_create", {"agent": "helper", "name": "w2", "message": "two"})),
        text("both done"),
    ]))  # fmt: skip
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]),
                    registry=registry)  # fmt: skip
    thread = await rt.create_thread("boss")
    await thread.send("go")
    steps = thread.steps()
    creating = [s for s in steps if s.name == "subagent_create"]
    for call_step, child in zip(creating, thread.children, strict=True):
        (created,) = [s for s in steps if s.event == "created" and s.child_thread_id == child.id]
        assert created.parent_id == call_step.id
        own = [s for s in steps if s.thread_id == child.id and s.depth == 0 and s.kind != "turn"]
        assert own
        assert {s.parent_id for s in own} == {call_step.id}


async def test_a_non_blocking_childs_report_is_a_step_of_its_parent(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # created (under its call), its own steps, finished, then reported where the parent
    # stored its report; every one of them ended, none "running".
    helper(registry)
    lead(registry, [create(), text("waiting"), text("got it")],
         tl.Subagent("helper", blocking=False))  # fmt: skip
    thread = await rt.create_thread("boss")
    await thread.send("go")
    (child,) = thread.children
    steps = thread.steps()
    moments = [s for s in steps if s.kind == "subagent"]
    assert [s.event for s in moments] == ["created", "finished", "reported"]
    created, finished, reported = moments
    own = [s for s in steps if s.thread_id == child.id]
    assert steps.index(created) < steps.index(own[0])
    assert steps.index(finished) > steps.index(own[-1])
    assert (reported.thread_id, reported.child_thread_id, reported.status) == (
        thread.id,
        child.id,
        "completed",
    )
    report = next(m for m in thread.messages if m.subagent_id == child.id)
    assert reported.id == f"subagent:{child.id}:reported:{report.id}"
    # The answer to the report is the parent's last model step, after it.
    answer = [s for s in steps if s.thread_id == thread.id and s.kind == "model"][-1]
    assert steps.index(answer) > steps.index(reported)
    assert all(s.ended and s.status != "running" for s in steps)


async def test_hostile_call_ids_give_each_call_its_own_step(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # Ids a model chose: one repeated in a step, one that looks like a repeat's ("a#1").
    scripted_prompt(
        registry,
        [step(call("note", {"n": 1}, id="a"), call("note", {"n": 2}, id="a#1"),
              call("note", {"n": 3}, id="a")), text("ok")],
        tools=["note"],
    )  # fmt: skip
    tl.define_tool("note", description="Note.", execute=lambda s, a: f"noted {a['n']}",
                   args={"type": "object", "properties": {"n": {"type": "integer"}}},
                   registry=registry)  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    calls = [s for s in thread.steps() if s.kind == "tool_call"]
    assert len({s.id for s in calls}) == 3
    # The id the step gave twice is made its own for the second call (see the next test).
    assert [(s.tool_call_id, s.result) for s in calls] == [
        ("a", "noted 1"),
        ("a#1", "noted 2"),
        ("a_2", "noted 3"),
    ]


async def test_a_repeated_id_in_one_step_gives_each_child_and_nested_turn_its_own_call(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    helper(registry)
    researcher(registry, [text("answer one"), text("answer two")])
    model = tl.models.ScriptedModel(
        [step(call("subagent_create", {"agent": "helper", "name": "w1", "message": "one"},
                   id="c"),
              call("subagent_create", {"agent": "helper", "name": "w2", "message": "two"},
                   id="c")),
         step(call("researcher", {"message": "q1"}, id="r"),
              call("researcher", {"message": "q2"}, id="r")),
         text("done")]
    )  # fmt: skip
    tl.define_prompt("lead", prompt="Lead.", model=model, tools=["researcher"], registry=registry)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]),
                    registry=registry)  # fmt: skip
    thread = await rt.create_thread("boss")
    await thread.send("go")
    steps = thread.steps()
    by_id = {s.id: s for s in steps}
    created = [s for s in steps if s.event == "created"]
    assert [by_id[s.parent_id or ""].arguments["name"] for s in created] == ["w1", "w2"]
    nested = [s for s in steps if s.depth == 1 and s.kind == "model"]
    assert [by_id[s.parent_id or ""].arguments["message"] for s in nested] == ["q1", "q2"]
    results = [by_id[s.parent_id or ""].result or "" for s in nested]
    assert ["answer one" in results[0], "answer two" in results[1]] == [True, True]


async def test_a_start_told_again_after_a_pause_is_not_a_later_calls(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # The call that waited is started again when its run goes on: that start (its progress)
    # is its own, not that of a later call the model gives the same id.
    path = {"type": "object", "properties": {"path": {"type": "string"}}}
    tl.define_tool(
        "delete",
        description="Delete.",
        execute=lambda s, a: f"deleted {a['path']}",
        args=path,
        progress_argument="path",
        approval="always",
        registry=registry,
    )
    tl.define_tool("note", description="Note.", execute=lambda s, a: "noted", args=path,
                   progress_argument="path", registry=registry)  # fmt: skip
    scripted_prompt(registry, [call("delete", {"path": "/old"}, id="x"),
                               call("note", {"path": "/new"}, id="x"), text("done")],
                    tools=["delete", "note"])  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    await thread.approve("x")
    await thread.resume()
    delete, note = [s for s in thread.steps() if s.kind == "tool_call"]
    assert (delete.progress, delete.result) == ("/old", "deleted /old")
    assert (note.progress, note.result) == ("/new", "noted")
    told = [p.title for p in explain_paragraphs(thread) if p.kind == "tool"]
    assert told[1].startswith("The call of `note`")
    assert told[1].endswith("new”)")


async def test_a_decision_goes_to_the_call_that_waits_for_it_not_an_earlier_one_of_its_id(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    ran: list[str] = []
    deleting(registry, ran)
    scripted_prompt(registry, [step(call("note", {}, id="a"), call("delete", {"path": "/p"},
                                                                  id="a")), text("done")],
                    tools=["delete", "note"])  # fmt: skip
    thread = await rt.create_thread("p")
    await thread.send("go")
    note, delete = [s for s in thread.steps() if s.kind == "tool_call"]
    (pause,) = [s for s in thread.steps() if s.kind == "pause"]
    assert (note.status, delete.status) == ("completed", "waiting")
    assert pause.id.startswith(f"pause:{delete.id}:")
