"""Views of threads for Jupyter: live while a run streams, static HTML once it is over."""

from ._card_approver import CardApprover
from ._diff import ThreadDiff
from ._eval_view import EvalView
from ._live import LiveRun
from ._replay import replay
from ._static import StaticTrace, static_html, static_text
from ._throttle import Throttle
from ._trace import TraceState
from ._views import ThreadListView, TraceView

__all__ = [
    "CardApprover",
    "EvalView",
    "LiveRun",
    "StaticTrace",
    "ThreadDiff",
    "ThreadListView",
    "Throttle",
    "TraceState",
    "TraceView",
    "replay",
    "static_html",
    "static_text",
]
