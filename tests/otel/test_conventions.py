"""What the GenAI conventions (and OpenInference readers such as Phoenix) need of each span:
a prompt tool's inner calls under its span, each step's provider, response model, finish
reason and output message with tool-call parts, the run's task, a raising tool's exception
event, and unset status on success."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import threadlab as tl
from threadlab.models import ScriptedModel, call, step, text
from threadlab.otel import export_thread

SECRET = "tok-conventions-2718281828"


def spans_of(thread: tl.Thread, content: bool) -> list[ReadableSpan]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    export_thread(thread, provider, include_content=content)
    return list(exporter.get_finished_spans())


def named(spans: list[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name]


def attrs(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


async def a_thread(rt: tl.Runtime, registry: tl.Registry) -> tl.Thread:
    async def lookup(state: tl.ThreadState, args: Any) -> str:
        if args["q"] == "boom":
            raise KeyError(f"no entry for {await state.env('API_KEY')}")
        return f"found {args['q']}"

    tl.define_tool("lookup", description="Look up.", execute=lookup,
                   args={"type": "object", "properties": {"q": {"type": "string"}}},
                   variables=[tl.Variable("API_KEY", type="secret", required=True)],
                   registry=registry)  # fmt: skip
    inner = ScriptedModel([call("lookup", {"q": "inner"}, id="c_inner"), text("inner done")])
    tl.define_prompt("researcher", prompt="Research.", model=inner, tools=["lookup"],
                     expose_as_tool=True, registry=registry)  # fmt: skip
    outer = ScriptedModel(
        [
            step(call("researcher", {"message": "dig"}, id="c_prompt"),
                 call("lookup", {"q": "boom"}, id="c_boom"), text="Let me look."),
            text("all done"),
        ]
    )  # fmt: skip
    tl.define_prompt("lead", prompt="Lead.", model=outer, tools=["researcher", "lookup"],
                     registry=registry)  # fmt: skip
    thread = await rt.create_thread("lead", secrets={"API_KEY": SECRET})
    await thread.send("find things")
    return thread


async def test_inner_calls_hang_under_their_prompt_tool(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    spans = spans_of(await a_thread(rt, registry), content=False)
    (prompt_tool,) = named(spans, "execute_tool researcher")
    inner = [s for s in named(spans, "execute_tool lookup") if attrs(s)["gen_ai.tool.call.id"]
             == "c_inner"]  # fmt: skip
    assert inner[0].parent is not None
    assert inner[0].parent.span_id == prompt_tool.context.span_id
    (agent,) = named(spans, "invoke_agent lead")
    (boom,) = [s for s in spans if attrs(s).get("gen_ai.tool.call.id") == "c_boom"]
    assert boom.parent is not None
    assert boom.parent.span_id == agent.context.span_id


async def test_each_step_names_provider_model_and_finish_reason(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    spans = spans_of(await a_thread(rt, registry), content=False)
    chats = [s for s in spans if s.name.startswith("chat ")]
    assert {attrs(s)["gen_ai.provider.name"] for s in chats} == {"threadlab"}
    reasons = sorted(tuple(attrs(s)["gen_ai.response.finish_reasons"]) for s in chats)
    assert reasons == [("stop",), ("stop",), ("tool_call",), ("tool_call",)]
    assert all(attrs(s)["gen_ai.response.model"] == "scripted" for s in chats)
    assert all("gen_ai.output.messages" not in attrs(s) for s in chats)  # no content
    assert all(s.status.status_code.name == "UNSET" for s in spans if "error.type" not in attrs(s))


async def test_with_content_outputs_carry_tool_calls_and_the_run_its_task(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    spans = spans_of(await a_thread(rt, registry), content=True)
    (first,) = [s for s in spans if s.name.startswith("chat ") and "Let me look."
                in attrs(s).get("output.value", "")]  # fmt: skip
    (message,) = json.loads(attrs(first)["gen_ai.output.messages"])
    assert message["finish_reason"] == "tool_call"
    assert message["parts"] == [
        {"type": "text", "content": "Let me look."},
        {"type": "tool_call", "id": "c_prompt", "name": "researcher",
         "arguments": {"message": "dig"}},
        {"type": "tool_call", "id": "c_boom", "name": "lookup", "arguments": {"q": "boom"}},
    ]  # fmt: skip
    key = "llm.output_messages.0.message.tool_calls.1.tool_call"
    assert attrs(first)[f"{key}.function.name"] == "lookup"
    assert json.loads(attrs(first)[f"{key}.function.arguments"]) == {"q": "boom"}
    (agent,) = named(spans, "invoke_agent lead")
    assert attrs(agent)["input.value"] == "find things"
    (task,) = json.loads(attrs(agent)["gen_ai.input.messages"])
    assert task == {"role": "user", "parts": [{"type": "text", "content": "find things"}]}
    (boom,) = [s for s in spans if attrs(s).get("gen_ai.tool.call.id") == "c_boom"]
    (raised,) = [e for e in boom.events if e.name == "exception"]
    found = dict(raised.attributes or {})
    assert found["exception.type"] == "KeyError"
    assert found["exception.message"] == "'no entry for [secret:API_KEY]'"
    assert "Traceback" in str(found["exception.stacktrace"])
    flat = repr([(s.attributes, s.status.description, [e.attributes for e in s.events])
                 for s in spans])  # fmt: skip
    assert SECRET not in flat


def test_a_remote_models_provider_comes_from_its_host_or_its_api() -> None:
    def named_for(provider: str, base_url: str | None) -> str:
        model = tl.models.remote_model(
            "m", provider=provider, model="x", base_url=base_url, key_variable="K",
            api_key="k" * 8, options={},
        )  # fmt: skip
        return tl.models.provider_name(model)

    assert named_for("openai", "https://api.groq.com/openai/v1") == "groq"
    assert named_for("openai", "https://api.deepseek.com") == "deepseek"
    assert named_for("openai", "https://eu.api.x.ai/v1") == "x_ai"
    assert named_for("openai", "http://127.0.0.1:8000/v1") == "openai"  # the API it speaks
    assert named_for("openai-responses", None) == "openai"
    assert named_for("anthropic", None) == "anthropic"


async def test_with_content_each_step_carries_what_it_was_sent(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread = await a_thread(rt, registry)
    spans = spans_of(thread, content=True)
    (second,) = [s for s in spans if s.name.startswith("chat ") and attrs(s).get("output.value")
                 == "all done"]  # fmt: skip
    found = attrs(second)
    assert json.loads(found["gen_ai.system_instructions"]) == [{"type": "text", "content": "Lead."}]
    sent = json.loads(found["gen_ai.input.messages"])
    assert [m["role"] for m in sent] == ["user", "assistant", "tool", "tool"]
    assert sent[2]["parts"][0]["type"] == "tool_call_response"
    assert sent[3]["parts"][0]["response"] == "KeyError: 'no entry for [secret:API_KEY]'"
    assert SECRET not in found["gen_ai.input.messages"]
    names = [t["name"] for t in json.loads(found["gen_ai.tool.definitions"])]
    assert names == ["researcher", "lookup"]
    assert found["llm.input_messages.0.message.role"] == "system"
    assert found["llm.input_messages.2.message.tool_calls.1.tool_call.function.name"] == "lookup"
    assert json.loads(found["llm.tools.1.tool.json_schema"])["function"]["name"] == "lookup"
    # Without content, none of it.
    bare = spans_of(thread, content=False)
    assert not any("gen_ai.input.messages" in attrs(s) for s in bare)


async def test_a_run_on_a_remote_model_names_its_provider_on_every_span(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    class Served(ScriptedModel):
        """Scripted steps, said to come from a provider's API (as `tl.models.PricedModel`)."""

        class endpoint:
            base_url = "https://api.groq.com/openai/v1"

        provider = "openai"
        model = "llama-3"
        options: Mapping[str, Any] = MappingProxyType({})

    tl.define_tool("lookup", description="Look up.", execute=lambda s, a: "x", registry=registry)
    model = Served([call("lookup", {}), text("done")])
    tl.define_prompt("asker", prompt="Ask.", tools=["lookup"], model=model, registry=registry)
    thread = await rt.create_thread("asker")
    await thread.send("go")
    spans = spans_of(thread, content=False)
    assert {s.name.split()[0] for s in spans} == {"invoke_agent", "chat", "execute_tool"}
    assert {s.name: attrs(s)["gen_ai.provider.name"] for s in spans} == {
        "invoke_agent asker": "groq",
        "chat llama-3": "groq",
        "execute_tool lookup": "groq",
    }


async def test_a_step_that_only_calls_tools_shows_the_calls_as_its_output(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("lookup", description="Look up.", execute=lambda s, a: "x", registry=registry)
    model = ScriptedModel([call("lookup", {"q": "tea"}, id="c1"), text("done")])
    tl.define_prompt("asker", prompt="Ask.", tools=["lookup"], model=model, registry=registry)
    thread = await rt.create_thread("asker")
    await thread.send("go")
    chats = [attrs(s) for s in spans_of(thread, content=True) if s.name.startswith("chat ")]
    calling, answering = chats
    assert calling["output.mime_type"] == "application/json"
    assert json.loads(calling["output.value"]) == [
        {"type": "tool_call", "id": "c1", "name": "lookup", "arguments": {"q": "tea"}}
    ]
    assert (answering["output.value"], answering["output.mime_type"]) == ("done", "text/plain")
