"""The cases of an evaluation: `tl.Case`, dicts of its fields, or a pydantic-evals `Dataset`
(whose cases and evaluators are taken as they are)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from .._errors import ThreadlabError

__all__ = ["Case", "EvalError", "read_cases"]


class EvalError(ThreadlabError, ValueError):
    """An evaluation that cannot start: no cases, a case or scorer that does not fit."""


class Case(BaseModel):
    """One input of an evaluation: a user message (with files to attach, variables for the
    thread), and what a scorer may compare the outcome with.

    Examples:
        >>> Case("greets", "Say hello.", expected="hello").name
        'greets'
    """

    model_config = ConfigDict(frozen=True, extra="forbid")
    name: str
    message: str
    attachments: dict[str, str | bytes] = {}
    """Files written into the case's thread before the message (path -> content), attached."""
    env: dict[str, str] | None = None
    """Values of the thread's variables."""
    expected: Any = None
    """What the outcome should be, for scorers (`EvalContext.expected`)."""
    metadata: dict[str, Any] | None = None

    def __init__(self, name: str | None = None, message: str | None = None, /,
                 **data: Any) -> None:  # fmt: skip
        if name is not None:
            data["name"] = name
        if message is not None:
            data["message"] = message
        super().__init__(**data)


def read_cases(cases: Any) -> tuple[list[Case], list[Any], dict[str, list[Any]]]:
    """(cases, evaluators for every case, evaluators per case name). A pydantic-evals
    `Dataset` gives its cases (inputs as the message: a str as it is, else its JSON) and its
    evaluators; EvalError for no cases, a case that is not one, or two with one name."""
    shared: list[Any] = []
    own: dict[str, list[Any]] = {}
    if _is_dataset(cases):
        shared = list(cases.evaluators)
        items: Iterable[Any] = cases.cases
    elif isinstance(cases, str | bytes | Mapping) or not isinstance(cases, Iterable):
        raise EvalError(
            "cases must be an iterable of tl.Case (or dicts of its fields) or a"
            f" pydantic_evals.Dataset, got {type(cases).__name__}"
        )
    else:
        items = cases
    out: list[Case] = []
    for n, item in enumerate(items):
        case = _case(n, item)
        if _is_dataset_case(item):
            own[case.name] = list(item.evaluators)
        out.append(case)
    if not out:
        raise EvalError("an evaluation needs at least one case")
    names = [c.name for c in out]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise EvalError(f"case names must differ; given twice: {', '.join(twice)}")
    return out, shared, own


def _case(n: int, item: Any) -> Case:
    if isinstance(item, Case):
        return item
    if _is_dataset_case(item):
        inputs = item.inputs
        message = inputs if isinstance(inputs, str) else json.dumps(inputs, default=str)
        return Case(item.name or f"case {n + 1}", message, expected=item.expected_output,
                    metadata=_as_dict(item.metadata))  # fmt: skip
    if isinstance(item, Mapping):
        try:
            return Case(**{"name": f"case {n + 1}", **item})
        except (TypeError, ValueError) as exc:
            raise EvalError(f"case {n + 1} does not fit tl.Case: {exc}") from None
    raise EvalError(f"case {n + 1} is a {type(item).__name__}, not a tl.Case or a dict")


def _as_dict(metadata: Any) -> dict[str, Any] | None:
    if metadata is None or isinstance(metadata, dict):
        return metadata
    if isinstance(metadata, BaseModel):
        return metadata.model_dump()
    return {"value": metadata}


def _is_dataset(value: Any) -> bool:
    return type(value).__module__.startswith("pydantic_evals") and hasattr(value, "cases")


def _is_dataset_case(value: Any) -> bool:
    return type(value).__module__.startswith("pydantic_evals") and hasattr(value, "inputs")
