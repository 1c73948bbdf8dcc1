"""Our spans through someone's `TracerProvider`: its sampler, resource, processors and
exporters — the pipeline a team already set up for Phoenix, Jaeger or a collector.

The spans are replayed through the tracer API with their real start and end times. Their
ids stay ours (derived from thread, run, message and call ids) with the SDK's provider: the
SDK's tracer asks its id generator for each new span's ids, and the tracer we get for our own
instrumentation scope is given a generator that hands out the id we are about to use (the
provider's own generator for anything else). Another provider implementation keeps its own
span ids; the trace id of a subagent's spans still follows their parent.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

from opentelemetry import trace
from opentelemetry.context import Context
from opentelemetry.sdk.trace.id_generator import IdGenerator
from opentelemetry.trace import NonRecordingSpan, SpanContext, TraceFlags

from .._version import __version__
from ._spans import SpanTree

__all__ = ["emit"]


class _DerivedIds(IdGenerator):
    """Hands out the ids `emit` is about to use, else asks the provider's generator."""

    def __init__(self, fallback: IdGenerator) -> None:
        self.fallback = fallback
        self._next = threading.local()

    def use(self, trace_id: int, span_id: int) -> None:
        self._next.ids = (trace_id, span_id)

    def generate_trace_id(self) -> int:
        ids = getattr(self._next, "ids", None)
        return ids[0] if ids is not None else self.fallback.generate_trace_id()

    def generate_span_id(self) -> int:
        ids = getattr(self._next, "ids", None)
        if ids is None:
            return self.fallback.generate_span_id()
        self._next.ids = None  # one span per `use`
        return int(ids[1])


def _tracer(provider: trace.TracerProvider) -> tuple[trace.Tracer, _DerivedIds | None]:
    tracer = provider.get_tracer("threadlab", __version__)
    # The SDK's tracer: one per scope, ours alone; `id_generator` is its public attribute.
    current = getattr(tracer, "id_generator", None)
    if isinstance(current, _DerivedIds):
        return tracer, current
    if isinstance(current, IdGenerator):
        derived = _DerivedIds(current)
        tracer.id_generator = derived  # type: ignore[attr-defined]
        return tracer, derived
    return tracer, None


def emit(provider: trace.TracerProvider, trees: Iterable[SpanTree]) -> int:
    """Send each tree's spans through `provider` and flush it (a notebook's kernel lives long:
    it must not sit on spans); the number of spans sent."""
    tracer, ids = _tracer(provider)
    sent = 0
    for tree in trees:
        made: dict[int, SpanContext] = {}
        for span in tree.spans:
            if span.parent is None:
                context = Context()  # a root: nothing of the caller's current span
            else:
                parent = made.get(span.parent) or SpanContext(
                    tree.trace_id, span.parent, False, TraceFlags(TraceFlags.SAMPLED)
                )
                context = trace.set_span_in_context(NonRecordingSpan(parent))
            if ids is not None:
                ids.use(tree.trace_id, span.span_id)
            live = tracer.start_span(
                span.name,
                context=context,
                kind=span.kind,
                attributes=span.attributes,
                start_time=span.start_ns,
            )
            for event in span.events:
                live.add_event(event.name, event.attributes, event.timestamp)
            live.set_status(span.status)
            live.end(end_time=span.end_ns)
            made[span.span_id] = live.get_span_context()
            sent += 1
    flush = getattr(provider, "force_flush", None)
    if callable(flush):
        flush()
    return sent
