"""Names for the small vocabularies every layer passes around, so a signature says which one
it takes and a misspelt value is a type error rather than a silent miss."""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["HOOK_NAMES", "HookName", "SideName"]

SideName = Literal["a", "b"]
"""A side of an agent: "a" owns the thread; "b" answers it in a dual_ai session."""

HookName = Literal[
    "tool_call_started",
    "filter_messages",
    "prefilter_llm_history",
    "before_create_message",
    "after_create_message",
    "before_store_tool_result",
    "after_tool_call_success",
    "after_tool_call_failure",
    "after_subagent_created",
]
"""The spec's hooks, by the name a hook definition gives."""

HOOK_NAMES: frozenset[str] = frozenset(get_args(HookName))
