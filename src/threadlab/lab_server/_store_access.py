"""The one runtime the extension reads a store through, opened when first asked for, on a
thread of its own: every read of the store waits its turn there, off the server's event loop.

A store that cannot be opened is said, with which store and why, to each request that needs
it (`StoreUnavailable`); the next request tries again, so a database that comes back is used
without restarting the server. A SQLite store not made yet is not made by looking: until a
thread is stored there, it reads as empty (`StoreMissing`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import threadlab as tl
from threadlab._urls import hide, scrub, shown

__all__ = ["StoreAccess", "StoreMissing", "StoreUnavailable"]

log = logging.getLogger("threadlab.lab_server")

T = TypeVar("T")


class StoreUnavailable(Exception):
    """The store could not be opened."""

    def __init__(self, store: str, reason: str) -> None:
        super().__init__(f"the threadlab store {store} cannot be opened: {reason}")
        self.store = store
        self.reason = reason


class StoreMissing(Exception):
    """The SQLite store is not there yet: nothing was stored in it."""


class StoreAccess:
    """Reads of one store, one at a time, on a thread of their own."""

    def __init__(self, spec: str) -> None:
        self.spec = spec
        self.shown = shown(spec)
        """The store as said to a browser (a URL without its password)."""
        self._runtime: tl.Runtime | None = None
        # One thread: a Runtime's handles are not shared between threads, and a store's reads
        # are quick; a second request waits for the first instead of racing it.
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="threadlab-panel")

    async def read(self, reading: Callable[[tl.Runtime], T]) -> T:
        """`reading(runtime)`, on the store's thread; `StoreUnavailable` when it cannot open,
        `StoreMissing` when it is not there yet."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._thread, lambda: reading(self._opened()))

    def _opened(self) -> tl.Runtime:
        if self._runtime is None:
            if "://" not in self.spec and not (Path(self.spec) / _SQLITE_FILE).exists():
                raise StoreMissing(self.spec)
            try:
                self._runtime = tl.Runtime(tl.Registry(), store=self.spec)
            except Exception as exc:  # any reason a store cannot open is the browser's to read
                log.warning("the threadlab store %s cannot be opened: %s", self.shown, exc)
                raise StoreUnavailable(self.shown, _reason(exc, self.spec)) from exc
        return self._runtime

    def close(self) -> None:
        if self._runtime is not None:
            self._thread.submit(self._runtime.close).result()
            self._runtime = None
        self._thread.shutdown(wait=False)


_SQLITE_FILE = "threads.sqlite3"


def _reason(exc: Exception, spec: str) -> str:
    """The error's words, without the store URL's password."""
    return hide(scrub(str(exc)), spec) or type(exc).__name__
