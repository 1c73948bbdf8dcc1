"""What each model step was sent is on record and rebuilt exactly — system prompt, messages
after the hooks that filter them, tools, how they could be called — for every step of a
thread: several turns with earlier ones in view, a prompt tool's nested turn, a hook's
rewrite; and the record of a long thread grows with its history, not with its square."""

from __future__ import annotations

from typing import Any

import threadlab as tl
from threadlab.models import ModelRequest, call, step, text


class Recording:
    """A model that says what its script says and keeps every request it was sent."""

    name = "recording"

    def __init__(self, steps: list[Any]) -> None:
        self.script = tl.models.ScriptedModel(steps)
        self.sent: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> Any:
        self.sent.append(request)
        async for chunk in self.script.stream(request):
            yield chunk


def as_sent(messages: Any) -> list[tuple[Any, ...]]:
    return [(m.role, m.content, tuple((c.id, c.name) for c in m.tool_calls),
             m.tool_call_id) for m in messages]  # fmt: skip


async def test_every_steps_request_is_rebuilt_as_it_was_sent(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("add", description="Add.", execute=lambda s, a: str(a["a"] + a["b"]),
                   args={"type": "object", "properties": {"a": {"type": "integer"},
                                                          "b": {"type": "integer"}}},
                   registry=registry)  # fmt: skip

    def shout(state: tl.ThreadState, messages: list[tl.Message]) -> list[tl.Message]:
        # A hook's rewrite: what the model saw is not what the store holds.
        return [
            m.model_copy(update={"content": (m.content or "").upper()}) if m.role == "user" else m
            for m in messages
        ]

    tl.define_hook(hook="filter_messages", id="shout", execute=shout, registry=registry)
    inner = Recording([text("inner says hi")])
    tl.define_prompt("helper", prompt="Help.", model=inner, expose_as_tool=True,
                     registry=registry)  # fmt: skip
    outer = Recording(
        [
            step(call("add", {"a": 1, "b": 2}, id="c1"), call("helper", {"message": "x"}, id="c2")),
            text("three"),
            call("add", {"a": 3, "b": 4}, id="c3"),
            text("seven"),
        ]
    )
    tl.define_prompt("p", prompt="You add. Region {{env:REGION}}.", model=outer,
                     tools=["add", "helper"], include_chat=True, include_past_tools=True,
                     hooks=["shout"], tool_choice="auto", registry=registry)  # fmt: skip
    thread = await rt.create_thread("p", env={"REGION": "eu"})
    await thread.send("add one and two")
    await thread.send("now three and four")
    steps = [m for m in thread.all_messages() if m.role == "assistant"]
    assert len(steps) == len(outer.sent) + len(inner.sent) == 5
    sent = iter(outer.sent)
    inner_sent = iter(inner.sent)
    for message in steps:
        original = next(inner_sent) if message.depth else next(sent)
        seen = thread.model_request(message.id)
        assert seen is not None
        assert as_sent(seen.messages) == as_sent(original.messages)
        assert [t["name"] for t in seen.tools] == [t.name for t in original.tools]
        assert seen.tools == [
            {"name": t.name, "description": t.description, "parameters": t.parameters}
            for t in original.tools
        ]
        assert seen.tool_choice == original.tool_choice
    last = thread.model_request(steps[-1].id)
    assert last is not None
    assert last.system == "You add. Region eu."
    assert ("user", "NOW THREE AND FOUR", (), None) in as_sent(last.messages)  # the rewrite
    assert thread.model_request(thread.messages[0].id) is None  # a user message: no step


async def test_the_record_of_a_long_thread_is_linear(rt: tl.Runtime, registry: tl.Registry) -> None:
    turns = 60
    model = Recording([text(f"answer {i}") for i in range(turns)])
    tl.define_prompt("p", prompt="Chat.", model=model, include_chat=True, registry=registry)
    thread = await rt.create_thread("p")
    for i in range(turns):
        await thread.send(f"question {i}")
    stored = [m.request for m in thread.messages if m.role == "assistant"]
    entries = sum(len(r.add) for r in stored if r is not None)
    sent = sum(len(r.messages) for r in model.sent)
    assert sent > turns * turns  # what the steps were sent grows with the square
    assert entries <= 3 * turns + 1  # what is stored for them does not
    # ... and the last step is still rebuilt whole, from a fresh Runtime.
    again = tl.Runtime(registry, rt.store)
    seen = again.thread(thread.id).model_request(thread.messages[-1].id)
    assert seen is not None
    assert as_sent(seen.messages) == as_sent(model.sent[-1].messages)


async def test_a_runs_first_step_is_recorded_alike_carried_here_or_rebuilt_from_the_store(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # A run's first step records its request as a delta on the thread's last step: this
    # process keeps that step's request from the run before; a fresh process rebuilds it
    # from the store. Both must record the same delta.
    model = tl.models.FunctionModel(lambda messages, tools: tl.models.text("ok"))
    tl.define_prompt("p", prompt="Chat.", model=model, include_chat=True, registry=registry)
    carried = await rt.create_thread("p")
    rebuilt = await rt.create_thread("p")
    for turn in range(3):
        await carried.send(f"question {turn}")
        fresh = tl.Runtime(registry, rt.store)  # a process that never ran the thread
        await fresh.thread(rebuilt.id).send(f"question {turn}")

    def shape(thread: tl.Thread) -> list[tuple[Any, ...]]:
        steps = [m for m in thread.messages if m.role == "assistant"]
        out = []
        for before, message in zip([None, *steps], steps, strict=False):
            request = message.request
            assert request is not None
            assert request.after == (before.id if before is not None else None)
            out.append((request.keep, [e.ref is not None for e in request.add],
                        request.tools is None, request.parameters is None))  # fmt: skip
        return out

    assert shape(rt.thread(carried.id)) == shape(rt.thread(rebuilt.id))
    later = shape(rt.thread(carried.id))[1:]
    assert all(keep > 0 and tools and parameters for keep, _, tools, parameters in later)


def test_the_messages_a_step_keeps_are_counted_alike_fast_or_one_by_one() -> None:
    from threadlab.execution._request_log import _kept

    system = tl.Message(role="system", content="Chat.")
    again = tl.Message(role="system", content="Chat.")  # a new run's: another id, same text
    user, answer = tl.Message(role="user", content="hi"), tl.Message(role="assistant", content="yo")
    copy = answer.model_copy()  # equal, not the same object
    changed = answer.model_copy(update={"content": "YO"})
    assert _kept([system, user, answer], [again, user, answer, user]) == 3
    assert _kept([system, user, answer], [again, user, copy]) == 3
    assert _kept([system, user, answer], [again, user, changed]) == 2
    assert _kept([system, user], [tl.Message(role="system", content="Other."), user]) == 0
    assert _kept([system, user, system], [again, user, again]) == 3  # text, not id, counts
    assert _kept([], [again]) == 0


async def test_every_steps_request_asked_in_turn_reads_each_message_a_few_times(
    rt: tl.Runtime, registry: tl.Registry, monkeypatch: Any
) -> None:
    """A narration or a player asks each step's request in order: each is rebuilt from the
    one before (no walk back to the first step), and only the last few are kept."""
    turns = 60
    model = Recording([text(f"answer {i}") for i in range(turns)])
    tl.define_prompt("p", prompt="Chat.", model=model, include_chat=True, registry=registry)
    thread = await rt.create_thread("p")
    for i in range(turns):
        await thread.send(f"question {i}")
    fresh = tl.Runtime(registry, rt.store).thread(thread.id)
    history = fresh._context.history
    reads = 0
    find = history.find

    def counted(message_id: str) -> tl.Message | None:
        nonlocal reads
        reads += 1
        return find(message_id)

    monkeypatch.setattr(history, "find", counted)
    steps = [m for m in fresh.messages if m.role == "assistant"]
    for i, message in enumerate(steps):
        seen = fresh.model_request(message.id)
        assert seen is not None
        assert as_sent(seen.messages) == as_sent(model.sent[i].messages)
    assert reads <= 4 * turns  # with a walk back to the first step each time: ~turns²/2
    assert len(fresh._requests) <= fresh._requests.keep
    # Asked out of order, the answer is the same.
    assert as_sent(fresh.model_request(steps[3].id).messages) == as_sent(model.sent[3].messages)  # type: ignore[union-attr]
