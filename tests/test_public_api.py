"""The public surface: every name the API contract promises is importable from threadlab."""

from __future__ import annotations

import threadlab as tl

CONTRACT = {
    "Variable",
    "define_tool",
    "tool",
    "ToolResult",
    "define_prompt",
    "SubpromptConfig",
    "define_agent",
    "Side",
    "Subagent",
    "define_model",
    "define_hook",
    "Registry",
    "default_registry",
    "DefinitionError",
    "MissingVariableError",
    "PathError",
    "SandboxUnavailableError",
    "RESERVED_TOOL_NAMES",
    "Runtime",
    "run",
    "Run",
    "Thread",
    "ThreadState",
    "Message",
    "ToolCall",
    "Event",
    "ToolConfig",
    "Text",
    "Include",
    "Env",
    "models",
}
MODELS = {"OfflineModel", "ScriptedModel", "FunctionModel", "ToolSpec", "text", "call", "step"}


def test_every_contract_name_is_exported() -> None:
    assert set(tl.__all__) >= CONTRACT
    for name in tl.__all__:
        assert hasattr(tl, name), name
    assert set(tl.models.__all__) >= MODELS


def test_reserved_names() -> None:
    assert frozenset({"subagents", "subagent_create", "subagent_message"}) == tl.RESERVED_TOOL_NAMES
