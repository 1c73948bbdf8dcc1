"""Threads as GenAI spans: names, nesting (a subagent's run under the tool call that created
it, in the same trace), attributes, errors, progress as span events, usage; the same ids when
exported twice; content only when asked for, and redacted."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import StatusCode

import threadlab as tl
from threadlab.models import FinishChunk, FunctionModel, call, step, text
from threadlab.otel import SEMCONV_VERSION, export_thread

from ..execution.test_subagents import create, helper
from ..helpers import HangingTool, scripted_prompt
from .test_conventions import a_thread, spans_of

SECRET = "tok-otel-3141592653"


class Counting(FunctionModel):
    """A function model that reports usage, like a provider."""

    async def stream(self, request: Any) -> Any:
        async for chunk in super().stream(request):
            if isinstance(chunk, FinishChunk):
                chunk = FinishChunk(usage={"input_tokens": 11, "output_tokens": 3})
            yield chunk


def define(registry: tl.Registry) -> None:
    async def fetch(state: tl.ThreadState, args: dict[str, Any]) -> str:
        state.emit("progress", {"step": 1, "of": 2})
        if args["url"] == "bad":
            raise ConnectionError(f"refused with {await state.env('API_KEY')}")
        return f"page at {args['url']}"

    tl.define_tool(
        "fetch",
        description="Fetch.",
        execute=fetch,
        progress_argument="url",
        args={"type": "object", "properties": {"url": {"type": "string"}}},
        variables=[tl.Variable("API_KEY", type="secret", required=True)],
        registry=registry,
    )
    helper(registry)
    done = [0]

    def lead(messages: Any, tools: Any) -> Any:
        done[0] += 1
        if done[0] == 1:
            return step(call("fetch", {"url": "good"}), call("fetch", {"url": "bad"}))
        if done[0] == 2:
            return create("w1", "write notes")
        return text(f"all done, key {SECRET}")

    tl.define_prompt("lead", prompt="Lead.", model=Counting(lead), tools=["fetch"],
                     registry=registry)  # fmt: skip
    tl.define_agent(
        "boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]), registry=registry
    )


async def a_finished_run(rt: tl.Runtime, registry: tl.Registry) -> tl.Thread:
    define(registry)
    thread = await rt.create_thread("boss", secrets={"API_KEY": SECRET})
    await thread.send("go")
    return thread


def provider_to(exporter: InMemorySpanExporter) -> TracerProvider:
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider


def by_name(spans: list[ReadableSpan], prefix: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name.startswith(prefix)]


async def test_a_run_is_a_trace_of_genai_spans(registry: tl.Registry, store_dir: Path) -> None:
    define(registry)
    live = InMemorySpanExporter()
    rt = tl.Runtime(registry, store_dir, secret_key="k", tracer_provider=provider_to(live))
    thread = await rt.create_thread("boss", secrets={"API_KEY": SECRET})
    run = await thread.send("go")
    assert run.status == "completed"
    spans = list(live.get_finished_spans())

    (agent,) = [s for s in by_name(spans, "invoke_agent ") if s.parent is None]
    assert agent.name == "invoke_agent boss"
    assert agent.attributes is not None
    assert agent.attributes["gen_ai.conversation.id"] == thread.id
    assert agent.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert {s.context.trace_id for s in spans} == {agent.context.trace_id}  # one trace

    chats = [s for s in by_name(spans, "chat ") if s.parent == agent.context]
    assert len(chats) == 3
    assert chats[0].attributes is not None
    assert chats[0].attributes["gen_ai.usage.input_tokens"] == 11
    assert chats[0].attributes["gen_ai.request.model"] == "lead"  # the model function's name

    good, bad = (s for s in by_name(spans, "execute_tool fetch"))
    assert good.attributes is not None
    assert bad.attributes is not None
    assert good.attributes["gen_ai.tool.call.id"] != bad.attributes["gen_ai.tool.call.id"]
    assert good.attributes["gen_ai.tool.type"] == "function"
    assert good.status.status_code == StatusCode.UNSET  # success leaves it unset
    assert bad.status.status_code == StatusCode.ERROR
    assert bad.attributes["error.type"] == "ConnectionError"
    (raised,) = [e for e in bad.events if e.name == "exception"]
    assert dict(raised.attributes or {}) == {"exception.type": "ConnectionError"}
    assert [e.name for e in good.events] == ["progress", "progress"]  # started + custom
    # Without content, no value: the progress is an argument the model wrote, and the error
    # has no description (the result said "refused with [secret:API_KEY]").
    assert [dict(e.attributes or {}) for e in good.events] == [{}, {}]
    assert bad.status.description is None

    # The subagent's run hangs under the call that created it, in the same trace.
    (creator,) = by_name(spans, "execute_tool subagent_create")
    assert creator.attributes is not None
    assert creator.attributes["gen_ai.tool.type"] == "extension"
    (child,) = list(by_name(spans, "invoke_agent helper"))
    assert (child.attributes or {})["gen_ai.agent.description"] == "Does work."
    assert child.parent is not None
    assert child.parent.span_id == creator.context.span_id
    (finish,) = by_name(spans, "execute_tool finish")
    assert finish.parent is not None
    assert finish.parent.span_id == child.context.span_id

    # No content unless asked: no argument, result or text, and never the secret.
    flat = repr(
        [(s.name, s.attributes, s.status.description, [e.attributes for e in s.events])
         for s in spans]
    )  # fmt: skip
    assert "gen_ai.tool.call.arguments" not in flat
    assert "all done" not in flat
    assert "refused with" not in flat
    assert SECRET not in flat

    # Exported again from the store, a week later, through another provider: the very same
    # trace, the same span ids, parents and times.
    rt.close()
    reopened = tl.Runtime(registry, store_dir, secret_key="k")
    again = InMemorySpanExporter()
    assert export_thread(reopened.thread(thread.id), provider_to(again)) == len(spans)
    reopened.close()

    def shape(spans: Any) -> list[Any]:
        return sorted(
            (s.context.trace_id, s.context.span_id, s.parent.span_id if s.parent else None,
             s.name, s.start_time, s.end_time, s.status.status_code)
            for s in spans
        )  # fmt: skip

    assert shape(again.get_finished_spans()) == shape(spans)

    # The documented loop over every thread (subagents' threads among them): each span once,
    # in the root's traces only; a subagent's thread alone sends nothing.
    reopened = tl.Runtime(registry, store_dir, secret_key="k")
    everything = InMemorySpanExporter()
    threads = reopened.threads()
    assert {t.parent_id is not None for t in threads} == {True, False}
    for stored in threads:
        export_thread(stored, provider_to(everything))
    assert shape(everything.get_finished_spans()) == shape(spans)
    (subagent,) = [t for t in threads if t.parent_id is not None]
    assert export_thread(subagent, provider_to(InMemorySpanExporter())) == 0
    reopened.close()


async def test_content_when_asked_is_the_redacted_content_and_phoenix_attributes(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread = await a_finished_run(rt, registry)
    exporter = InMemorySpanExporter()
    export_thread(thread, provider_to(exporter), include_content=True)
    spans = list(exporter.get_finished_spans())
    flat = repr([(s.attributes, [e.attributes for e in s.events]) for s in spans])
    assert SECRET not in flat
    assert "[secret:API_KEY]" in flat  # the content is there, redacted as stored
    (agent,) = list(by_name(spans, "invoke_agent boss"))
    assert agent.attributes is not None
    assert agent.attributes["openinference.span.kind"] == "AGENT"
    assert agent.attributes["session.id"] == thread.id
    good = by_name(spans, "execute_tool fetch")[0]
    assert good.attributes is not None
    assert good.attributes["tool.name"] == "fetch"
    assert good.attributes["input.value"] == '{"url": "good"}'
    assert good.attributes["gen_ai.tool.call.result"] == "page at good"
    assert SEMCONV_VERSION.startswith("1.")


async def test_the_providers_sampler_and_other_tracers_are_left_as_they_are(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    from opentelemetry.sdk.trace.sampling import ALWAYS_OFF
    from opentelemetry.trace import NoOpTracerProvider

    thread = await a_finished_run(rt, registry)

    # A provider that samples nothing gets nothing; a no-op one takes the spans and drops them.
    dropped = InMemorySpanExporter()
    silent = TracerProvider(sampler=ALWAYS_OFF)
    silent.add_span_processor(SimpleSpanProcessor(dropped))
    assert export_thread(thread, silent) > 0
    assert dropped.get_finished_spans() == ()
    assert export_thread(thread, NoOpTracerProvider()) > 0

    # The application's own spans through the same provider keep the provider's random ids.
    exporter = InMemorySpanExporter()
    provider = provider_to(exporter)
    export_thread(thread, provider)
    ours = {s.context.span_id for s in exporter.get_finished_spans()}
    app = provider.get_tracer("app")
    for _ in range(3):
        app.start_span("cell").end()
    theirs = [s for s in exporter.get_finished_spans() if s.name == "cell"]
    assert len({s.context.span_id for s in theirs}) == 3
    assert not ours & {s.context.span_id for s in theirs}
    assert len({s.context.trace_id for s in theirs}) == 3  # each a new random trace


async def test_a_broken_pipeline_never_breaks_a_run(registry: tl.Registry, store_dir: Path) -> None:
    from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

    class Refusing(SpanExporter):
        def export(self, spans: Any) -> SpanExportResult:
            raise ConnectionError("collector down")

    define(registry)
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(Refusing()))
    rt = tl.Runtime(registry, store_dir, secret_key="k", tracer_provider=provider)
    thread = await rt.create_thread("boss", secrets={"API_KEY": SECRET})
    run = await thread.send("go")
    assert run.status == "completed"
    assert [m.role for m in thread.messages][-1] == "assistant"
    rt.close()


def test_tracer_provider_without_the_extra_says_what_to_install(
    registry: tl.Registry, store_dir: Path, monkeypatch: Any
) -> None:
    monkeypatch.setitem(sys.modules, "threadlab.otel", None)  # as if the SDK were missing
    with pytest.raises(ImportError, match=r"pip install 'threadlab\[otel\]'"):
        tl.Runtime(registry, store_dir, secret_key="k", tracer_provider=TracerProvider())


async def test_an_interrupted_run_is_traced_live_with_the_call_it_ended_without(
    registry: tl.Registry, store_dir: Path
) -> None:
    slow = HangingTool("never")

    tl.define_tool("slow", description="Slow.", execute=slow, registry=registry)
    scripted_prompt(registry, [call("slow"), call("slow")], tools=["slow"])  # one per run
    exporter = InMemorySpanExporter()
    rt = tl.Runtime(registry, store_dir, secret_key="k", tracer_provider=provider_to(exporter))
    thread = await rt.create_thread("p")
    for interrupt in ("send", "stream"):
        exporter.clear()
        slow.entered.clear()

        async def consume(interrupt: str = interrupt) -> None:
            if interrupt == "send":
                await thread.send("go")
            else:
                async for _ in thread.stream("go"):
                    pass

        task = asyncio.ensure_future(consume())
        await slow.entered.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

        spans = exporter.get_finished_spans()  # sent as the cancelled run ended
        (run,) = by_name(list(spans), "invoke_agent p")
        (tool,) = by_name(list(spans), "execute_tool slow")
        assert run.status.status_code == StatusCode.ERROR
        assert run.attributes is not None
        assert run.attributes["error.type"] == "run_interrupted"
        assert tool.status.status_code == StatusCode.ERROR
        assert tool.attributes is not None
        assert tool.attributes["error.type"] == "interrupted"
        assert tool.parent is not None
        assert tool.parent.span_id == run.context.span_id
        assert run.start_time is not None
        assert tool.start_time is not None
        assert run.start_time <= tool.start_time <= (tool.end_time or 0) == run.end_time
    rt.close()


async def test_the_live_export_of_each_run_is_what_an_export_of_the_whole_thread_gives(
    registry: tl.Registry, store_dir: Path
) -> None:
    # The live exporter keeps what it read of a thread between runs: what it sends must be
    # exactly what reading the whole stored thread afterwards gives.
    tl.define_tool("ping", description="Ping.", execute=lambda s, a: "pong", registry=registry)
    script = [call("ping"), call("ping"), text("one"), call("ping"), text("two"), text("three")]
    scripted_prompt(registry, script, tools=["ping"])
    live = InMemorySpanExporter()
    rt = tl.Runtime(registry, store_dir, secret_key="k", tracer_provider=provider_to(live))
    thread = await rt.create_thread("p")
    for message in ("a", "b", "c"):
        await thread.send(message)
    after = InMemorySpanExporter()
    export_thread(thread, provider_to(after))

    def shape(spans: Any) -> list[tuple[Any, ...]]:
        return sorted(
            (
                s.context.trace_id,
                s.context.span_id,
                s.name,
                s.start_time,
                s.end_time,
                tuple(sorted((s.attributes or {}).items())),
            )
            for s in spans
        )

    assert len(live.get_finished_spans()) == 3 + 6 + 3  # runs, model steps, calls
    assert shape(live.get_finished_spans()) == shape(after.get_finished_spans())
    rt.close()


async def test_a_fork_and_a_replay_keep_the_call_ids_but_not_the_span_ids(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # A trace reader keeps the first span of an id it sees (across projects): a branch's or a
    # replay's tool spans would be dropped, and its steps shown as orphans.
    thread = await a_thread(rt, registry)
    branch = await thread.fork("c_boom", arguments={"q": "other"})
    await branch.resume()
    replayed = await rt.create_thread("lead", model=tl.models.ReplayModel(thread),
                                      secrets={"API_KEY": "tok-replayed-1618033988"})  # fmt: skip
    await replayed.send("find things")
    seen: dict[int, str] = {}
    for each in (thread, branch, replayed):
        spans = spans_of(each, False)
        assert [s.context.span_id for s in spans] == [
            s.context.span_id for s in spans_of(each, False)
        ]  # the same ids on every export of one thread
        assert by_name(spans, "execute_tool lookup")
        for span in spans:
            assert seen.setdefault(span.context.span_id, each.id) == each.id, span.name
        ids = {s.context.span_id for s in spans}
        assert all(s.parent is None or s.parent.span_id in ids for s in spans)
