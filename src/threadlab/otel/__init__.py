"""Threads as OpenTelemetry traces, through your `TracerProvider`: live (a run's spans as it
ends, `tl.Runtime(..., tracer_provider=provider)`) or after the fact (`export_thread`).

Needs the `otel` extra (`pip install 'threadlab[otel]'`: the OpenTelemetry SDK and its
OTLP/HTTP exporter). The provider's processors and exporters send the spans on: OTLP to a
collector, Jaeger or Arize Phoenix, or the SDK's in-memory exporter in tests.

Examples:
    >>> from opentelemetry.sdk.trace import TracerProvider
    >>> from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    >>> from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
    >>> import threadlab as tl
    >>> exporter = InMemorySpanExporter()
    >>> provider = TracerProvider()
    >>> provider.add_span_processor(SimpleSpanProcessor(exporter))
    >>> rt = tl.Runtime(tl.Registry(), getfixture("tmp_path"), tracer_provider=provider)
    >>> rt.close()  # each run's spans would have gone to `exporter` as the run ended
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from opentelemetry.trace import TracerProvider

from ._emit import emit
from ._spans import (
    SEMCONV_VERSION,
    History,
    SpanTree,
    TracedThread,
    run_spans,
    thread_spans,
    traces,
)

__all__ = [
    "SEMCONV_VERSION",
    "SpanTree",
    "TracedThread",
    "export_thread",
    "live_export",
    "run_spans",
    "thread_spans",
    "traces",
]


class _FinishedRun(Protocol):
    @property
    def id(self) -> str: ...


def export_thread(
    thread: TracedThread, tracer_provider: TracerProvider, *, include_content: bool = False
) -> int:
    """Send every finished run of a stored thread (its subagents' included) through
    `tracer_provider`, then flush it; the number of spans sent. Trace and span ids derive
    from the thread, run, message and call ids: exporting twice, or live and then again,
    gives the same trace. A subagent's thread sends nothing: its runs are in its root's
    traces (so exporting every thread of `rt.threads()` sends each span once)."""
    return emit(tracer_provider, traces(thread, include_content=include_content))


def live_export(
    tracer_provider: TracerProvider,
) -> Callable[[TracedThread, _FinishedRun], None]:
    """What `tl.Runtime(..., tracer_provider=...)` calls after each run: that run's spans,
    without content, sent and flushed. What it read of the threads it exported lately is
    kept, so a run of a long thread costs what that run did, not what the thread holds."""
    read: OrderedDict[str, History] = OrderedDict()

    def finished(thread: TracedThread, run: _FinishedRun) -> None:
        history = read.pop(thread.id, None)
        if history is None or history.thread is not thread:
            history = History(thread)
        read[thread.id] = history
        if len(read) > _THREADS_KEPT:
            read.popitem(last=False)
        emit(tracer_provider, traces(thread, run.id, history=history))

    return finished


_THREADS_KEPT = 64  # threads whose messages a live exporter keeps between their runs
