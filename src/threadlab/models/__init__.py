"""Models: what the runtime asks of one (a streamed response to a request), the offline
default, remote providers through their SDKs, and scripted and function-driven test
models."""

from ._base import (
    DescribedModel,
    FinishChunk,
    Model,
    ModelChunk,
    ModelRequest,
    PricedModel,
    ReasoningChunk,
    ReplayingModel,
    ServedFrom,
    TextChunk,
    ToolCallChunk,
    ToolPurpose,
    ToolSpec,
    supports,
)
from ._offline import OfflineModel
from ._prices import step_cost
from ._provider_names import provider_name
from ._providers import remote_model
from ._remote import RemoteModel
from ._replay import RecordedThread, ReplayModel
from ._scripted import FunctionModel, ScriptedCall, ScriptedModel, Step, call, step, text

__all__ = [
    "DescribedModel",
    "FinishChunk",
    "FunctionModel",
    "Model",
    "ModelChunk",
    "ModelRequest",
    "OfflineModel",
    "PricedModel",
    "ReasoningChunk",
    "RecordedThread",
    "RemoteModel",
    "ReplayModel",
    "ReplayingModel",
    "ScriptedCall",
    "ScriptedModel",
    "ServedFrom",
    "Step",
    "TextChunk",
    "ToolCallChunk",
    "ToolPurpose",
    "ToolSpec",
    "call",
    "provider_name",
    "remote_model",
    "step",
    "step_cost",
    "supports",
    "text",
]
