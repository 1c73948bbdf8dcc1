"""The entry points: `Runtime` (definitions + a store + limits) and the `Thread` handle."""

from ._app_calls import APP_CALL_EVENT, call_for_app
from ._engine import Engine, Handled, Handoff, RunPolicy
from ._explain import explain
from ._following import FollowedRun
from ._overview import ThreadOverview
from ._runtime import Runtime, run
from ._thread import Thread

__all__ = [
    "APP_CALL_EVENT",
    "Engine",
    "FollowedRun",
    "Handled",
    "Handoff",
    "RunPolicy",
    "Runtime",
    "Thread",
    "ThreadOverview",
    "call_for_app",
    "explain",
    "run",
]
