"""The form that asks an MCP client's person to decide a served call shows every argument the
call would run with: a progress text, or a long argument the model padded, hides none."""

from __future__ import annotations

import threadlab as tl
from threadlab.mcp._decision_form import decision_form


def test_the_form_shows_each_argument_cut_on_its_own_beside_the_progress() -> None:
    request = tl.ApprovalRequest(
        "thr_1", "call_1", "run_shell",
        {"description": "tidying up " + "." * 600, "commands": ["rm -rf /"], "force": True},
        "tidying up",
    )  # fmt: skip
    schema = {"type": "object", "properties": {"description": {"type": "string"},
              "commands": {"type": "array"}, "force": {"type": "boolean"}}}  # fmt: skip
    message, form = decision_form(request, schema)
    assert 'commands=["rm -rf /"]' in message  # an argument the form has no field for
    assert "force=true" in message
    assert "(tidying up)" in message
    assert "(613 characters, cut)" in message
    assert len(message) < 600
    assert "commands" not in form["properties"]  # shown, not editable


def test_a_call_with_many_arguments_says_how_many_are_not_shown() -> None:
    arguments = {f"a{i}": i for i in range(30)}
    message, _ = decision_form(tl.ApprovalRequest("thr_1", "c", "t", arguments), {})
    assert "a19=19, and 10 more arguments not shown" in message
