"""Secrets through the fields a model or a tool chooses: a tool-call name and call id, raw
malformed arguments whose `\\u` escapes spell a secret, a custom event's type, and a multi-line
secret split across a traceback's lines. None of them reaches the store, the events, the views
or the exported spans; the conversation still pairs each call with its result."""

from __future__ import annotations

import hashlib
import json
import textwrap
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import threadlab as tl
from threadlab.models import ScriptedModel, call, text
from threadlab.otel import export_thread
from threadlab.widgets import replay, static_html

from ..helpers import gated_delete

SECRET = "sk-chosen-field-5510"
PEM = (
    "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\nBKcwggSjAgEAAoIBAQC7\n"
    "-----END PRIVATE KEY-----"
)
ESCAPED = "".join(f"\\u{ord(c):04x}" for c in SECRET)


def define(registry: tl.Registry) -> ScriptedModel:
    async def emit(state: tl.ThreadState, args: Any) -> str:
        state.emit(f"found-{await state.env('API_KEY')}", {"ok": True})
        return "emitted"

    async def explode(state: tl.ThreadState, args: Any) -> str:
        raise ValueError(
            "the key was:\n" + textwrap.indent(str(await state.env("PEM_KEY")), "    ")
        )

    variables = [
        tl.Variable("API_KEY", type="secret", required=True),
        tl.Variable("PEM_KEY", type="secret", required=True),
    ]
    for name, execute in (("emit", emit), ("explode", explode)):
        tl.define_tool(
            name, description=name, execute=execute, variables=variables, registry=registry
        )
    model = ScriptedModel(
        [
            call(f"tool_{SECRET}", {}, id=f"call_{SECRET}"),
            call("emit", raw_arguments='{"x": "' + ESCAPED + '"'),
            call("emit", {}),
            call("explode", {}),
            text("done"),
        ]
    )
    tl.define_prompt("p", prompt="x", model=model, tools=["emit", "explode"], registry=registry)
    return model


def leaks(content: str) -> list[str]:
    lines = [line.strip() for line in PEM.splitlines() if len(line.strip()) >= 8]
    forms = {SECRET, json.dumps(SECRET)[1:-1], ESCAPED, *lines}
    return [form for form in forms if form in content]


async def test_no_chosen_field_carries_a_secret_anywhere(
    registry: tl.Registry, store_dir: Path
) -> None:
    model = define(registry)
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET, "PEM_KEY": PEM})
    live = [e.model_dump_json() async for e in thread.stream("go")]
    assert thread.status == "idle"
    model.assert_complete()  # every step ran: each call was answered and paired up
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    export_thread(thread, provider, include_content=True)
    spans = exporter.get_finished_spans()
    state = replay(thread)
    artifacts = {
        "live events": "\n".join(live),
        "stored events": "\n".join(e.model_dump_json() for e in thread.events),
        "messages": "\n".join(m.model_dump_json() for m in thread.all_messages()),
        "spans": "\n".join(s.to_json() for s in spans),
        "static html": static_html(thread),
        "view state": json.dumps(state.snapshot()),
    }
    # A call and its result still pair up, under the placeholder both carry.
    first = next(m for m in thread.messages if m.tool_calls)
    (placeholder,) = first.tool_calls
    assert placeholder.id.startswith("redacted-")
    assert placeholder.name.startswith("redacted-")
    result = next(m for m in thread.messages if m.role == "tool")
    assert result.tool_call_id == placeholder.id
    assert result.tool_status == "error"
    rt.close()
    for path in store_dir.rglob("*"):
        if path.is_file():
            artifacts[path.name] = path.read_bytes().decode("utf-8", "replace")
    assert "[secret:PEM_KEY]" in artifacts["stored events"]  # the traceback was there
    found = {name: leaks(content) for name, content in artifacts.items() if leaks(content)}
    assert found == {}


async def test_a_name_or_id_without_a_secret_is_kept_as_it_is(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool("ping", description="Ping.", execute=lambda s, a: "pong", registry=registry)
    model = ScriptedModel([call("ping", {}, id="call_ordinary_1"), text("ok")])
    tl.define_prompt("p", prompt="x", model=model, tools=["ping"], registry=registry)
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    await thread.send("go")
    (call_message,) = [m for m in thread.messages if m.tool_calls]
    assert [(c.id, c.name) for c in call_message.tool_calls] == [("call_ordinary_1", "ping")]


async def test_an_ids_placeholder_cannot_be_tested_against_a_guess_of_the_secret(
    registry: tl.Registry, store_dir: Path
) -> None:
    # A plain hash of the id let whoever reads a trace or a notebook hash `call_<guess>` until
    # it matched: the placeholder is keyed with what the runtime's secret key derives, the
    # same in every process that holds that key.
    define(registry)
    rt = tl.Runtime(registry, store_dir, secret_key="k")
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET, "PEM_KEY": PEM})
    await thread.send("go")
    first = next(m for m in thread.messages if m.tool_calls)
    (placeholder,) = first.tool_calls
    rt.close()
    guessed = "redacted-" + hashlib.sha256(f"call_{SECRET}".encode()).hexdigest()[:16]
    assert placeholder.id.startswith("redacted-")
    assert placeholder.id != guessed
    # Another runtime on the store with the same key names the same id alike.
    again = tl.Runtime(registry, store_dir, secret_key="k")
    redactor = again.thread(thread.id)._context.redactor
    redactor.add("API_KEY", SECRET)
    assert redactor.identifier(f"call_{SECRET}") == placeholder.id
    elsewhere = tl.Runtime(registry, store_dir / "other", secret_key="another key")
    other = await elsewhere.create_thread("p", secrets={"API_KEY": SECRET, "PEM_KEY": PEM})
    assert other._context.redactor.identifier(f"call_{SECRET}") != placeholder.id
    again.close()
    elsewhere.close()


async def test_an_id_with_a_secret_the_model_gives_twice_is_two_calls(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    # Both were stored as the secret's one placeholder: one card for two calls, showing the
    # first call's arguments and result while a decision asked about the second.
    ran: list[str] = []

    gated_delete(registry, ran)
    chosen = f"c_{SECRET}"
    model = ScriptedModel([
        call("delete", {"path": "/tmp/harmless"}, id=chosen), text("ok"),
        call("delete", {"path": "/home/all"}, id=chosen), text("ok"),
    ])  # fmt: skip
    tl.define_prompt("p", prompt="x", model=model, tools=["delete"], registry=registry)
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    (first,) = (await thread.send("one")).pending
    await thread.approve(first.tool_call_id)
    await thread.resume()
    (second,) = (await thread.send("two")).pending
    assert first.tool_call_id != second.tool_call_id
    assert SECRET not in first.tool_call_id + second.tool_call_id
    state = replay(rt.thread(thread.id))
    asked = state.cards[second.tool_call_id]
    assert (asked["approval"]["state"], asked["result"]) == ("asked", None)
    assert "/home/all" in asked["args"]
    assert state.cards[first.tool_call_id]["result"] == "deleted /tmp/harmless"
    assert ran == ["/tmp/harmless"]
