"""Threads as OpenTelemetry traces: export a stored thread, or every run as it ends.

Needs the `otel` extra (`pip install 'threadlab[otel]'`: the OpenTelemetry SDK and its
OTLP/HTTP exporter). Any SDK `SpanExporter` works: OTLP to a collector, Jaeger or Arize
Phoenix, or the SDK's in-memory exporter in tests.

Example:
    >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    >>> import threadlab as tl
    >>> exporter = InMemorySpanExporter()
    >>> rt = tl.Runtime(tl.Registry(), getfixture("tmp_path"))
    >>> stop = instrument(rt, exporter)  # each run's spans, exported when it ends
    >>> stop(); rt.close()
"""

from __future__ import annotations

from collections.abc import Callable

from opentelemetry.sdk.trace.export import SpanExporter

from .._records import Run
from ..runtime import Runtime, Thread
from ._spans import SEMCONV_VERSION, run_spans, thread_spans

__all__ = ["SEMCONV_VERSION", "export_thread", "instrument", "run_spans", "thread_spans"]


def export_thread(
    thread: Thread,
    exporter: SpanExporter,
    *,
    include_content: bool = False,
    openinference: bool = False,
) -> int:
    """Export every finished run of a stored thread (its subagents' included); the number of
    spans sent. Exporting twice sends the same trace and span ids."""
    spans = thread_spans(thread, include_content=include_content, openinference=openinference)
    if spans:
        exporter.export(spans)
        exporter.force_flush()
    return len(spans)


def instrument(
    runtime: Runtime,
    exporter: SpanExporter,
    *,
    include_content: bool = False,
    openinference: bool = False,
) -> Callable[[], None]:
    """Export each run's spans when it ends (a long-lived kernel does not sit on them);
    returns a function that stops it. The spans are the ones `export_thread` would send."""

    def finished(thread: Thread, run: Run) -> None:
        spans = run_spans(
            thread, run.id, include_content=include_content, openinference=openinference
        )
        if spans:
            exporter.export(spans)
            exporter.force_flush()

    return runtime.on_run_finished(finished)
