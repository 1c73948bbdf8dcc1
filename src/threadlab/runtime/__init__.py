"""The entry points: `Runtime` (definitions + a store + limits) and the `Thread` handle."""

from ._explain import explain
from ._overview import ThreadOverview
from ._runtime import Runtime, run
from ._thread import Thread

__all__ = ["Runtime", "Thread", "ThreadOverview", "explain", "run"]
