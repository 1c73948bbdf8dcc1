"""One external call of a served tool, run as a thread of the runtime's store (origin "mcp"):
its progress and log events go to the client as they happen, its files to the resources (and
their watchers), and its answer back as MCP content with the files attached.

A tool of the call that asks its caller (`state.elicit`, `state.sample`) asks this client.
A call that needs a decision asks the client's person by elicitation when the client can;
otherwise (or when they decline, or answer anything but approve or reject) the answer names
the waiting thread and why, and the same call made again picks that thread up — it runs once
decided where threadlab runs — instead of starting another.

A waiting call is the session's that made it: only a call from that MCP session picks it up
(or answers its forms), so another client making the same call cannot decide it or take its
result. Where the transport has no sessions (the 2026-07-28 protocol's single requests) its
requests are one session, as over stdio. A call left waiting by an earlier process serving the
store (whose sessions all ended with it) is picked up by the first session that makes it."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any

from .._data import (
    ApprovalRequest,
    CustomEvent,
    FileWrittenEvent,
    ThreadEvent,
    ThreadMeta,
    ToolCallStartedEvent,
)
from .._errors import ThreadlabError
from ..definitions import AgentDefinition, PromptDefinition, Registry, ToolDefinition
from ..runtime import Runtime, Thread
from ..threads import CALLER
from ._client_caller import ClientCaller
from ._client_channel import ClientChannel, FormAnswer, log_level
from ._decision_form import decision_form, edited_arguments, read_decision
from ._relay import relay_prompt, relayed_tool
from ._resources import ThreadResources

__all__ = ["CallOutcome", "NeedsAnswers", "ServedCalls"]

ORIGIN = "mcp"

_Waiting = tuple[str | None, str]
"""A waiting call: (the session that made it, None when an earlier process did; the call)."""


@dataclass(frozen=True)
class CallOutcome:
    """What a served call answers: its text and files, whether it failed, and its thread."""

    failed: bool
    text: str
    thread: Thread | None = None
    attachments: tuple[str, ...] = ()


@dataclass(frozen=True)
class NeedsAnswers:
    """The call waits for decisions the client's person can give: the client answers each
    form (key -> (message, schema)) and makes the call again with `state`."""

    forms: dict[str, tuple[str, dict[str, Any]]]
    state: str


@dataclass(frozen=True)
class _Asked:
    """Forms handed to a client that answers by calling again: for which call, thread and
    session, about which waiting calls. Only states issued here are honoured, once, and only
    from the session they were issued to: a client cannot name a thread of its choosing and
    decide its calls."""

    key: str
    thread_id: str
    requests: dict[str, ApprovalRequest]
    session: str


class ServedCalls:
    def __init__(self, registry: Registry, runtime: Runtime, resources: ThreadResources) -> None:
        self._registry = registry
        self._runtime = runtime
        self._resources = resources
        self._waiting: dict[_Waiting, str] = {}  # (session, call) -> its waiting thread
        self._asked: dict[str, _Asked] = {}  # state handed to a client -> what it answers
        self._recovered = False

    async def call(
        self,
        name: str,
        arguments: dict[str, Any],
        client: ClientChannel,
        *,
        answers: dict[str, FormAnswer] | None = None,
        state: str | None = None,
        session: str = "",
    ) -> CallOutcome | NeedsAnswers:
        """Run one call of a served tool `name` (which the caller has checked is served) for
        the MCP session `session` ("" where the transport has none); `answers` and `state`:
        the client's answers to the forms a `NeedsAnswers` gave it."""
        definition = self._registry.get(name)
        if isinstance(definition, PromptDefinition | AgentDefinition):
            target = name
            message = arguments.get("message")
            if not isinstance(message, str) or set(arguments) != {"message"}:
                message = json.dumps(arguments)
        else:
            target = relay_prompt(self._registry, name)
            message = json.dumps(arguments)
        key: _Waiting = (session, _call_key(name, arguments))
        asks, refused = client.asks, None
        if state is not None:
            thread, status, refused = await self._answered(key, state, answers or {}, client, name)
            if status == "declined":
                status, asks = "waiting", None  # they would not say: asked no more this time
        else:
            thread, status = await self._start(key, target, message, client, name)
        while status == "waiting" and thread.pending and asks is not None:
            if asks == "again":
                return self._forms(key, thread)
            refused = await self._ask(thread, client)
            if refused:
                break
            status = await self._follow(thread, None, client, name)
        if status == "waiting":
            # Only a call that was told it waits is picked up again by the same call.
            self._waiting[key] = thread.id
            pending = ", ".join(r.tool_call_id for r in thread.pending) or "a decision"
            why = f"{refused}; " if refused else ""
            return CallOutcome(True, (
                f"{why}the call waits for a decision ({pending}) in thread {thread.id}: approve"
                " or reject it where threadlab runs, then make the same call again"
            ), thread)  # fmt: skip
        self._waiting.pop(key, None)
        return self._outcome(thread, target != name, status)

    def session_ended(self, session: str) -> None:
        """Forget what `session` left: its waiting calls stay waiting in the store, to be
        decided where threadlab runs; no other session picks them up."""
        for key in [k for k in self._waiting if k[0] == session]:
            del self._waiting[key]
        for token in [t for t, asked in self._asked.items() if asked.session == session]:
            del self._asked[token]

    def _forms(self, key: _Waiting, thread: Thread) -> NeedsAnswers:
        """The forms for the thread's waiting calls, under a state issued for this call."""
        # One set of forms per call at a time, the newest: a client that never answers and
        # calls again does not pile up states.
        stale_forms = [t for t, asked in self._asked.items() if (asked.session, asked.key) == key]
        for stale in stale_forms:
            del self._asked[stale]
        token = secrets.token_urlsafe(24)
        requests = {f"decision-{n}": r for n, r in enumerate(thread.pending)}
        self._asked[token] = _Asked(key[1], thread.id, requests, key[0] or "")
        self._waiting[key] = thread.id  # a plain repeat of the call finds it too
        return NeedsAnswers({k: self._form(r) for k, r in requests.items()}, token)

    async def _start(
        self, key: _Waiting, target: str, message: str, client: ClientChannel, name: str
    ) -> tuple[Thread, str]:
        """A new thread for the call, or the one an earlier identical call left waiting."""
        thread = self._waiting_thread(key)
        if thread is None:
            thread = await self._runtime.create_thread(target, origin=ORIGIN)
            self._resources.served(thread.id)
            return thread, await self._follow(thread, message, client, name)
        if thread.status == "waiting" and not thread.pending:  # decided since: run it now
            return thread, await self._follow(thread, None, client, name)
        return thread, thread.status  # still waiting, or run meanwhile where threadlab runs

    async def _answered(
        self, key: _Waiting, state: str, answers: dict[str, FormAnswer], client: ClientChannel,
        name: str,
    ) -> tuple[Thread, str, str | None]:  # fmt: skip
        """Apply the answers to forms this endpoint gave this session; the thread, its status
        ("declined": the person would not say, or their answer decided nothing) and why."""
        asked = self._asked.get(state)
        if asked is None or (asked.session, asked.key) != key:
            raise ThreadlabError("the call's request state is not one this server gave (or it"
                                 " was used already): make the call afresh")  # fmt: skip
        del self._asked[state]
        thread = self._runtime.thread(asked.thread_id)
        for form_key, request in asked.requests.items():
            if form_key not in answers:
                return thread, "declined", f"no answer came for the form {form_key}"
            action, answer = answers[form_key]
            refused = await self._decide(request, answer) if action == "accept" else _not(action)
            if refused:
                return thread, "declined", refused
        return thread, await self._follow(thread, None, client, name), None

    def _waiting_thread(self, key: _Waiting) -> Thread | None:
        """The thread the session's same call left waiting; or one an earlier process left,
        which this session now holds."""
        self._recover()
        thread_id = self._waiting.get(key)
        if thread_id is None:
            thread_id = self._waiting.pop((None, key[1]), None)
            if thread_id is None:
                return None
            self._waiting[key] = thread_id
        try:
            return self._runtime.thread(thread_id)
        except ThreadlabError:  # gone from the store: start afresh
            self._waiting.pop(key, None)
            return None

    def _recover(self) -> None:
        """Once, before the first call looks for its waiting thread: the calls an earlier
        process serving this store left waiting (stopped, or killed while a form was out),
        so that the same call made here picks its thread up instead of starting another."""
        if self._recovered:
            return
        self._recovered = True
        for record in self._runtime.store.list_threads():  # newest first: the newest wins
            meta = ThreadMeta.read(record.metadata)
            if record.parent_id or meta is None or meta.origin != ORIGIN or not meta.waiting:
                continue
            try:
                thread = self._runtime.thread(record.id)
            except ThreadlabError:
                continue
            said = next((m.content for m in thread.messages if m.role == "user"), None)
            key = self._key_of(record.target, said or "")
            if key is not None:
                self._waiting.setdefault((None, key), record.id)

    def _key_of(self, target: str, message: str) -> str | None:
        """The call a served thread of `target` began with `message` came from (as `call`
        makes a thread of a call), or None when it is not one."""
        tool = relayed_tool(self._registry, target)
        if tool is not None:
            try:
                arguments = json.loads(message)
            except ValueError:
                return None
            return _call_key(tool, arguments)
        try:
            given = json.loads(message)
        except ValueError:
            given = None
        if isinstance(given, dict) and set(given) != {"message"}:
            return _call_key(target, given)
        return _call_key(target, {"message": message})

    async def _follow(
        self, thread: Thread, message: str | None, client: ClientChannel, name: str
    ) -> str:
        """Run (or resume) the thread, telling the client what happens; its final status. Its
        tools (and its subagents') ask this client for forms and its model."""
        status = "failed"
        asking = CALLER.set(ClientCaller(client))
        try:
            async for event in thread.stream(message):
                await self._tell(event, client, name)
                if event.type == "run_finished":
                    status = event.status
        finally:
            CALLER.reset(asking)
        return status

    async def _tell(self, event: ThreadEvent, client: ClientChannel, name: str) -> None:
        if isinstance(event, CustomEvent) and event.event_type == "progress":
            progress = _progress(event.data)
            if progress is not None:
                await client.progress(*progress)
                await client.log("debug", _progress_text(*progress), name)
        elif isinstance(event, CustomEvent) and event.event_type == "log":
            data = event.data
            if isinstance(data, dict):
                level = log_level(data.get("level"))
                said = data.get("message", {k: v for k, v in data.items() if k != "level"})
            else:
                level, said = "info", data
            await client.log(level, said, name)
        elif isinstance(event, ToolCallStartedEvent) and event.progress:
            await client.progress(0, None, event.progress)
            await client.log("info", event.progress, name)
        elif isinstance(event, FileWrittenEvent):
            self._resources.served(event.thread_id)  # a subagent's files are the call's too
            await self._resources.written(event.thread_id, [event.path])

    def _form(self, request: ApprovalRequest) -> tuple[str, dict[str, Any]]:
        return decision_form(request, self._schema(request))

    def _schema(self, request: ApprovalRequest) -> dict[str, Any]:
        tool = self._registry.tool(request.name)
        return dict(tool.args.json_schema) if isinstance(tool, ToolDefinition) else {}

    async def _ask(self, thread: Thread, client: ClientChannel) -> str | None:
        """Ask the client's person about each waiting call: None when every one is decided,
        else why not (they would not say, or their answer decided nothing)."""
        for request in thread.pending:
            action, answer = await client.ask(*self._form(request))
            refused = await self._decide(request, answer) if action == "accept" else _not(action)
            if refused:
                return refused
        return None

    async def _decide(self, request: ApprovalRequest, answer: dict[str, Any]) -> str | None:
        """Record the person's decision (a call decided meanwhile elsewhere keeps that one);
        why it was refused, when it was (an edit the tool's schema refuses)."""
        decided = self._runtime.thread(request.thread_id)
        if not any(r.tool_call_id == request.tool_call_id for r in decided.pending):
            return None
        decision, why = read_decision(answer)
        if decision is None:
            return f"nothing was decided: {why}"
        try:
            if decision == "reject":
                reason = str(answer.get("reason") or "rejected by the MCP client")
                await decided.reject(request.tool_call_id, reason, by="mcp")
            else:
                edited = edited_arguments(request, self._schema(request), answer)
                await decided.approve(request.tool_call_id, arguments=edited, by="mcp")
        except ThreadlabError as exc:
            return f"the answer was refused: {exc}"
        return None

    def _outcome(self, thread: Thread, relayed: bool, status: str) -> CallOutcome:
        messages = thread.messages
        if relayed:  # a function tool: its own result is the answer
            result = next((m for m in reversed(messages) if m.role == "tool"), None)
            if result is None:
                return CallOutcome(True, f"the run {status}", thread)
            return CallOutcome(result.tool_status == "error", result.content or "", thread,
                               tuple(result.attachments))  # fmt: skip
        last = messages[-1] if messages else None
        if last is None or last.role != "assistant" or not last.content:
            return CallOutcome(status != "completed", f"the run {status}", thread)
        return CallOutcome(status != "completed", last.content, thread, tuple(last.attachments))


def _not(action: str) -> str:
    """Why a form that was not accepted decided nothing."""
    return "the form was cancelled" if action == "cancel" else "the form was declined"


def _call_key(name: str, arguments: dict[str, Any]) -> str:
    """One call of a served tool, as the same call made again finds its waiting thread."""
    return json.dumps([name, arguments], sort_keys=True, default=str)


def _progress(data: Any) -> tuple[float, float | None, str | None] | None:
    if isinstance(data, dict):
        done = data.get("step", data.get("done", data.get("current")))
        total = data.get("of", data.get("total"))
        message = data.get("message")
    elif isinstance(data, int | float):
        done, total, message = data, 1, None
    else:
        return None
    return (
        float(done) if isinstance(done, int | float) else 0.0,
        float(total) if isinstance(total, int | float) else None,
        str(message) if message is not None else None,
    )


def _progress_text(done: float, total: float | None, message: str | None) -> str:
    amount = f"{done:g}/{total:g}" if total is not None else f"{done:g}"
    return f"progress {amount}" + (f": {message}" if message else "")
