"""A trace with content, sent to a real Arize Phoenix over OTLP/HTTP on 127.0.0.1 and read back
through Phoenix's REST API: every span arrives in one trace with its kind, a prompt tool's
inner step under that tool, and a step's input messages, tools and output as Phoenix keeps
them (what its playground replays).

Phoenix is a large install (about 850 MB): `.ci/run` puts it in an environment of its own
(`.cache/phoenix`) and sets THREADLAB_PHOENIX to its `phoenix` executable. Without it the
test is skipped, except under CI=true, where it fails."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor

import threadlab as tl
from threadlab.otel import export_thread

from .test_conventions import a_thread

PHOENIX = os.environ.get("THREADLAB_PHOENIX")
pytestmark = [
    pytest.mark.processes,  # it starts a Phoenix server
    pytest.mark.skipif(
        not PHOENIX and os.environ.get("CI") != "true",
        reason="arize-phoenix: THREADLAB_PHOENIX (its `phoenix` executable) is not set",
    ),
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def phoenix(tmp_path: Path) -> Iterator[str]:
    if not PHOENIX:
        pytest.fail("CI=true, but THREADLAB_PHOENIX is not set (.ci/run installs Phoenix)")
    port = _free_port()
    env = {**os.environ, "PHOENIX_WORKING_DIR": str(tmp_path), "PHOENIX_PORT": str(port),
           "PHOENIX_HOST": "127.0.0.1", "PHOENIX_GRPC_PORT": str(_free_port()),
           "PHOENIX_TELEMETRY_ENABLED": "false"}  # fmt: skip
    server = subprocess.Popen([str(PHOENIX), "serve"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{url}/v1/projects", timeout=2).read()
                break
            except OSError:
                assert time.monotonic() < deadline, "Phoenix did not start"
                time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        server.wait(30)


def spans_in(url: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{url}/v1/projects/default/spans?limit=100") as answer:
        return list(json.loads(answer.read())["data"])


async def test_phoenix_keeps_the_whole_trace_with_inputs(
    phoenix: str, rt: tl.Runtime, registry: tl.Registry
) -> None:
    thread = await a_thread(rt, registry)
    provider = TracerProvider()
    provider.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{phoenix}/v1/traces"))
    )
    sent = export_thread(thread, provider, include_content=True)
    deadline = time.monotonic() + 60
    while len(kept := spans_in(phoenix)) < sent:
        assert time.monotonic() < deadline, f"Phoenix kept {len(kept)} of {sent} spans"
        await asyncio.sleep(0.5)
    assert len({s["context"]["trace_id"] for s in kept}) == 1
    kinds = sorted(s["span_kind"] for s in kept)
    assert kinds == ["AGENT", "LLM", "LLM", "LLM", "LLM", "TOOL", "TOOL", "TOOL"]
    by_id = {s["context"]["span_id"]: s for s in kept}
    (inner,) = [s for s in kept if s["attributes"].get("gen_ai.tool.call.id") == "c_inner"]
    assert by_id[inner["parent_id"]]["name"] == "execute_tool researcher"
    (first,) = [s for s in kept if s["name"].startswith("chat ") and s["attributes"].get(
        "output.value") == "Let me look."]  # fmt: skip
    attributes = first["attributes"]
    assert attributes["llm.input_messages.0.message.content"] == "Lead."
    assert attributes["llm.input_messages.1.message.content"] == "find things"
    assert json.loads(attributes["llm.tools.1.tool.json_schema"])["function"]["name"] == "lookup"
    key = "llm.output_messages.0.message.tool_calls.1.tool_call.function.name"
    assert attributes[key] == "lookup"
    assert json.loads(attributes["gen_ai.input.messages"])[0]["role"] == "user"


async def test_phoenix_keeps_a_forks_tool_spans_beside_the_originals(
    phoenix: str, rt: tl.Runtime, registry: tl.Registry
) -> None:
    # A branch keeps the call ids of the thread it was forked from; Phoenix keeps only the
    # first span of an id, so each thread's spans must have ids of their own.
    thread = await a_thread(rt, registry)
    branch = await thread.fork("c_boom", arguments={"q": "other"})
    await branch.resume()
    provider = TracerProvider()
    provider.add_span_processor(
        SimpleSpanProcessor(OTLPSpanExporter(endpoint=f"{phoenix}/v1/traces"))
    )
    sent = export_thread(thread, provider, include_content=True)
    sent += export_thread(branch, provider, include_content=True)
    deadline = time.monotonic() + 60
    while len(kept := spans_in(phoenix)) < sent:
        assert time.monotonic() < deadline, f"Phoenix kept {len(kept)} of {sent} spans"
        await asyncio.sleep(0.5)
    tools = [s for s in kept if s["attributes"].get("gen_ai.tool.call.id") == "c_boom"]
    assert len({s["context"]["trace_id"] for s in tools}) == 2
    ids = {s["context"]["span_id"] for s in kept}
    assert all(s["parent_id"] is None or s["parent_id"] in ids for s in kept)
