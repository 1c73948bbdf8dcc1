"""Running the hooks a prompt (else its agent) lists: with a timeout, and never letting a
failing hook change the data or stop the loop."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable
from typing import Any

from .._data import HookName, Message
from ..definitions import HookDefinition, Registry, is_async_callable
from ._thread_pool import on_pooled_thread

__all__ = ["HookRunner", "is_message", "is_message_list"]

log = logging.getLogger("threadlab.hooks")


class HookRunner:
    """The hook implementations one prompt (else its agent) lists, by hook name."""

    def __init__(
        self,
        registry: Registry,
        ids: tuple[str, ...],
        timeout: float,
        redact: Callable[[str], str] = lambda text: text,
    ) -> None:
        self._by_hook: dict[HookName, list[HookDefinition]] = {}
        for hook_id in ids:
            definition = registry.hook(hook_id)
            if definition is None:
                log.warning("hook id %r is listed but not defined; skipping it", hook_id)
                continue
            self._by_hook.setdefault(definition.hook, []).append(definition)
        self._timeout = timeout
        self._redact = redact

    def has(self, hook: HookName) -> bool:
        """Whether any listed implementation is for `hook` (most steps have none to run)."""
        return hook in self._by_hook

    async def run(
        self,
        hook: HookName,
        state: Any,
        payload: Any,
        *,
        transform: bool = False,
        expect: Callable[[Any], bool] | None = None,
    ) -> Any:
        """Run every implementation of `hook` in order; a transforming hook's return value
        replaces the payload for the next one (None keeps it). A return value that `expect`
        rejects is reported and ignored, like a hook that raises or times out."""
        for definition in self._by_hook.get(hook, ()):
            try:
                result = await self._call(definition, state, payload)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                reason = "timed out" if isinstance(exc, TimeoutError) else f"{exc}"
                self._ignored(definition, hook, f"failed: {type(exc).__name__}: {reason}")
                continue
            if not transform or result is None:
                continue
            if expect is not None and not expect(result):
                self._ignored(
                    definition, hook, f"returned a {type(result).__name__}, not what it transforms"
                )
                continue
            payload = result
        return payload

    async def _call(self, definition: HookDefinition, state: Any, payload: Any) -> Any:
        async with asyncio.timeout(self._timeout):
            if is_async_callable(definition.execute):
                return await definition.execute(state, payload)
            # A sync hook runs in a pooled thread so that its timeout holds; one that
            # overruns is abandoned there.
            result = await on_pooled_thread(
                definition.execute, state, payload, name=f"threadlab-hook-{definition.id}"
            )
            if inspect.isawaitable(result):
                result = await result
            return result

    def _ignored(self, definition: HookDefinition, hook: HookName, why: str) -> None:
        # Logged without the payload, and redacted: an exception's message may hold a secret.
        log.warning("hook %r (%s) %s; it was ignored", definition.id, hook, self._redact(why))


def is_message(value: object) -> bool:
    """What a hook that transforms a message must return."""
    return isinstance(value, Message)


def is_message_list(value: object) -> bool:
    """What a hook that filters the model's input must return."""
    return isinstance(value, list) and all(isinstance(m, Message) for m in value)
