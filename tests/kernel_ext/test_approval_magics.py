"""Approvals in a notebook: `%%tool --approval always`, `%threadlab pending`, and
`%threadlab approve` / `reject` (a cell of their own: they decide, then resume the thread)."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from .test_magics import magics, run, shell

__all__ = ["shell"]

DEFINE = """
import threadlab as tl
from threadlab.models import ScriptedModel, call, step, text

tl.define_prompt("cleaner", prompt="Clean.", tools=["delete"], model=ScriptedModel([
    call("delete", {"path": "/old.txt"}, id="call_del"), text("cleaned"),
    call("delete", {"path": "/older.txt"}, id="call_del2"), text("kept it"),
]))
"""

TOOL = '''%%tool --approval always
def delete(state, path: str) -> str:
    """Delete a file."""
    return f"deleted {path}"
'''


def waiting_thread(shell: InteractiveShell) -> str:
    # No front end draws views in this shell: the cards cannot ask, so the run waits (soon).
    magics(shell).memory.approver.ready_s = 0.1
    run(shell, TOOL)
    run(shell, DEFINE)
    run(shell, "%%thread cleaner\nClean up.")
    thread_id: str = magics(shell).memory.last_thread["cleaner"]
    return thread_id


def test_a_tool_cell_with_approval_pauses_and_approve_resumes(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    thread_id = waiting_thread(shell)
    rt = magics(shell).memory.runtime
    assert rt.thread(thread_id).status == "waiting"
    listing = repr(run(shell, "%threadlab pending"))
    assert 'call_del  delete({"path": "/old.txt"})' in listing
    run(shell, "%threadlab approve call_del")
    thread = rt.thread(thread_id)
    assert thread.messages[-1].content == "cleaned"
    assert [m.content for m in thread.messages if m.role == "tool"] == ["deleted /old.txt"]
    assert "no tool call waits" in repr(run(shell, "%threadlab pending"))


def test_reject_with_a_reason_and_edited_arguments(shell: InteractiveShell) -> None:
    thread_id = waiting_thread(shell)
    run(shell, '%threadlab approve call_del --arguments \'{"path": "/tmp/old.txt"}\'')
    run(shell, "%%thread cleaner\nAnd the older one.")
    run(shell, "%threadlab reject call_del2 keep it for now")
    thread = magics(shell).memory.runtime.thread(thread_id)
    results = [m.content for m in thread.messages if m.role == "tool"]
    assert results == ["deleted /tmp/old.txt", "rejected: keep it for now"]


@pytest.mark.parametrize(
    ("cell", "error"),
    [
        ("%threadlab approve call_nothing", "no tool call 'call_nothing' waits"),
        ("%threadlab approve call_del --arguments {bad", "%threadlab approve"),
        ("%threadlab approve call_del --arguments '{\"path\": 3}'", "invalid arguments"),
        ("x = 1\n%threadlab approve call_del", "a cell of its own"),
    ],
)
def test_decisions_that_do_not_fit_say_why(shell: InteractiveShell, cell: str, error: str) -> None:
    thread_id = waiting_thread(shell)
    result = shell.run_cell(cell)
    assert result.error_in_exec is not None
    assert error in str(result.error_in_exec)
    assert magics(shell).memory.runtime.thread(thread_id).status == "waiting"


STEPPED = """
import threadlab as tl
from threadlab.models import ScriptedModel, call, step, text

def note(state, args):
    return f"noted {args['what']}"

tl.define_tool("note", description="Note.", execute=note,
               args={"type": "object", "properties": {"what": {"type": "string"}}})
tl.define_prompt("noter", prompt="Note.", tools=["note"], model=ScriptedModel([
    step(call("note", {"what": "a"}, id="n1"), call("note", {"what": "b"}, id="n2")),
    text("noted both"),
]))
"""


def test_step_mode_asks_before_every_call(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    magics(shell).memory.approver.ready_s = 0.1
    run(shell, STEPPED)
    run(shell, "%%thread noter --step\nNote things.")
    assert "note (n1) waits for a decision" in capsys.readouterr().out
    thread = magics(shell).memory.runtime.thread(magics(shell).memory.last_thread["noter"])
    assert [r.tool_call_id for r in thread.pending] == ["n1"]
    run(shell, "%threadlab approve n1")  # resumed without stepping: n2 runs as it is
    thread = magics(shell).memory.runtime.thread(thread.id)
    assert [m.content for m in thread.messages if m.role == "tool"] == ["noted a", "noted b"]
    assert thread.messages[-1].content == "noted both"


def test_step_mode_model_pauses_before_each_model_step(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    run(shell, STEPPED)
    run(shell, "%%thread noter --step model\nNote things.")
    thread_id = magics(shell).memory.last_thread["noter"]
    out = capsys.readouterr().out
    assert f"thread {thread_id} paused before a model step: Continue or Stop in the view" in out
    thread = magics(shell).memory.runtime.thread(thread_id)
    assert [m.role for m in thread.messages] == ["user"]
    assert thread.next_request is not None
    assert [m.content for m in thread.next_request.messages] == ["Note.", "Note things."]


def test_a_step_mode_that_is_not_one_is_refused(shell: InteractiveShell) -> None:
    run(shell, STEPPED)
    result = shell.run_cell("%%thread noter --step models\nNote things.")
    assert isinstance(result.error_in_exec, UsageError)
    assert "invalid choice: 'models' (choose from 'tools', 'model', 'all')" in str(
        result.error_in_exec
    )
    assert "noter" not in magics(shell).memory.last_thread


def test_a_prompt_cell_with_approval_asks_when_called_as_a_tool(shell: InteractiveShell) -> None:
    magics(shell).memory.approver.ready_s = 0.1
    run(shell, "%%prompt helper --expose-as-tool --approval always\nHelp.")
    assert magics(shell).memory.runtime.registry.prompt("helper").approval == "always"
