"""Models: the offline default, scripted and function-driven test models."""

from ._base import (
    FinishChunk,
    Model,
    ModelChunk,
    ModelRequest,
    TextChunk,
    ToolCallChunk,
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
    "ToolSpec",
    "call",
    "step",
    "text",
]
