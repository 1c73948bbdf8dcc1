"""A live trace without `include_content` carries no content: not in span names, attributes,
status descriptions or span events. Content reaches a trace in error results (an exception's
message, arguments echoed by a validation error), progress values and a failed run's error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import threadlab as tl
from threadlab.models import FunctionModel, call, step

CUSTOMER = "Jane Doe"
CARD = "4111-1111-1111-1111"


def define(registry: tl.Registry) -> None:
    async def charge(state: tl.ThreadState, args: dict[str, Any]) -> str:
        state.emit("progress", {"customer": CUSTOMER})
        raise ValueError(f"card {CARD} declined for {CUSTOMER}")

    tl.define_tool(
        "charge",
        description="Charge a card.",
        execute=charge,
        progress_argument="description",
        args={
            "type": "object",
            "properties": {"description": {"type": "string"}, "amount": {"type": "integer"}},
        },
        registry=registry,
    )
    steps = [
        step(
            call("charge", {"description": f"charging {CUSTOMER}", "amount": 5}),
            call("charge", {"description": "again", "amount": f"{CUSTOMER} {CARD}"}),
        ),
    ]

    def model(messages: Any, tools: Any) -> Any:
        if steps:
            return steps.pop()
        raise RuntimeError(f"the provider refused: {CUSTOMER} said {CARD}")

    tl.define_prompt(
        "p", prompt="x", model=FunctionModel(model), tools=["charge"], registry=registry
    )


async def test_a_live_trace_without_content_holds_none(
    registry: tl.Registry, store_dir: Path
) -> None:
    define(registry)
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    rt = tl.Runtime(registry, store_dir, secret_key="k", tracer_provider=provider)
    thread = await rt.create_thread("p")
    run = await thread.send(f"charge {CUSTOMER}, card {CARD}")
    rt.close()
    assert run.status == "failed"  # the model's second step raised
    spans = exporter.get_finished_spans()
    assert {s.name for s in spans} >= {"invoke_agent p", "execute_tool charge"}
    # Without content an error says its kind alone (`error.type`), with no description.
    assert [s.status.description for s in spans if s.status.description] == []
    kinds = [(s.attributes or {}).get("error.type") for s in spans]
    assert sorted(str(k) for k in kinds if k) == ["ValueError", "_OTHER", "run_failed"]
    (exception,) = [e for s in spans for e in s.events if e.name == "exception"]
    assert dict(exception.attributes or {}) == {"exception.type": "ValueError"}
    flat = repr(
        [(s.name, dict(s.attributes or {}), s.status.description,
          [(e.name, dict(e.attributes or {})) for e in s.events]) for s in spans]
    )  # fmt: skip
    assert CUSTOMER not in flat
    assert CARD not in flat


async def test_an_exception_message_of_several_lines_is_not_taken_for_its_class(
    registry: tl.Registry, store_dir: Path
) -> None:
    # Its last line is the message's: words the tool chose (here, one that reads like a
    # class name) are content, and without content the trace names only the class.
    said = "JaneDoe41111111"

    async def charge(state: tl.ThreadState, args: dict[str, Any]) -> str:
        raise ValueError(f"declined\n{said}")

    tl.define_tool("charge", description="Charge.", execute=charge, registry=registry)
    steps = [step(call("charge", {}))]
    model = FunctionModel(lambda m, t: steps.pop() if steps else "done")
    tl.define_prompt("p", prompt="x", registry=registry, tools=["charge"], model=model)
    rt = tl.Runtime(registry, store_dir)
    thread = await rt.create_thread("p")
    await thread.send("charge")
    from threadlab.otel import thread_spans

    (tool,) = [s for s in thread_spans(thread) if s.name == "execute_tool charge"]
    assert (tool.attributes or {})["error.type"] == "ValueError"
    (exception,) = [e for e in tool.events if e.name == "exception"]
    assert dict(exception.attributes or {}) == {"exception.type": "ValueError"}
    (told,) = [s for s in thread_spans(thread, include_content=True) if s.name == tool.name]
    (exception,) = [e for e in told.events if e.name == "exception"]
    assert (exception.attributes or {})["exception.message"] == f"declined\n{said}"
    rt.close()
