"""Starting a local Ray on a machine that may be busy."""

from __future__ import annotations

import logging
from typing import Any

__all__ = ["START_TRIES", "start_local_ray"]

log = logging.getLogger("threadlab.engine")

START_TRIES = 3
"""How many times a local Ray is started before its error is the caller's."""

_SLOW_START = "timed out during startup"
"""What Ray says when a process of the new node did not come up in time."""


def start_local_ray(ray: Any, **options: Any) -> None:
    """`ray.init(**options)` for a Ray started in this process, tried again when the node
    did not come up in time: Ray's raylet gives its agents a fixed 15 seconds, which a
    machine busy with other work can miss, and a second start then finds them warm."""
    for attempt in range(1, START_TRIES + 1):
        try:
            ray.init(**options)
            return
        except Exception as exc:
            if _SLOW_START not in str(exc) or attempt == START_TRIES:
                raise
            log.warning("the local Ray did not start in time (try %d of %d): %s",
                        attempt, START_TRIES, exc)  # fmt: skip
            ray.shutdown()
