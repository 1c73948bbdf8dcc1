"""The public surface, asserted exactly: a name added to or dropped from it is a decision, made
here on purpose, never a side effect of moving code."""

from __future__ import annotations

import ast
import importlib
import typing
from pathlib import Path

import pytest

import threadlab as tl

PUBLIC = {
    # definitions
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
    "define_mcp_server",
    "OAuth",
    "define_resource",
    "ResourceDefinition",
    "Attachment",
    "Elicitation",
    "MCPServerDefinition",
    "ToolConfig",
    "Text",
    "Include",
    "Env",
    "Registry",
    "default_registry",
    "RESERVED_TOOL_NAMES",
    "AgentDefinition",
    "HookDefinition",
    "ModelDefinition",
    "PromptDefinition",
    "ToolDefinition",
    # errors
    "ThreadlabError",
    "DefinitionError",
    "MCPServerError",
    "MissingVariableError",
    "ModelError",
    "PathError",
    "SandboxUnavailableError",
    "ThreadNotFoundError",
    "ThreadOverview",
    "CallContextError",
    "StoreURLError",
    "StoreError",
    "StoreVersionError",
    "CodeOptionError",
    "SecretKeyError",
    "SecretValueError",
    "ReplayDivergedError",
    "ThreadBusyError",
    "ElicitationError",
    "SamplingError",
    # running
    "RayEngine",
    "Runtime",
    "run",
    "explain",
    "graph",
    "player",
    "Run",
    "Thread",
    "ThreadState",
    "SampledReply",
    "ExecutionInfo",
    "ChildInfo",
    "ForkPoint",
    "Approval",
    "ApprovalRequest",
    "Budget",
    "ApprovalRequestedEvent",
    "ApprovalDecidedEvent",
    "Message",
    "Reasoning",
    "SeenRequest",
    "StepRecord",
    "FollowedRun",
    "GradeResult",
    "GradeItem",
    "class_view",
    "share",
    "Decision",
    "ToolCall",
    # events
    "Event",
    "ThreadEvent",
    "ThreadStatusEvent",
    "MessageCreatedEvent",
    "TextDeltaEvent",
    "ToolCallDeltaEvent",
    "ToolCallStartedEvent",
    "ToolCallFinishedEvent",
    "SubagentCreatedEvent",
    "FileWrittenEvent",
    "CustomEvent",
    "HandoffEvent",
    "RunFinishedEvent",
    # code execution
    "CodeRun",
    "CodeResult",
    "CodeFailure",
    # evaluation
    "evaluate",
    "Case",
    "EvalContext",
    "EvalReport",
    "EvalRow",
    "EvalError",
    # storage
    "Store",
    "PostgresStore",
    "SQLiteStore",
    "FileRecord",
    # modules and metadata
    "models",
    "mcp",
    "scorers",
    "__version__",
}
MODELS = {
    "OfflineModel",
    "ScriptedModel",
    "FunctionModel",
    "ScriptedCall",
    "Step",
    "text",
    "call",
    "step",
    "step_cost",
    "provider_name",
    "Model",
    "DescribedModel",
    "ReplayingModel",
    "PricedModel",
    "ServedFrom",
    "supports",
    "ModelRequest",
    "ModelChunk",
    "TextChunk",
    "ReasoningChunk",
    "ToolCallChunk",
    "FinishChunk",
    "ToolSpec",
    "ToolPurpose",
    "RemoteModel",
    "remote_model",
    "ReplayModel",
    "RecordedThread",
}
# Implementation packages are reachable as attributes (the notebook side once it has been
# imported), but they are not the public surface. `threadlab.otel` is imported by name (it
# needs the otel extra): once imported, it is an attribute too.
LAYERS = {
    "otel",
    "grading",
    "testing",
    "definitions",
    "engine",
    "evaluation",
    "execution",
    "mcp_client",
    "runtime",
    "sandbox",
    "store",
    "threads",
    "widgets",
    "kernel_ext",
    "lab_server",  # Jupyter Server imports it as threadlab's server extension
}
EXTENSION_HOOKS = {"load_ipython_extension", "unload_ipython_extension"}


def test_the_public_names_are_exactly_the_contract() -> None:
    assert set(tl.__all__) == PUBLIC
    for name in tl.__all__:
        assert hasattr(tl, name), name


def test_the_models_module_exports_exactly_its_contract() -> None:
    assert set(tl.models.__all__) == MODELS
    for name in tl.models.__all__:
        assert hasattr(tl.models, name), name


def test_nothing_else_public_leaks_into_the_package_namespace() -> None:
    leaked = {n for n in dir(tl) if not n.startswith("_")} - set(tl.__all__)
    assert leaked - LAYERS == EXTENSION_HOOKS


def test_every_error_is_a_threadlab_error_and_keeps_its_builtin_base() -> None:
    assert issubclass(tl.ThreadNotFoundError, LookupError)
    assert issubclass(tl.CallContextError, RuntimeError)
    assert issubclass(tl.StoreVersionError, RuntimeError)
    assert issubclass(tl.StoreError, OSError)
    assert issubclass(tl.DefinitionError, ValueError)
    for name in tl.__all__:
        value = getattr(tl, name)
        if isinstance(value, type) and issubclass(value, Exception):
            assert issubclass(value, tl.ThreadlabError), name


def test_the_package_ships_its_types_and_one_version() -> None:
    package = Path(tl.__file__).parent
    assert (package / "py.typed").exists()
    pyproject = (package.parents[1] / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject
    assert tl.__version__.count(".") == 2


def test_thread_events_form_a_union_discriminated_by_type() -> None:
    members = typing.get_args(typing.get_args(tl.ThreadEvent)[0])
    types = [m.model_fields["type"].default for m in members]
    assert len(set(types)) == len(types) == 13


def test_reserved_names() -> None:
    assert frozenset({"subagents", "subagent_create", "subagent_message"}) == tl.RESERVED_TOOL_NAMES


@pytest.mark.parametrize(
    ("old", "new"), [("ThreadNotFound", "ThreadNotFoundError"), ("CodeError", "CodeFailure")]
)
def test_renamed_names_still_work_for_one_release_and_say_the_new_one(old: str, new: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"tl.{old} is deprecated.*use tl.{new}"):
        value = getattr(tl, old)
    assert value is getattr(tl, new)
    with pytest.warns(DeprecationWarning, match=f"use tl.{new}"):
        exec(f"from threadlab import {old}", {})
    with pytest.raises(AttributeError, match="no attribute 'Nope'"):
        tl.Nope  # type: ignore[attr-defined]  # noqa: B018


def test_each_public_name_is_found_where_the_type_checkers_see_it_imported() -> None:
    # The package imports its names on first use from a table; the imports type checkers read
    # are written beside it. Both must say the same module for every name.
    tree = ast.parse(Path(tl.__file__).read_text())
    checked = next(
        node
        for node in tree.body
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
    )
    imported = {
        alias.name: "." * node.level + (node.module or "")
        for node in checked.body
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
    }
    table = {name: module for module, names in tl._HOMES.items() for name in names}
    assert table == {n: m for n, m in imported.items() if m != "."}
    assert {n for n, m in imported.items() if m == "."} == set(tl._SUBPACKAGES)
    assert set(imported) | {"__version__"} == set(tl.__all__)
    for name, module in table.items():
        home = importlib.import_module(module, "threadlab")
        assert getattr(tl, name) is getattr(home, name), name
