"""A call waiting for a decision, asked of the MCP client's person as an elicitation form:
approve or reject, a reason, and the call's simple arguments as fields holding what the model
gave (a changed field is an edit, checked against the tool's schema like any other).

Only an answer that says approve approves: any other decision, or none, decides nothing (the
call goes on waiting, and the client hears why) — an answer the form did not offer must not
run a call."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

from .._data import ApprovalRequest

__all__ = ["Decision", "arguments_shown", "decision_form", "edited_arguments", "read_decision"]

Decision = Literal["approve", "reject"]

_SIMPLE = ("string", "number", "integer", "boolean")


def _editable(request: ApprovalRequest, schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The arguments a form can show: those of a simple type (a form holds no objects)."""
    given = request.arguments if isinstance(request.arguments, dict) else {}
    out: dict[str, dict[str, Any]] = {}
    for name, spec in (schema.get("properties") or {}).items():
        kind = spec.get("type") if isinstance(spec, dict) else None
        if kind not in _SIMPLE or name in ("decision", "reason"):
            continue
        field: dict[str, Any] = {"type": kind, "title": name}
        if spec.get("description"):
            field["description"] = spec["description"]
        if kind == "string" and isinstance(spec.get("enum"), list):
            field["enum"] = spec["enum"]
        if name in given and given[name] is not None:
            field["default"] = given[name]
        out[name] = field
    return out


_VALUE_CHARS = 160
_ARGUMENTS_SHOWN = 20


def arguments_shown(arguments: Any) -> str:
    """Every argument the person decides on, each cut on its own (saying so), so that neither
    a long one nor a progress text hides another: an object or a list the form cannot edit
    is shown as well."""
    if not isinstance(arguments, dict):
        return _cut(arguments)
    items = list(arguments.items())
    shown = [f"{name}={_cut(value)}" for name, value in items[:_ARGUMENTS_SHOWN]]
    if len(items) > _ARGUMENTS_SHOWN:
        shown.append(f"and {len(items) - _ARGUMENTS_SHOWN} more arguments not shown")
    return ", ".join(shown)


def _cut(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    if len(text) <= _VALUE_CHARS:
        return text
    return f"{text[:_VALUE_CHARS]}… ({len(text):,} characters, cut)"


def decision_form(request: ApprovalRequest, schema: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The message and requested schema of the elicitation for `request`."""
    doing = f" ({request.progress})" if request.progress else ""
    message = (
        f"threadlab: the call {request.name}({arguments_shown(request.arguments)}){doing}"
        f" needs a decision before it runs (thread {request.thread_id}, call"
        f" {request.tool_call_id})."
    )
    properties: dict[str, Any] = {
        "decision": {"type": "string", "title": "Decision", "enum": ["approve", "reject"],
                     "enumNames": ["Approve", "Reject"]},
        "reason": {"type": "string", "title": "Reason", "description": "Why, when rejecting."},
        **_editable(request, schema),
    }  # fmt: skip
    return message, {"type": "object", "properties": properties, "required": ["decision"]}


def read_decision(answer: Mapping[str, Any]) -> tuple[Decision | None, str]:
    """The decision an accepted form's answer gives — its `decision` field, one of the form's
    values or their labels as some clients send them ("Approve", any case, spaces around) —
    or None and why it decides nothing."""
    given = answer.get("decision")
    said = given.strip().lower() if isinstance(given, str) else None
    if said == "approve":
        return "approve", ""
    if said == "reject":
        return "reject", ""
    if given is None:
        return None, "the answer has no decision (the form's decision field is approve or reject)"
    shown = json.dumps(given)[:80]
    return None, f"the answer's decision {shown} is neither approve nor reject"


def edited_arguments(
    request: ApprovalRequest, schema: dict[str, Any], answer: dict[str, Any]
) -> dict[str, Any] | None:
    """The call's arguments with the fields the person changed; None when none changed."""
    given = dict(request.arguments) if isinstance(request.arguments, dict) else {}
    changed = {
        name: answer[name]
        for name in _editable(request, schema)
        if name in answer and answer[name] != given.get(name)
    }
    return {**given, **changed} if changed else None
