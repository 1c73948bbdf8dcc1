"""Running the hooks a prompt (else its agent) lists: with a timeout, and never letting a
failing hook change the data or stop the loop."""

from __future__ import annotations

import asyncio
import inspect
import logging
from typing import Any

from ..definitions import HookDefinition, Registry

__all__ = ["HookRunner"]

log = logging.getLogger("threadlab.hooks")


class HookRunner:
    """The hook implementations one prompt (else its agent) lists, by hook name."""

    def __init__(self, registry: Registry, ids: tuple[str, ...], timeout: float) -> None:
        self._by_hook: dict[str, list[HookDefinition]] = {}
        for hook_id in ids:
            definition = registry.hook(hook_id)
            if definition is None:
                log.warning("hook id %r is listed but not defined; skipping it", hook_id)
                continue
            self._by_hook.setdefault(definition.hook, []).append(definition)
        self._timeout = timeout

    def has(self, hook: str) -> bool:
        """Whether any listed implementation is for `hook` (most steps have none to run)."""
        return hook in self._by_hook

    async def run(self, hook: str, state: Any, payload: Any, *, transform: bool = False) -> Any:
        """Run every implementation of `hook` in order; a transforming hook's return value
        replaces the payload for the next one (None keeps it)."""
        for definition in self._by_hook.get(hook, ()):
            try:
                result = definition.execute(state, payload)
                if inspect.isawaitable(result):
                    async with asyncio.timeout(self._timeout):
                        result = await result
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                # Logged without the payload: it may hold secrets.
                log.warning(
                    "hook %r (%s) failed and was ignored: %s: %s",
                    definition.id,
                    hook,
                    type(exc).__name__,
                    "timed out" if isinstance(exc, TimeoutError) else exc,
                )
                continue
            if transform and result is not None:
                payload = result
        return payload
