"""Whether a user's callable (a tool's execute, a hook, an approver) is async.

`inspect.iscoroutinefunction` says no for an object whose `__call__` is async and for a
`functools.partial` of an async function, which would then be run in a pooled thread and hand
back a coroutine nobody awaits.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

__all__ = ["is_async_callable"]


def is_async_callable(fn: Any) -> bool:
    """True when calling `fn` gives a coroutine to await.

    >>> async def f(): ...
    >>> class Tool:
    ...     async def __call__(self): ...
    >>> is_async_callable(f), is_async_callable(Tool()), is_async_callable(functools.partial(f))
    (True, True, True)
    >>> is_async_callable(print)
    False
    """
    while isinstance(fn, functools.partial):
        fn = fn.func
    if inspect.iscoroutinefunction(fn):
        return True
    call = getattr(fn, "__call__", None)  # noqa: B004 - the bound method of an instance
    return not inspect.isfunction(fn) and inspect.iscoroutinefunction(call)
