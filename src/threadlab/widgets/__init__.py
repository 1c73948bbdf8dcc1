"""Views of threads for Jupyter: live while a run streams, static HTML once it is over."""

from ._card_approver import CardApprover
from ._card_elicitor import CardElicitor
from ._class_view import ClassView, class_view
from ._diff import ThreadDiff
from ._eval_view import EvalView
from ._graph_view import GraphView
from ._live import LiveRun
from ._player_view import PlayerView, player
from ._replay import relate, replay
from ._served_view import ServedView
from ._share import SharedThread, share, shared_thread
from ._static import StaticView, static_html, static_text
from ._throttle import Throttle
from ._view_state import ViewState
from ._views import ThreadListView, ThreadView

__all__ = [
    "CardApprover",
    "CardElicitor",
    "ClassView",
    "EvalView",
    "GraphView",
    "LiveRun",
    "PlayerView",
    "ServedView",
    "SharedThread",
    "StaticView",
    "ThreadDiff",
    "ThreadListView",
    "ThreadView",
    "Throttle",
    "ViewState",
    "class_view",
    "player",
    "relate",
    "replay",
    "share",
    "shared_thread",
    "static_html",
    "static_text",
]
