"""A thread's runs as OpenTelemetry spans, following the GenAI semantic conventions as of
semantic-conventions v1.41.0 (the last release that held them; `SEMCONV_VERSION`), with the
OpenInference keys Arize Phoenix and other OpenInference readers look for.

Spans are built from what the store keeps — events with their times, messages — so a run
exported live (at its end) and exported again a week later is the same trace: every trace and
span id is derived from the ids of the thread, run, message and call it stands for.

- a run: `invoke_agent {agent}` (`gen_ai.conversation.id` = the thread id), with the provider
  of its model steps (`gen_ai.provider.name`, on its tool calls' spans too);
- each model step: `chat {model}` with its provider (`gen_ai.provider.name`), response model
  and finish reason, and its token usage (cache reads and writes included);
- each tool call: `execute_tool {tool}` (`gen_ai.tool.name`, `.call.id`, `.type`); a failed one
  has error status and `error.type` (the exception's class, else "_OTHER"), and an
  `exception` event when the tool raised; its progress and custom events as span events;
- a prompt tool's inner steps and calls under that tool's span; a subagent's runs in the
  trace of the run they happened in, under the call running when they began (the
  `execute_tool subagent_create` that created it; a later `subagent_message`);
- success leaves a span's status unset, as the conventions ask.

Message and argument content only with `include_content` (as stored: redacted): a run's task
and answer, each step's output message (text and tool-call parts, with its finish reason), a
call's arguments and result, an error's words and an exception's message and stack. The
attributes Phoenix reads are always there (`openinference.span.kind`, `session.id`,
`tool.name`, `llm.*`); its `input.value` / `output.value` only with content.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import Event as SpanEvent
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.util.instrumentation import InstrumentationScope
from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

from .._data import (
    APP_EVENT,
    CustomEvent,
    Message,
    MessageCreatedEvent,
    RunFinishedEvent,
    SeenRequest,
    StepRecord,
    ThreadEvent,
    ThreadStatusEvent,
    ToolCall,
    ToolCallFinishedEvent,
    ToolCallStartedEvent,
    rebuild_request,
)
from .._gc_paused import gc_paused
from .._version import __version__
from ..execution import StepReader

__all__ = [
    "SEMCONV_VERSION",
    "History",
    "SpanTree",
    "TracedThread",
    "run_spans",
    "thread_spans",
    "traces",
]

SEMCONV_VERSION = "1.41.0"
"""The OpenTelemetry GenAI semantic conventions these spans follow."""

_SCOPE = InstrumentationScope("threadlab", __version__)
_RESOURCE = Resource.create({"service.name": "threadlab"})
_BUILTIN_TOOLS = frozenset({"subagents", "subagent_create", "subagent_message"})


class TracedThread(Protocol):
    """What the spans read of a thread (a `tl.Thread` is one): its stored events and
    messages, and its children."""

    @property
    def id(self) -> str: ...

    @property
    def agent(self) -> str: ...

    @property
    def parent_id(self) -> str | None: ...

    @property
    def events(self) -> list[ThreadEvent]: ...

    def all_messages(self) -> list[Message]: ...

    def find_message(self, message_id: str) -> Message | None: ...

    @property
    def children(self) -> Sequence[TracedThread]: ...


def _id(bits: int, *parts: str) -> int:
    digest = hashlib.sha256("\x1f".join(parts).encode()).digest()
    return int.from_bytes(digest[: bits // 8], "big") or 1  # 0 is not a valid id


def _ns(seconds: float) -> int:
    # A damaged row's time (infinite, or past any date) reads as the epoch, not an error.
    nanos = seconds * 1_000_000_000
    return int(nanos) if math.isfinite(nanos) and 0 <= nanos < 2**63 else 0


@dataclass
class _Span:
    name: str
    span_id: int
    parent: int | None
    start: float
    end: float
    kind: SpanKind = SpanKind.INTERNAL
    attributes: dict[str, Any] = field(default_factory=dict)
    events: list[SpanEvent] = field(default_factory=list)
    error: str | None = None
    """None: no error. Else the status description: the error's words with content, ""
    without (the conventions' `error.type` attribute names its kind either way)."""

    @property
    def status(self) -> Status:
        # Success leaves the status unset, as the conventions ask of instrumentations.
        if self.error is None:
            return Status(StatusCode.UNSET)
        return Status(StatusCode.ERROR, self.error or None)

    @property
    def start_ns(self) -> int:
        return _ns(self.start)

    @property
    def end_ns(self) -> int:
        return _ns(max(self.end, self.start))

    def readable(self, trace_id: int) -> ReadableSpan:
        context = SpanContext(trace_id, self.span_id, False, TraceFlags(TraceFlags.SAMPLED))
        parent = (
            SpanContext(trace_id, self.parent, False, TraceFlags(TraceFlags.SAMPLED))
            if self.parent is not None
            else None
        )
        return ReadableSpan(
            name=self.name,
            context=context,
            parent=parent,
            resource=_RESOURCE,
            attributes=self.attributes,
            events=self.events,
            kind=self.kind,
            status=self.status,
            start_time=self.start_ns,
            end_time=self.end_ns,
            instrumentation_scope=_SCOPE,
        )


@dataclass(frozen=True)
class SpanTree:
    """One run's spans, in one trace; each span's parent comes before it."""

    trace_id: int
    spans: list[_Span]

    def readable(self) -> list[ReadableSpan]:
        return [span.readable(self.trace_id) for span in self.spans]


def traces(
    thread: TracedThread,
    run_id: str | None = None,
    *,
    include_content: bool = False,
    history: History | None = None,
) -> list[SpanTree]:
    """The runs of `thread` (only `run_id`'s when given) that have finished, one trace each,
    its subagents' runs nested where they were created. `history`: what an earlier call read
    of the same thread (a live exporter keeps it, so that each run costs what it did).

    A subagent's own thread gives none: its runs are spans of its root's traces, under the
    ids they have there; traced again on their own, under a trace of their own, they would
    show as a second, partial copy of the same spans."""
    if thread.parent_id is not None:
        return []
    history = history if history is not None else History(thread)
    found: list[SpanTree] = []
    events = thread.events
    runs = _runs(events) if run_id is None else _run(events, run_id)
    with gc_paused():  # thousands of spans and steps, none of them garbage
        for run, cut in runs:
            built = _RunSpans(history, run, events, cut, include_content, None).build()
            found.append(SpanTree(_id(128, thread.id, run), built))
    history.forget_requests()
    return found


def thread_spans(thread: TracedThread, *, include_content: bool = False) -> list[ReadableSpan]:
    """Every finished run of `thread` (and of its subagents, nested where they were created),
    as SDK spans with our ids: one trace per run of the thread."""
    trees = traces(thread, include_content=include_content)
    return [span for tree in trees for span in tree.readable()]


def run_spans(
    thread: TracedThread, run_id: str, *, include_content: bool = False
) -> list[ReadableSpan]:
    """The spans of one finished run of `thread`."""
    trees = traces(thread, run_id, include_content=include_content)
    return [span for tree in trees for span in tree.readable()]


class History:
    """What the spans of a thread's runs read of its messages: all of them, once, when it is
    made; afterwards each message that was not there yet, looked up from the newest. Kept
    from one run to the next (as the live exporter does), a run costs what it added."""

    def __init__(self, thread: TracedThread) -> None:
        self.thread = thread
        self.messages = {m.id: m for m in thread.all_messages()}
        self.requests: dict[str, SeenRequest] = {}  # each step's request, rebuilt once
        self.shapes: dict[str, SeenRequest] = {}  # the same, without the messages sent

    def find(self, message_id: str) -> Message | None:
        found = self.messages.get(message_id)
        if found is None:
            found = self.thread.find_message(message_id)
            if found is not None:
                self.messages[message_id] = found
        return found

    def request(self, message_id: str, *, messages: bool = True) -> SeenRequest | None:
        """The request of a model step; without `messages`, its tools and parameters only."""
        if not messages:
            return rebuild_request(message_id, self.find, self.shapes, messages=False)
        return rebuild_request(message_id, self.find, self.requests)

    def forget_requests(self) -> None:
        """Keep only the newest rebuilt request: the next step's rebuild starts from it (a
        rebuilt request holds its whole context, so keeping every one grows as a square)."""
        if len(self.requests) > 1:
            last = next(reversed(self.requests))
            self.requests = {last: self.requests[last]}
        if len(self.shapes) > 1:
            last = next(reversed(self.shapes))
            self.shapes = {last: self.shapes[last]}


# A run's events, as (where its reading starts, where the run starts, where it ends) in the
# thread's events: a call made before the run and answered in it is the same step in both.
_Cut = tuple[int, int, int]


def _run(events: list[ThreadEvent], run_id: str) -> list[tuple[str, _Cut]]:
    """Run `run_id`'s events, found from the end (the live exporter asks for the run that
    just ended: what it reads does not grow with the thread)."""
    end: int | None = None
    for at in range(len(events) - 1, -1, -1):
        event = events[at]
        if end is None:
            if isinstance(event, RunFinishedEvent) and not event.depth and event.run_id == run_id:
                end = at
        elif isinstance(event, ThreadStatusEvent) and event.status == "running":
            return [(run_id, (_reading_start(events, at), at, end))]
    return []


def _runs(events: list[ThreadEvent]) -> list[tuple[str, _Cut]]:
    """The thread's events cut into runs: from "running" to that run's `run_finished`."""
    runs: list[tuple[str, _Cut]] = []
    begun: int | None = None
    for at, event in enumerate(events):
        if isinstance(event, ThreadStatusEvent) and event.status == "running":
            begun = at
        elif begun is not None and isinstance(event, RunFinishedEvent) and not event.depth:
            runs.append((event.run_id, (_reading_start(events, begun), begun, at)))
            begun = None
    return runs


def _reading_start(events: list[ThreadEvent], begun: int) -> int:
    """Where the reading of the run that began at `begun` starts: after the last run before
    it that ended with nothing left open (a run that goes on from a pause, or a fork's copy
    of a run cut short, answers calls an earlier run made)."""
    start = begun
    for at in range(begun - 1, -1, -1):
        event = events[at]
        if isinstance(event, RunFinishedEvent) and not event.depth and event.status != "waiting":
            break
        if isinstance(event, ThreadStatusEvent) and event.status == "running":
            start = at
    return start


class _RunSpans:
    """The spans of one run of one thread, built from its steps (`StepReader`, the one
    reading of a history); a child's runs that began meanwhile join in under the call that
    was running then."""

    def __init__(
        self,
        history: History,
        run_id: str,
        events: list[ThreadEvent],
        cut: _Cut,
        include_content: bool,
        parent: int | None,
    ) -> None:
        self.history = history
        self.thread = history.thread
        self.run_id = run_id
        self.read = events[cut[0] : cut[2] + 1]
        self.events = events[cut[1] : cut[2] + 1]
        self.begun = cut[1] - cut[0]  # where the run's own events start in `read`
        self.include_content = include_content
        self.parent = parent
        self.spans: list[_Span] = []

    def build(self) -> list[_Span]:
        start, finish = self.events[0], self.events[-1]
        assert isinstance(finish, RunFinishedEvent)
        run = _Span(
            f"invoke_agent {self.thread.agent}",
            _id(64, self.run_id),
            self.parent,
            start.at,
            finish.at,
            attributes={
                "gen_ai.operation.name": "invoke_agent",
                "gen_ai.agent.name": self.thread.agent,
                "gen_ai.conversation.id": self.thread.id,
                "threadlab.run.id": self.run_id,
                "threadlab.run.status": finish.status,
            },
        )
        if finish.status not in ("completed", "queued", "waiting"):
            run.attributes["error.type"] = f"run_{finish.status}"
            run.error = ""
            if self.include_content:  # a run's error may quote the user, a tool or a provider
                run.error = finish.error or finish.status
        run.attributes |= {"openinference.span.kind": "AGENT", "session.id": self.thread.id}
        described = getattr(self.thread, "description", "")  # a child's agent says what it is
        if described:
            run.attributes["gen_ai.agent.description"] = described
        if self.include_content:
            task = self._task()
            if task is not None:  # what the run was asked: the user's message, a child's task
                run.attributes |= {
                    "gen_ai.input.messages": json.dumps(
                        [{"role": "user", "parts": [{"type": "text", "content": task}]}]
                    ),
                    "input.value": task,
                }
            if finish.text:
                run.attributes |= _output_attributes(finish.text, (), "stop")
        self.spans.append(run)
        self._steps(run)
        # The provider the run's model steps went to names the run and its tool calls too
        # (what a reader filters a project's traces by).
        provider = next(
            (p for p in (x.attributes.get("gen_ai.provider.name") for x in self.spans) if p), None
        )
        if provider is not None:
            for span in self.spans:
                span.attributes.setdefault("gen_ai.provider.name", provider)
        return self.spans

    def _steps(self, run: _Span) -> None:
        """A span per model step and tool call of the run, and the runs its children ran
        meanwhile: the steps as `StepReader` reads them (its times, its creator of each child,
        its end of every call the run left)."""
        reader = self._read()
        spans: dict[str, _Span] = {}  # a step's id -> its span
        calls: list[tuple[StepRecord, _Span]] = []
        described: dict[str, str] = {}  # the tools the last model step was offered
        for step in reader.records():
            parent = spans.get(step.parent_id or "", run).span_id
            if step.kind == "model" and step.seq >= self.begun:
                message = self.history.find(step.message_id or "")
                if message is not None:
                    described = self._chat(message, step, parent)
            elif step.kind == "tool_call" and self._in_run(step, run):
                told = reader.events_of(step.id)
                spans[step.id] = self._tool(step, parent, run, described, told)
                calls.append((step, spans[step.id]))
        self._children(run, calls)

    def _children(self, run: _Span, calls: list[tuple[StepRecord, _Span]]) -> None:
        """Each run a child began while this run went on, under the call that was running
        then (the one that created it, or messaged it, or waited for it across a pause); a
        child's later runs go to the parent's runs they happened in."""
        for child in self.thread.children:
            events, history = child.events, None
            for run_id, cut in _runs(events):
                begun = events[cut[1]].at
                if not run.start <= begun <= run.end:
                    continue
                running = [
                    span
                    for step, span in calls
                    if step.started_at <= begun <= (step.ended_at or run.end)
                ]
                # The latest to start: a call running inside another (a prompt tool's) is it.
                parent = max(running, key=lambda span: span.start, default=run).span_id
                history = history or History(child)
                built = _RunSpans(history, run_id, events, cut, self.include_content, parent)
                self.spans += built.build()

    def _read(self) -> StepReader:
        thread = self.thread.id
        for event in self.read:  # every message the steps name, looked up once
            if isinstance(event, MessageCreatedEvent):
                self.history.find(event.message_id)
        reader = StepReader({thread: self.history.messages}, {}, None, None, {thread: None})
        for seq, event in enumerate(self.read):
            reader.see_event(event, seq)
        return reader

    def _in_run(self, step: StepRecord, run: _Span) -> bool:
        """A call of this run: made in it, or made before the pause it goes on from and still
        open when it began (it ended in this run, or waits again at its end)."""
        if step.seq >= self.begun:
            return True
        return step.ended_at is None or step.ended_at >= run.start

    def _chat(self, message: Message, step: StepRecord, parent: int) -> dict[str, str]:
        """The span of a model step; returns the descriptions of the tools it was offered."""
        model = message.model or "unknown"
        provider = message.provider or "unknown"
        finish_reason = "tool_call" if message.tool_calls else "stop"
        span = _Span(
            f"chat {model}",
            # With the thread's id: a fork or a replay keeps the ids of the messages and calls
            # it copies, and a trace reader keeps only the first span of an id it sees.
            _id(64, self.thread.id, message.id),
            parent,
            step.started_at,
            step.ended_at or step.started_at,
            kind=SpanKind.CLIENT,
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": provider,
                "gen_ai.request.model": model,
                "gen_ai.response.model": model,
                "gen_ai.response.finish_reasons": (finish_reason,),
                "gen_ai.conversation.id": self.thread.id,
                "llm.provider": provider,
                "llm.system": provider,
            },
        )
        usage = message.usage or {}
        for key, name in (("input_tokens", "input_tokens"), ("output_tokens", "output_tokens")):
            if key in usage:
                span.attributes[f"gen_ai.usage.{name}"] = usage[key]
        if "cached_tokens" in usage:
            span.attributes["gen_ai.usage.cache_read.input_tokens"] = usage["cached_tokens"]
        if "cache_write_tokens" in usage:
            written = usage["cache_write_tokens"]
            span.attributes["gen_ai.usage.cache_creation.input_tokens"] = written
        span.attributes |= {"openinference.span.kind": "LLM", "llm.model_name": model}
        if "input_tokens" in usage:
            span.attributes["llm.token_count.prompt"] = usage["input_tokens"]
        if "output_tokens" in usage:
            span.attributes["llm.token_count.completion"] = usage["output_tokens"]
        if self.include_content and (message.content or message.tool_calls):
            span.attributes |= _output_attributes(
                message.content or "", message.tool_calls, finish_reason
            )
        if message.response_id:
            span.attributes["gen_ai.response.id"] = message.response_id
        seen = self.history.request(message.id, messages=self.include_content)
        if seen is not None:
            span.attributes |= _parameter_attributes(seen)
            if self.include_content:
                span.attributes |= _input_attributes(seen)
        self.spans.append(span)
        if seen is None:
            return {}
        return {
            str(t.get("name")): str(t["description"])
            for t in seen.tools
            if isinstance(t, dict) and t.get("description")
        }

    def _tool(
        self,
        step: StepRecord,
        parent: int,
        run: _Span,
        described: dict[str, str],
        told: list[ThreadEvent],
    ) -> _Span:
        """The span of a tool call; one the run ended without (cancelled, left waiting, or
        stopped by a limit) lasts until the run's end and failed, its stored result says why."""
        name, call_id = step.name or "", step.tool_call_id or ""
        ended = step.ended_at is not None and step.status != "interrupted"
        span = _Span(
            f"execute_tool {name}",
            _id(64, self.thread.id, step.id),  # unique per thread, as a model step's (above)
            parent,  # a prompt tool's inner calls hang under that tool's span
            step.started_at,
            step.ended_at if ended and step.ended_at is not None else run.end,
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.call.id": call_id,
                "gen_ai.tool.type": "extension" if name in _BUILTIN_TOOLS else "function",
                "openinference.span.kind": "TOOL",
                "tool.name": name,
            },
        )
        if described.get(name):
            span.attributes["gen_ai.tool.description"] = described[name]
        if self.include_content:
            arguments = (
                step.arguments
                if isinstance(step.arguments, str)
                else json.dumps(step.arguments, ensure_ascii=False)
            )
            span.attributes |= {"gen_ai.tool.call.arguments": arguments, "input.value": arguments}
        run_begun = self.events[0].at  # what this run told of the call, not an earlier one
        started = [e for e in told if isinstance(e, ToolCallStartedEvent) and e.at >= run_begun]
        for start in started[:1]:
            if start.progress:
                # The progress value is an argument the model wrote: content.
                value = {"threadlab.progress": start.progress} if self.include_content else {}
                span.events.append(SpanEvent("progress", value, _ns(start.at)))
        finished = next((e for e in told if isinstance(e, ToolCallFinishedEvent)), None)
        # An error result may echo arguments, the user or the tool's data: content.
        if not ended:
            span.attributes["error.type"] = "interrupted"
            span.error = (step.result or "the call did not finish") if self.include_content else ""
        elif step.tool_status == "error":
            traceback = finished.traceback if finished is not None else None
            span.attributes["error.type"] = _error_type(traceback)
            span.error = (step.result or "") if self.include_content else ""
            if finished is not None and traceback:
                span.events.append(self._exception(finished))
        if self.include_content:
            result = step.result or ""
            span.attributes |= {"gen_ai.tool.call.result": result, "output.value": result}
        for event in told:
            if not isinstance(event, CustomEvent) or event.at < run_begun:
                continue
            data = event.data
            if event.event_type == APP_EVENT and isinstance(data, dict):
                data = {k: v for k, v in data.items() if k != "html"}  # its address says it
            attributes = (
                {"threadlab.data": json.dumps(data, ensure_ascii=False)}
                if self.include_content
                else {}
            )
            span.events.append(SpanEvent(event.event_type, attributes, _ns(event.at)))
        self.spans.append(span)
        return span

    def _task(self) -> str | None:
        """The user message (or a child's task) the run started on."""
        for event in self.events:
            if isinstance(event, MessageCreatedEvent) and not event.depth:
                message = self.history.find(event.message_id)
                if message is not None and message.role == "user":
                    return message.content or ""
        return None

    def _exception(self, event: ToolCallFinishedEvent) -> SpanEvent:
        """The conventions' `exception` event of a tool that raised: its type always; its
        message and stack (as stored: redacted) only with content."""
        attributes = {"exception.type": _error_type(event.traceback)}
        if self.include_content and event.traceback:
            said = event.traceback.strip()
            line = _exception_line(said)
            # The message: after the exception's name, to the end (it may hold several lines).
            message = said[said.rfind(line) + len(line) :] if line else ""
            first = line.split(":", 1)[1].strip() if ":" in line else ""
            attributes["exception.message"] = "\n".join(filter(None, [first, message.strip()]))
            attributes["exception.stacktrace"] = event.traceback
        return SpanEvent("exception", attributes, _ns(event.at))


# The model options the conventions name, by the names providers' APIs give them.
_PARAMETERS = {
    "temperature": "gen_ai.request.temperature",
    "top_p": "gen_ai.request.top_p",
    "top_k": "gen_ai.request.top_k",
    "max_tokens": "gen_ai.request.max_tokens",
    "max_completion_tokens": "gen_ai.request.max_tokens",
    "max_output_tokens": "gen_ai.request.max_tokens",
    "frequency_penalty": "gen_ai.request.frequency_penalty",
    "presence_penalty": "gen_ai.request.presence_penalty",
    "seed": "gen_ai.request.seed",
    "stop": "gen_ai.request.stop_sequences",
    "stop_sequences": "gen_ai.request.stop_sequences",
}


def _parameter_attributes(seen: SeenRequest) -> dict[str, Any]:
    """How a step was asked for (model options, tool choice): settings, not content."""
    flat: dict[str, Any] = {
        "llm.invocation_parameters": json.dumps(
            {
                **seen.parameters,
                "tool_choice": seen.tool_choice,
                "parallel_tool_calls": seen.parallel_tool_calls,
            },
            ensure_ascii=False,
            default=str,
        )
    }
    for option, value in seen.parameters.items():
        name = _PARAMETERS.get(option)
        if name is None:
            continue
        if name.endswith("stop_sequences"):
            listed = value if isinstance(value, list | tuple) else [value] if value else []
            value = tuple(map(str, listed))
        if isinstance(value, bool | int | float | str | tuple):
            flat[name] = value
    return flat


def _input_attributes(seen: SeenRequest) -> dict[str, Any]:
    """What a step was sent, as the GenAI conventions' system instructions, input messages and
    tool definitions, and as OpenInference's input message, tool and parameter keys (what a
    reader needs to replay the step)."""
    sent = [m for m in seen.messages if m.role != "system"]
    flat: dict[str, Any] = {
        "gen_ai.input.messages": json.dumps([_message(m) for m in sent], ensure_ascii=False),
        "gen_ai.tool.definitions": json.dumps(
            [{"type": "function", **tool} for tool in seen.tools], ensure_ascii=False
        ),
        "input.value": (sent[-1].content or "") if sent else "",
    }
    if seen.system:
        flat["gen_ai.system_instructions"] = json.dumps(
            [{"type": "text", "content": seen.system}], ensure_ascii=False
        )
    for index, message in enumerate(seen.messages):
        key = f"llm.input_messages.{index}.message"
        flat[f"{key}.role"] = message.role
        if message.content:
            flat[f"{key}.content"] = message.content
        if message.tool_call_id:
            flat[f"{key}.tool_call_id"] = message.tool_call_id
        for number, call in enumerate(message.tool_calls):
            flat[f"{key}.tool_calls.{number}.tool_call.id"] = call.id
            flat[f"{key}.tool_calls.{number}.tool_call.function.name"] = call.name
            flat[f"{key}.tool_calls.{number}.tool_call.function.arguments"] = _arguments(call)
    for index, tool in enumerate(seen.tools):
        flat[f"llm.tools.{index}.tool.json_schema"] = json.dumps(
            {"type": "function", "function": tool}, ensure_ascii=False
        )
    return flat


def _message(message: Message) -> dict[str, Any]:
    """A message in the conventions' shape: its role and parts."""
    if message.role == "tool":
        part = {"type": "tool_call_response", "id": message.tool_call_id,
                "response": message.content or ""}  # fmt: skip
        return {"role": "tool", "parts": [part]}
    parts: list[dict[str, Any]] = (
        [{"type": "text", "content": message.content}] if message.content else []
    )
    parts += [
        {"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments}
        for c in message.tool_calls
    ]
    return {"role": message.role, "parts": parts}


def _arguments(call: ToolCall) -> str:
    if isinstance(call.arguments, str):
        return call.arguments
    return json.dumps(call.arguments, ensure_ascii=False)


def _output_attributes(text: str, calls: Sequence[ToolCall], finish_reason: str) -> dict[str, Any]:
    """An answer as the GenAI conventions' output message (text and tool-call parts, with its
    finish reason) and as OpenInference's flattened output message keys."""
    parts: list[dict[str, Any]] = [{"type": "text", "content": text}] if text else []
    parts += [
        {"type": "tool_call", "id": c.id, "name": c.name, "arguments": c.arguments} for c in calls
    ]
    message = {"role": "assistant", "parts": parts, "finish_reason": finish_reason}
    flat: dict[str, Any] = {
        "gen_ai.output.messages": json.dumps([message], ensure_ascii=False),
        "output.value": text,
        "output.mime_type": "text/plain",
        "llm.output_messages.0.message.role": "assistant",
    }
    if not text and calls:  # a step that only calls tools: what it asked for, as a reader shows
        flat["output.value"] = json.dumps(parts, ensure_ascii=False)
        flat["output.mime_type"] = "application/json"
    if text:
        flat["llm.output_messages.0.message.content"] = text
    for index, call in enumerate(calls):
        key = f"llm.output_messages.0.message.tool_calls.{index}.tool_call"
        flat[f"{key}.id"] = call.id
        flat[f"{key}.function.name"] = call.name
        flat[f"{key}.function.arguments"] = _arguments(call)
    return flat


def _error_type(traceback: str | None) -> str:
    """The exception's class from a stored traceback's last line; else (an error result, no
    exception) the conventions' fallback, "_OTHER"."""
    name = _exception_line(traceback).split(":", 1)[0].strip()
    return name if name.replace(".", "_").isidentifier() else "_OTHER"


def _exception_line(traceback: str | None) -> str:
    """Where a stored traceback names its exception: the first line after its last frame
    that is not the frame's code (a message of several lines goes on below it: its last
    line is the message's, words a tool chose, not the exception's class)."""
    lines = (traceback or "").strip().splitlines()
    frames = [at for at, line in enumerate(lines) if line.startswith("  File ")]
    after = lines[frames[-1] + 1 :] if frames else lines[-1:]
    return next((line for line in after if line and not line.startswith(" ")), "")
