"""`%threadlab fork`, `%%thread --replay` and `%threadlab diff` in a shell with the extension
loaded: they call the same API as a script (`thread.fork`, `ReplayModel`, `ThreadDiff`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell

import threadlab as tl
from threadlab.widgets import ThreadDiff, replay, static_html

from .test_magics import magics, run, shell

__all__ = ["shell"]

DEFINE = '''
import threadlab as tl
from threadlab.models import ScriptedModel, FunctionModel, call, text

@tl.tool
def add(state: tl.ThreadState, a: int, b: int) -> int:
    """Add two integers."""
    return a - b

def answer(messages, tools):
    if messages[-1].role == "tool":
        return text(f"the sum is {messages[-1].content}")
    return call("add", {"a": 2, "b": 3}, id="call_add")

tl.define_prompt("calc", prompt="Add.", tools=["add"], model=FunctionModel(answer))
'''


def runtime(shell: InteractiveShell) -> tl.Runtime:
    rt: tl.Runtime = magics(shell).memory.runtime
    return rt


def first_thread(shell: InteractiveShell) -> tl.Thread:
    run(shell, DEFINE)
    run(shell, "%%thread calc\nWhat is 2 + 3?")
    return runtime(shell).thread(magics(shell).memory.last_thread["calc"])


def test_fork_runs_the_branch_with_the_edited_result(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    thread = first_thread(shell)
    assert thread.messages[-1].content == "the sum is -1"
    run(shell, f"%threadlab fork {thread.id} --at call_add --result 5")
    (branch,) = thread.branches
    assert branch.messages[-1].content == "the sum is 5"
    assert f"branch {branch.id} of {thread.id} at call_add" in capsys.readouterr().out
    shown = run(shell, f"%threadlab diff {thread.id} {branch.id}")
    assert isinstance(shown, ThreadDiff)
    text = repr(shown)
    # Aligned by step: the user's message, the model's call, the call with its result.
    assert f"first difference at step 3 of 5 (message 3 of {thread.id})" in text
    assert "≠   3 call: add(" in text
    bundle = shown._repr_mimebundle_()
    assert "≠" in bundle["text/html"]
    assert "the sum is 5" in bundle["text/html"]


def test_fork_with_arguments_runs_the_call_with_them(shell: InteractiveShell) -> None:
    thread = first_thread(shell)
    run(shell, f'%threadlab fork {thread.id} --at call_add --arguments \'{{"a": 7, "b": 1}}\'')
    (branch,) = thread.branches
    assert [m.content for m in branch.messages if m.role == "tool"] == ["6"]


def test_replay_reruns_a_thread_on_its_recorded_answers(shell: InteractiveShell) -> None:
    thread = first_thread(shell)
    run(shell, "%%thread calc --replay " + thread.id + "\nWhat is 2 + 3?")
    again = runtime(shell).thread(magics(shell).memory.last_thread["calc"])
    assert again.id != thread.id
    assert [m.content for m in again.messages] == [m.content for m in thread.messages]


FIX = '''
@tl.tool
def add(state: tl.ThreadState, a: int, b: int) -> int:
    """Add two integers."""
    return a + b
'''


def test_replay_after_a_fix_goes_its_own_way_on_the_targets_model(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    """The reshaping loop: fix the tool, replay with an empty cell. The recorded answers
    replay up to the changed result; the prompt's own model answers from there."""
    thread = first_thread(shell)
    assert thread.messages[-1].content == "the sum is -1"
    run(shell, FIX)
    capsys.readouterr()
    run(shell, f"%%thread calc --replay {thread.id}\n")  # the recorded first message
    again = runtime(shell).thread(magics(shell).memory.last_thread["calc"])
    assert again.id != thread.id
    assert [m.content for m in again.messages if m.role == "user"] == ["What is 2 + 3?"]
    assert again.messages[-1].content == "the sum is 5"
    said = capsys.readouterr().out
    assert f"replayed 1 model call from {thread.id}, 1 answered by the model" in said
    # The view marks each step: replayed, or a model call, and counts them in its header.
    state = replay(again)
    steps = [m["model"] for m in state.messages[again.id] if m["role"] == "assistant"]
    assert steps == ["replay", "answer"]  # the FunctionModel the prompt names answered
    page = static_html(again)
    assert "1 model call replayed · 1 forwarded to the model" in page
    assert page.count("[replayed]") == 1
    assert page.count("[model call]") == 1


def test_a_strict_replay_stops_where_the_conversation_differs(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    thread = first_thread(shell)
    run(shell, FIX)
    run(shell, f"%%thread calc --replay {thread.id} --strict\n")
    again = runtime(shell).thread(magics(shell).memory.last_thread["calc"])
    finished = [e for e in again.events if isinstance(e, tl.RunFinishedEvent)]
    assert finished[-1].status == "failed"
    assert (finished[-1].error or "").startswith("diverged at step 2")


@pytest.mark.parametrize(
    ("cell", "error"),
    [
        ("%threadlab fork thr_x --at call_add", "no thread"),
        ("%threadlab fork ID --at nothing_here", "neither a message nor a tool call"),
        ("%threadlab fork ID --at call_add --result {bad", "--result is not JSON"),
        ("%threadlab fork ID call_add", "usage: %threadlab fork"),
        ("%threadlab diff ID", "usage: %threadlab diff"),
        ("%%thread calc --fallback offline\nhi", "--fallback and --strict go with --replay"),
        ("%%thread calc --replay ID --strict --fallback offline\nhi", "give one or the other"),
        ("x = 1\n%threadlab fork ID --at call_add", "a cell of its own"),
    ],
)
def test_usage_errors_say_what_to_do(shell: InteractiveShell, cell: str, error: str) -> None:
    thread = first_thread(shell)
    result = shell.run_cell(cell.replace("ID", thread.id))
    assert result.error_in_exec is not None
    assert error in str(result.error_in_exec)
    assert thread.branches == []


def test_share_writes_the_thread_as_one_file(shell: InteractiveShell, tmp_path: Path) -> None:
    thread = first_thread(shell)
    target = tmp_path / "calc.html"
    said = repr(run(shell, f"%threadlab share {thread.id} {target}"))
    assert said.startswith(f"wrote {target}")
    assert thread.id in target.read_text()
    result = shell.run_cell(f"%threadlab share {thread.id}")
    assert "usage: %threadlab share" in str(result.error_in_exec)
