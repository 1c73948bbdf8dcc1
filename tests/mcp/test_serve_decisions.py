"""A served call that needs a decision: asked of the client's person by elicitation (inline on
the 2025 protocols, by calling again with the answers on the 2026 one), or — for a client that
cannot ask — a waiting thread that the same call, made again, picks up rather than starting
another. What the person decides is what runs; a client cannot decide a call it was not asked
about."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcp import types

import threadlab as tl

from .test_serve import client_of

pytestmark = pytest.mark.processes  # the endpoint serves over a socket, to the SDK's client


def deleting_registry(deleted: list[str]) -> tl.Registry:
    registry = tl.Registry()

    @tl.tool(registry=registry, approval="always", progress_argument="description")
    def delete(state: tl.ThreadState, description: str, path: str, force: bool = False) -> str:
        """Delete a path."""
        deleted.append(path)
        return f"deleted {path}"

    return registry


def person(*answers: dict[str, Any] | None) -> tuple[Any, list[types.ElicitRequestParams]]:
    """An elicitation callback that gives these answers in turn (None: declines), and the
    forms it was shown."""
    shown: list[types.ElicitRequestParams] = []
    queue = list(answers)

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        shown.append(params)
        given = queue.pop(0)
        if given is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content=given)

    return answer, shown


ARGS = {"description": "deleting old.log", "path": "/logs/old.log"}


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_the_clients_person_approves_with_an_edit_and_the_edit_is_what_runs(
    store_dir: Path, mode: str
) -> None:
    deleted: list[str] = []
    rt = tl.Runtime(deleting_registry(deleted), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    callback, shown = person({"decision": "approve", "path": "/logs/older.log"})
    try:
        async with client_of(service, elicitation_callback=callback, mode=mode) as client:
            done = await client.call_tool("delete", ARGS)
        assert (done.is_error, done.content[0].text) == (False, "deleted /logs/older.log")
        assert deleted == ["/logs/older.log"]
        (form,) = shown
        assert isinstance(form, types.ElicitRequestFormParams)
        assert "deleting old.log" in form.message
        fields = form.requested_schema["properties"]
        assert fields["decision"]["enum"] == ["approve", "reject"]
        assert fields["path"]["default"] == "/logs/old.log"
        assert fields["force"]["type"] == "boolean"
        (thread,) = rt.threads()
        decided = [e for e in thread.events if isinstance(e, tl.ApprovalDecidedEvent)]
        assert [(d.by, d.edited, d.arguments["path"]) for d in decided] == [
            ("mcp", True, "/logs/older.log")]  # fmt: skip
    finally:
        await service.close()
        await rt.aclose()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_rejection_is_the_calls_error_and_nothing_runs(store_dir: Path, mode: str) -> None:
    deleted: list[str] = []
    rt = tl.Runtime(deleting_registry(deleted), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    callback, _ = person({"decision": "reject", "reason": "keep the logs"})
    try:
        async with client_of(service, elicitation_callback=callback, mode=mode) as client:
            refused = await client.call_tool("delete", ARGS)
        assert refused.is_error
        assert refused.content[0].text == "rejected: keep the logs"
        assert deleted == []
    finally:
        await service.close()
        await rt.aclose()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_a_declined_form_or_a_client_that_cannot_ask_leaves_one_waiting_thread(
    store_dir: Path, mode: str
) -> None:
    deleted: list[str] = []
    rt = tl.Runtime(deleting_registry(deleted), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    declines, _ = person(None, None)
    try:
        async with client_of(service, elicitation_callback=declines, mode=mode) as client:
            first = await client.call_tool("delete", ARGS)
            again = await client.call_tool("delete", ARGS)  # the session's own waiting thread
            (thread,) = rt.threads()
            for answer in (first, again):
                assert answer.is_error
                assert answer.content[0].text.startswith("the form was declined; ")
                assert f"waits for a decision ({thread.pending[0].tool_call_id}) in thread" \
                    f" {thread.id}" in answer.content[0].text  # fmt: skip
            await thread.approve(thread.pending[0].tool_call_id)  # where threadlab runs
            ran = await client.call_tool("delete", ARGS)
            assert (ran.is_error, ran.content[0].text) == (False, "deleted /logs/old.log")
        async with client_of(service, mode=mode) as client:  # no elicitation at all
            fresh = await client.call_tool("delete", ARGS)  # done: a new call, a new thread
            repeated = await client.call_tool("delete", ARGS)
        waiting = next(t for t in rt.threads() if t.id != thread.id)
        for answer in (fresh, repeated):
            assert answer.is_error
            assert f"in thread {waiting.id}" in answer.content[0].text
        assert len(rt.threads()) == 2
        assert deleted == ["/logs/old.log"]
    finally:
        await service.close()
        await rt.aclose()


async def test_an_answer_for_a_state_the_server_never_gave_decides_nothing(
    store_dir: Path,
) -> None:
    """A client that calls again with a made-up (or reused) state, hoping to approve a call
    of another thread, gets an error and nothing is decided."""
    deleted: list[str] = []
    rt = tl.Runtime(deleting_registry(deleted), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    try:
        async with client_of(service) as client:
            await client.call_tool("delete", ARGS)  # waits: this client cannot ask
            (victim,) = rt.threads()
            approve = types.ElicitResult(action="accept", content={"decision": "approve"})
            answers = {"decision-0": approve}
            for state in (victim.id, "forged-state"):
                forged = await client.session.call_tool(
                    "delete", ARGS, input_responses=answers, request_state=state
                )
                assert forged.is_error
                assert "request state is not one this server gave" in forged.content[0].text
        assert victim.pending
        assert deleted == []
    finally:
        await service.close()
        await rt.aclose()


@pytest.mark.parametrize("mode", ["legacy", "auto"])
async def test_an_edit_the_tools_schema_refuses_runs_nothing_and_says_why(
    store_dir: Path, mode: str
) -> None:
    deleted: list[str] = []
    rt = tl.Runtime(deleting_registry(deleted), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    callback, _ = person({"decision": "approve", "force": "yes, please"}, None)
    try:
        async with client_of(service, elicitation_callback=callback, mode=mode) as client:
            refused = await client.call_tool("delete", ARGS)
            again = await client.call_tool("delete", ARGS)  # asked again, and declined
        (thread,) = rt.threads()
        assert refused.is_error
        assert refused.content[0].text.startswith(
            "the answer was refused: invalid arguments for tool 'delete'")  # fmt: skip
        assert f"in thread {thread.id}" in refused.content[0].text
        assert f"in thread {thread.id}" in again.content[0].text  # the same waiting thread
        assert deleted == []
    finally:
        await service.close()
        await rt.aclose()


async def test_only_the_newest_forms_of_a_call_can_be_answered(store_dir: Path) -> None:
    """A client on the 2026 protocol that calls again without answering gets fresh forms;
    the older state is no longer honoured (states do not pile up)."""
    deleted: list[str] = []
    rt = tl.Runtime(deleting_registry(deleted), store_dir)
    service = await tl.mcp.serve(runtime=rt)
    callback, _ = person()
    try:
        async with client_of(service, elicitation_callback=callback) as client:
            first = await client.session.call_tool("delete", ARGS, allow_input_required=True)
            second = await client.session.call_tool("delete", ARGS, allow_input_required=True)
            assert isinstance(first, types.InputRequiredResult)
            assert isinstance(second, types.InputRequiredResult)
            assert first.request_state != second.request_state
            approve = types.ElicitResult(action="accept", content={"decision": "approve"})
            stale = await client.session.call_tool(
                "delete", ARGS, input_responses={"decision-0": approve},
                request_state=first.request_state,
            )  # fmt: skip
            assert stale.is_error
            assert "request state is not one this server gave" in stale.content[0].text
            assert deleted == []
            done = await client.session.call_tool(
                "delete", ARGS, input_responses={"decision-0": approve},
                request_state=second.request_state,
            )  # fmt: skip
            assert done.content[0].text == "deleted /logs/old.log"
        assert len(rt.threads()) == 1
        assert deleted == ["/logs/old.log"]
    finally:
        await service.close()
        await rt.aclose()
