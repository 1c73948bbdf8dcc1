"""A served tool that asks its caller: `state.elicit` is a form for the MCP client's person,
`state.sample` a request for the client's model — each only where the client declared it can
answer (else the call's error says so at once), the message leaving with the thread's secrets
redacted, the answer checked against the form."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from mcp import types

import threadlab as tl
from threadlab.models import ScriptedModel, text
from threadlab.models import call as call_tool

from .test_serve import client_of

pytestmark = pytest.mark.processes  # the endpoint serves over a socket, to the SDK's client

TABLE = {
    "type": "object",
    "properties": {
        "seats": {"type": "integer", "minimum": 1, "description": "How many seats"},
        "terrace": {"type": "boolean", "default": False},
    },
    "required": ["seats"],
}
TOKEN = "sk-shop-7f3e9a1b2c4d"


def booking_registry() -> tl.Registry:
    registry = tl.Registry()

    @tl.tool(registry=registry, variables=[tl.Variable("SHOP_TOKEN", type="secret")])
    async def book(state: tl.ThreadState, restaurant: str) -> str:
        """Book a table, asking how many seats."""
        token = await state.env("SHOP_TOKEN")
        answer = await state.elicit(f"Book {restaurant} (account {token})?", TABLE)
        return "not booked" if answer is None else f"booked {json.dumps(answer)}"

    @tl.tool(registry=registry)
    async def name_it(state: tl.ThreadState, thing: str) -> str:
        """Ask the model for a name."""
        reply = await state.sample(
            [tl.Message(role="system", content="Be brief."),
             tl.Message(role="user", content=f"Name a {thing}.")],
            max_tokens=30,
        )  # fmt: skip
        return f"{reply.text} (by {reply.model}, {reply.stop_reason})"

    steps = [call_tool("book", {"restaurant": "Noma"}), text("asked")]
    tl.define_prompt("concierge", prompt="Book.", tools=["book"], expose_as_tool=True,
                     model=ScriptedModel(steps), registry=registry)  # fmt: skip
    return registry


def form_answering(*answers: dict[str, Any] | None) -> tuple[Any, list[types.ElicitRequestParams]]:
    """An elicitation callback giving these answers in turn (None: declines), and the forms
    it was shown."""
    shown: list[types.ElicitRequestParams] = []
    queue = list(answers)

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        shown.append(params)
        given = queue.pop(0)
        if given is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=given)

    return answer, shown


@dataclass(frozen=True)
class Answer:
    is_error: bool
    text: str


async def call(
    store_dir: Path, tool: str, arguments: dict[str, Any], mode: str = "legacy", **client: Any
) -> tuple[Answer, dict[str, list[Any]]]:
    """Serve the registry, call `tool` from the SDK's client (2025 protocols, unless `mode`
    says otherwise) with `client`'s callbacks; whether it failed and its text, and the data
    of the call's thread's custom events by type."""
    rt = tl.Runtime(booking_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service, mode=mode, **client) as mcp_client:
            async with asyncio.timeout(30):  # an answer, never a wait
                result = await mcp_client.call_tool(tool, arguments)
        (thread,) = rt.threads()
        events: dict[str, list[Any]] = {}
        for event in thread.events:
            if isinstance(event, tl.CustomEvent):
                events.setdefault(event.event_type, []).append(event.data)
        (said,) = result.content
        assert isinstance(said, types.TextContent)
        return Answer(result.is_error, said.text), events
    finally:
        await service.close()
        await rt.aclose()


async def test_the_clients_person_answers_the_tools_form_and_the_tool_gets_the_answer(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_TOKEN", TOKEN)
    callback, shown = form_answering({"seats": 4})
    result, events = await call(store_dir, "book", {"restaurant": "Noma"},
                                elicitation_callback=callback)  # fmt: skip
    assert (result.is_error, result.text) == (
        False, 'booked {"seats": 4, "terrace": false}')  # fmt: skip
    (form,) = shown
    assert isinstance(form, types.ElicitRequestFormParams)
    assert form.requested_schema == TABLE
    (answered,) = events["elicitation"]
    assert (answered["tool"], answered["action"], answered["answer"]) == (
        "book", "accept", {"seats": 4, "terrace": False})  # fmt: skip


async def test_a_secret_in_the_tools_message_leaves_redacted(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_TOKEN", TOKEN)
    callback, shown = form_answering(None)
    await call(store_dir, "book", {"restaurant": "Noma"}, elicitation_callback=callback)
    (form,) = shown
    assert form.message == "Book Noma (account [secret:SHOP_TOKEN])?"
    assert TOKEN not in form.model_dump_json()


async def test_a_declined_form_gives_the_tool_none(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_TOKEN", TOKEN)
    callback, _ = form_answering(None)
    result, events = await call(store_dir, "book", {"restaurant": "Noma"},
                                elicitation_callback=callback)  # fmt: skip
    assert (result.is_error, result.text) == (False, "not booked")
    assert [e["action"] for e in events["elicitation"]] == ["decline"]


async def test_a_client_that_cannot_answer_forms_gets_an_error_at_once(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_TOKEN", TOKEN)
    result, _ = await call(store_dir, "book", {"restaurant": "Noma"})
    assert result.is_error
    said = result.text
    assert said.startswith("CallContextError: tool 'book' asks the person (state.elicit)")
    assert "declared no elicitation capability" in said


async def test_an_answer_that_does_not_fit_the_form_is_an_error_for_the_tool(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_TOKEN", TOKEN)
    callback, _ = form_answering({"seats": "many", "pets": True})
    result, events = await call(store_dir, "book", {"restaurant": "Noma"},
                                elicitation_callback=callback)  # fmt: skip
    assert result.is_error
    assert result.text == (
        "ElicitationError: the answer does not fit the form: 'pets' is not a field of the form;"
        " 'seats' is a number, got 'many'"
    )
    (refused,) = events["elicitation"]
    assert "does not fit the form" in refused["refused"]


async def test_the_tools_sampling_request_is_answered_by_the_clients_model(
    store_dir: Path,
) -> None:
    asked: list[types.CreateMessageRequestParams] = []

    async def model(context: Any, params: types.CreateMessageRequestParams) -> Any:
        asked.append(params)
        return types.CreateMessageResult(
            role="assistant", content=types.TextContent(type="text", text="Rex"),
            model="client-model", stop_reason="endTurn",
        )  # fmt: skip

    result, events = await call(store_dir, "name_it", {"thing": "dog"}, sampling_callback=model)
    assert (result.is_error, result.text) == (False, "Rex (by client-model, endTurn)")
    (params,) = asked
    assert (params.system_prompt, params.max_tokens) == ("Be brief.", 30)
    assert [(m.role, m.content.text) for m in params.messages] == [("user", "Name a dog.")]  # type: ignore[union-attr]
    (sampled,) = events["sampling"]
    assert (sampled["tool"], sampled["model"], sampled["text"]) == ("name_it", "client-model",
                                                                    "Rex")  # fmt: skip


async def test_a_client_that_cannot_sample_gets_an_error_at_once(store_dir: Path) -> None:
    result, _ = await call(store_dir, "name_it", {"thing": "dog"})
    assert result.is_error
    assert "tool 'name_it' asks the model (state.sample), but the MCP client" in result.text
    assert "declared no sampling capability" in result.text


@pytest.mark.parametrize(("tool", "arguments"), [("book", {"restaurant": "Noma"}),
                                                 ("name_it", {"thing": "dog"})])  # fmt: skip
async def test_on_the_2026_protocol_the_call_says_a_tool_cannot_ask_mid_call(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch, tool: str, arguments: dict[str, Any]
) -> None:
    monkeypatch.setenv("SHOP_TOKEN", TOKEN)
    callback, shown = form_answering({"seats": 2})
    sampled: list[Any] = []

    async def model(context: Any, params: types.CreateMessageRequestParams) -> Any:
        sampled.append(params)
        raise AssertionError("not asked")

    result, _ = await call(store_dir, tool, arguments, mode="auto",
                           elicitation_callback=callback, sampling_callback=model)  # fmt: skip
    assert result.is_error
    assert "speaks a protocol (2026-07-28) on which a tool cannot ask in the middle" in result.text
    assert (shown, sampled) == ([], [])


async def test_the_tools_a_served_prompt_calls_ask_the_same_client(
    store_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_TOKEN", TOKEN)
    callback, shown = form_answering({"seats": 2})
    result, events = await call(store_dir, "concierge", {"message": "a table"},
                                elicitation_callback=callback)  # fmt: skip
    assert (result.is_error, result.text) == (False, "asked")
    assert [form.message for form in shown] == ["Book Noma (account [secret:SHOP_TOKEN])?"]
    assert [e["answer"] for e in events["elicitation"]] == [{"seats": 2, "terrace": False}]
