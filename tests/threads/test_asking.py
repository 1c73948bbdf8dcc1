"""A tool that asks its caller, outside a served call: `state.elicit` goes to the runtime's
elicitor (sync or async), `state.sample` to the thread's own model, spent from the run. A form
MCP cannot carry is refused before anyone is asked; with nobody to ask, the error names what
to configure; a secret in an answer is stored redacted."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import FinishChunk, ModelRequest, TextChunk, ToolCallChunk, call, text

from ..helpers import scripted_prompt, tool_messages

FORM = {
    "type": "object",
    "properties": {
        "city": {"type": "string", "enum": ["Oslo", "Rome"]},
        "nights": {"type": "integer", "minimum": 1, "default": 2},
    },
    "required": ["city"],
}


def asking_tool(registry: tl.Registry, schema: Any = FORM) -> None:
    @tl.tool(registry=registry)
    async def trip(state: tl.ThreadState) -> str:
        """Plan a trip, asking where to."""
        answer = await state.elicit("Where to?", schema)
        return "no trip" if answer is None else json.dumps(answer)


async def run_tool(rt: tl.Runtime, registry: tl.Registry, tool: str = "trip") -> str:
    scripted_prompt(registry, [call(tool, {}), text("done")], tools=[tool])
    thread = await rt.create_thread("p")
    await thread.send("go")
    (result,) = tool_messages(thread)
    return result.content or ""


async def test_a_sync_elicitor_answers_the_tools_form_with_its_defaults_filled_in(
    registry: tl.Registry, store_dir: Any
) -> None:
    asked: list[tl.Elicitation] = []

    def person(question: tl.Elicitation) -> dict[str, Any]:
        asked.append(question)
        return {"city": "Oslo"}

    asking_tool(registry)
    rt = tl.Runtime(registry, store_dir, elicitor=person)
    try:
        assert await run_tool(rt, registry) == '{"city": "Oslo", "nights": 2}'
        (question,) = asked
        (thread,) = rt.threads()
        call_id = thread.messages[1].tool_calls[0].id
        assert (question.tool, question.server, question.message) == ("trip", "", "Where to?")
        assert (question.thread_id, question.tool_call_id) == (thread.id, call_id)
        assert question.schema == FORM
    finally:
        rt.close()


async def test_an_async_elicitor_that_declines_gives_the_tool_none(
    registry: tl.Registry, store_dir: Any
) -> None:
    async def person(question: tl.Elicitation) -> None:
        return None

    asking_tool(registry)
    rt = tl.Runtime(registry, store_dir, elicitor=person)
    try:
        assert await run_tool(rt, registry) == "no trip"
    finally:
        rt.close()


async def test_a_sync_tool_asks_through_state_sync(registry: tl.Registry, store_dir: Any) -> None:
    @tl.tool(registry=registry)
    def trip(state: tl.ThreadState) -> str:
        """Plan a trip, asking where to."""
        return json.dumps(state.sync.elicit("Where to?", FORM))

    rt = tl.Runtime(registry, store_dir, elicitor=lambda question: {"city": "Rome"})
    try:
        assert await run_tool(rt, registry) == '{"city": "Rome", "nights": 2}'
    finally:
        rt.close()


async def test_with_nobody_to_ask_the_error_names_what_to_configure(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    asking_tool(registry)
    said = await run_tool(rt, registry)
    assert said.startswith("CallContextError: tool 'trip' asks the person (state.elicit), and"
                           " nobody can be asked: give the runtime an elicitor")  # fmt: skip
    assert "tl.mcp.serve" in said


@pytest.mark.parametrize(
    ("schema", "why"),
    [
        ({"type": "string"}, "a form's schema is a JSON Schema object"),
        (
            {"type": "object", "properties": {"where": {"type": "object", "properties": {}}}},
            "field 'where' cannot be asked in a form",
        ),
        (
            {"type": "object", "properties": {"zip": {"type": "string", "pattern": "^[0-9]+$"}}},
            "field 'zip': 'pattern' is not part of MCP's forms",
        ),
        (
            {
                "type": "object",
                "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
            },
            "field 'tags': an array field is several choices of a list",
        ),
        (
            {"type": "object", "properties": {"n": {"type": "integer", "default": "two"}}},
            "field 'n': its default is a number, got 'two'",
        ),
        ({"type": "object", "properties": {}, "required": ["city"]}, "the form requires 'city'"),
    ],
)
async def test_a_form_mcp_cannot_carry_is_refused_before_anyone_is_asked(
    registry: tl.Registry, store_dir: Any, schema: dict[str, Any], why: str
) -> None:
    asked: list[tl.Elicitation] = []

    def person(question: tl.Elicitation) -> dict[str, Any]:
        asked.append(question)
        return {}

    asking_tool(registry, schema)
    rt = tl.Runtime(registry, store_dir, elicitor=person)
    try:
        said = await run_tool(rt, registry)
        assert said.startswith(f"ElicitationError: {why}"), said
        assert asked == []
    finally:
        rt.close()


async def test_a_secret_in_the_answer_is_stored_redacted_and_the_tool_gets_it_whole(
    registry: tl.Registry, store_dir: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-pass-9a8b7c6d5e4f"
    monkeypatch.setenv("PASSWORD", secret)

    @tl.tool(registry=registry, variables=[tl.Variable("PASSWORD", type="secret")])
    async def login(state: tl.ThreadState) -> str:
        """Ask for the password and check it."""
        form = {"type": "object", "properties": {"password": {"type": "string"}}}
        answer = await state.elicit("Your password?", form)
        return "in" if answer == {"password": await state.env("PASSWORD")} else "out"

    rt = tl.Runtime(registry, store_dir, elicitor=lambda question: {"password": secret})
    try:
        assert await run_tool(rt, registry, "login") == "in"
        (thread,) = rt.threads()
        kinds = [e for e in thread.events if isinstance(e, tl.CustomEvent)]
        (answered,) = [e for e in kinds if e.event_type == "elicitation"]
        assert answered.data["answer"] == {"password": "[secret:PASSWORD]"}
    finally:
        rt.close()
    for path in store_dir.rglob("*"):  # in no file of the store (database, WAL, shm)
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path


class Author:
    """Calls name_it, then says "done"; a request that offers no tools (the tool's own) it
    answers "Rex". Each answer counts 5 tokens in and 1 out."""

    name = "author"

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[Any]:
        self.requests.append(request)
        if not request.tools:
            yield TextChunk("Rex")
        elif request.messages[-1].role == "tool":
            yield TextChunk("done")
        else:
            yield ToolCallChunk(index=0, id="call_1", name="name_it")
            yield ToolCallChunk(index=0, arguments="{}")
        yield FinishChunk(usage={"input_tokens": 5, "output_tokens": 1})


def naming(registry: tl.Registry) -> Author:
    @tl.tool(registry=registry)
    async def name_it(state: tl.ThreadState) -> str:
        """Ask the model for a name."""
        try:
            reply = await state.sample(
                [tl.Message(role="system", content="Be brief."),
                 tl.Message(role="user", content="Name a dog.")],
                max_tokens=40,
            )  # fmt: skip
        except tl.SamplingError as error:
            return f"refused: {error}"
        return f"{reply.text} by {reply.model}, {dict(reply.usage or {})}"

    author = Author()
    tl.define_prompt("p", prompt="x", model=author, tools=["name_it"], registry=registry)
    return author


async def test_the_threads_own_model_answers_and_the_run_counts_it(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    author = naming(registry)
    thread = await rt.create_thread("p")
    run = await thread.send("go")
    (said,) = tool_messages(thread)
    assert said.content == "Rex by author, {'input_tokens': 5, 'output_tokens': 1}"
    asked = author.requests[1]
    assert [(m.role, m.content) for m in asked.messages] == [
        ("system", "Be brief."), ("user", "Name a dog.")]  # fmt: skip
    assert asked.max_output_tokens == 40
    assert run.usage == {"input_tokens": 15, "output_tokens": 3}  # two steps and the sampling
    (sampled,) = [e.data for e in thread.events
                  if isinstance(e, tl.CustomEvent) and e.event_type == "sampling"]  # fmt: skip
    assert (sampled["tool"], sampled["model"], sampled["text"]) == ("name_it", "author", "Rex")


async def test_the_runs_budget_refuses_a_request_it_cannot_take(
    registry: tl.Registry, store_dir: Any
) -> None:
    author = naming(registry)
    rt = tl.Runtime(registry, store_dir, budget=tl.Budget(max_tokens=60))
    try:
        thread = await rt.create_thread("p")
        await thread.send("go")
        (said,) = tool_messages(thread)
        # the messages' allowance: ("Be brief." 9 + 16) + ("Name a dog." 11 + 16) + 16
        assert said.content == (
            "refused: sampling refused: the run's budget of 60 tokens has 54 left (6 spent), and"
            " this request's messages may take 68 of them: ask again once the requests in flight"
            " are answered, or raise the budget"
        )
        assert len(author.requests) == 2  # the run's own steps only
    finally:
        rt.close()
