"""What a model may do beyond streaming, asked through the protocols that declare it
(`tl.models.DescribedModel`, `tl.models.ReplayingModel`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeGuard

from ..models import DescribedModel, Model, ReplayingModel, supports

__all__ = ["is_described", "is_model", "is_replaying", "model_id", "model_options"]


def is_model(value: object) -> TypeGuard[Model]:
    """Whether `value` is a model."""
    return supports(value, Model)


def is_described(model: object) -> TypeGuard[DescribedModel]:
    """Whether `model` names a provider's model and its options."""
    return supports(model, DescribedModel)


def is_replaying(model: object) -> TypeGuard[ReplayingModel]:
    """Whether `model` replays a recording."""
    return supports(model, ReplayingModel)


def model_id(model: Model) -> str | None:
    """The id a step of `model` is recorded under: the provider's model, else its name."""
    if is_described(model):
        return model.model or model.name or None
    return model.name or None


def model_options(model: Model) -> Mapping[str, Any]:
    """The options `model` sends with each request (none for a model of this process)."""
    return model.options if is_described(model) else {}
