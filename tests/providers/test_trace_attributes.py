"""What a trace says of a provider's step, over the wire (the official `openai` SDK against
the scripted server): the provider, the response's id, the model options it was asked with,
the tool's description — without content, as they are settings, not what anyone wrote."""

from __future__ import annotations

import json
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import threadlab as tl
from threadlab.otel import export_thread

from ._protocols import chat_chunks, chat_frames
from ._server import Reply, ScriptedServer
from ._setup import arguments, new_thread, remote_prompt


async def test_a_steps_span_names_provider_response_and_options(
    rt: tl.Runtime, registry: tl.Registry, server: ScriptedServer
) -> None:
    remote_prompt(registry, server, temperature=0.2, max_tokens=300, stop=["END"])
    add = ("call_a1", "add", arguments({"a": 2, "b": 3}))
    server.reply(
        Reply(frames=chat_frames(chat_chunks(calls=[add]))),
        Reply(frames=chat_frames(chat_chunks("5"))),
    )
    thread = await new_thread(rt)
    await thread.send("2+3?")
    step = next(m for m in thread.messages if m.tool_calls)
    assert step.response_id
    seen = thread.model_request(step.id)
    assert seen is not None
    assert seen.parameters == {"temperature": 0.2, "max_tokens": 300, "stop": ["END"]}
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    export_thread(thread, provider)  # no content
    spans = {s.name: dict(s.attributes or {}) for s in exporter.get_finished_spans()}
    chat: dict[str, Any] = next(a for n, a in spans.items() if n.startswith("chat "))
    assert chat["gen_ai.provider.name"] == "openai"  # a local server speaking its API
    assert chat["gen_ai.response.id"] == step.response_id
    assert chat["gen_ai.request.temperature"] == 0.2
    assert chat["gen_ai.request.max_tokens"] == 300
    assert chat["gen_ai.request.stop_sequences"] == ("END",)
    assert json.loads(chat["llm.invocation_parameters"])["temperature"] == 0.2
    assert spans["execute_tool add"]["gen_ai.tool.description"] == "Add two integers."
    assert "gen_ai.input.messages" not in chat
