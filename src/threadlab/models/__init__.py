"""Models: what the runtime asks of one (a streamed response to a request), the offline
default, and scripted and function-driven test models."""

from ._base import (
    FinishChunk,
    Model,
    ModelChunk,
    ModelRequest,
    TextChunk,
    ToolCallChunk,
    ToolPurpose,
    ToolSpec,
)
from ._offline import OfflineModel
from ._scripted import FunctionModel, ScriptedCall, ScriptedModel, Step, call, step, text

__all__ = [
    "FinishChunk",
    "FunctionModel",
    "Model",
    "ModelChunk",
    "ModelRequest",
    "OfflineModel",
    "ScriptedCall",
    "ScriptedModel",
    "Step",
    "TextChunk",
    "ToolCallChunk",
    "ToolPurpose",
    "ToolSpec",
    "call",
    "step",
    "text",
]
