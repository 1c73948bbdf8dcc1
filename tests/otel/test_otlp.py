"""Spans over OTLP/HTTP to a receiver of our own on 127.0.0.1 that decodes the protobuf
payload, as a collector, Jaeger or Phoenix would receive it: the real wire, no collector."""

from __future__ import annotations

import gzip
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
)
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor

import threadlab as tl
from threadlab.models import call, text
from threadlab.otel import export_thread

from ..helpers import scripted_prompt


@pytest.fixture
def receiver() -> Iterator[tuple[str, list[ExportTraceServiceRequest]]]:
    received: list[ExportTraceServiceRequest] = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            received.append(request)
            self.send_response(200)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", "0")
            self.end_headers()

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
    )
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/traces", received
    server.shutdown()
    server.server_close()


def received_spans(received: list[ExportTraceServiceRequest]) -> list[Any]:
    return [
        span
        for request in received
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]


def batching_provider(url: str) -> TracerProvider:
    """What a team sets up: its own resource, a batch processor that would wait 10 minutes
    before sending on its own — so only our flush can make the spans arrive in time."""
    provider = TracerProvider(resource=Resource.create({"service.name": "research-notebook"}))
    provider.add_span_processor(
        BatchSpanProcessor(OTLPSpanExporter(endpoint=url), schedule_delay_millis=600_000)
    )
    return provider


async def test_spans_arrive_over_otlp_http_as_protobuf(
    registry: tl.Registry,
    store_dir: Path,
    receiver: tuple[str, list[ExportTraceServiceRequest]],
) -> None:
    url, received = receiver
    tl.define_tool("ping", description="Ping.", execute=lambda s, a: "pong", registry=registry)
    scripted_prompt(registry, [call("ping"), text("done")], tools=["ping"])
    provider = batching_provider(url)
    rt = tl.Runtime(registry, store_dir, secret_key="k", tracer_provider=provider)
    thread = await rt.create_thread("p")
    await thread.send("go")  # the run's spans are flushed as it ends

    spans = received_spans(received)
    assert len(spans) == 4  # the run, two model steps, one tool call
    names = sorted(s.name for s in spans)
    assert names == ["chat scripted", "chat scripted", "execute_tool ping", "invoke_agent p"]
    (run,) = [s for s in spans if s.name == "invoke_agent p"]
    (tool,) = [s for s in spans if s.name == "execute_tool ping"]
    assert tool.parent_span_id == run.span_id
    assert len({s.trace_id for s in spans}) == 1
    attributes = {a.key: a.value.string_value for a in run.attributes}
    assert attributes["gen_ai.conversation.id"] == thread.id
    resource = received[0].resource_spans[0].resource  # the provider's, not ours
    assert {a.key: a.value.string_value for a in resource.attributes}["service.name"] == (
        "research-notebook"
    )
    assert received[0].resource_spans[0].scope_spans[0].scope.name == "threadlab"
    assert tool.end_time_unix_nano >= tool.start_time_unix_nano > 0

    # After the fact, through the same pipeline: the same ids on the wire.
    received.clear()
    assert export_thread(rt.thread(thread.id), provider) == 4
    again = received_spans(received)
    assert sorted((s.trace_id, s.span_id) for s in again) == sorted(
        (s.trace_id, s.span_id) for s in spans
    )
    rt.close()
    provider.shutdown()
