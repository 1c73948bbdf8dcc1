"""In a notebook: `%config ThreadlabMagics.engine = "ray"`, then an `%%eval` whose rows and
a `%%thread` whose non-blocking child run as Ray tasks; the views fill from the store as the
workers write it."""

from __future__ import annotations

import os
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

from threadlab.widgets import EvalView, ThreadView

from ..kernel_ext.test_magics import magics, run, shell
from .conftest import KEY

__all__ = ["shell"]

pytestmark = pytest.mark.processes  # Ray's worker processes

TOOL = '''%%tool
def where(state) -> str:
    """Say which process runs this."""
    import os
    return f"in process {os.getpid()}"
'''

LEAD = """%%agent lead
[side_a]
prompt = "boss"
[[side_a.subagents]]
name = "aide"
blocking = false
"""


def test_eval_rows_and_a_threads_children_run_on_ray(
    ray_cluster: Any, shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("THREADLAB_SECRET_KEY", KEY)  # the key Ray's processes hold too
    shown: list[object] = []
    monkeypatch.setattr("threadlab.kernel_ext._eval_cells.display", shown.append)
    monkeypatch.setattr("threadlab.kernel_ext._thread_cells.display", shown.append)
    run(shell, '%config ThreadlabMagics.engine = "ray"')
    run(shell, TOOL)
    run(shell, "%%prompt helper --tools where\nHelp.")
    run(shell, '%%agent aide\nside_a = "helper"\ntool_description = "Helps."')
    run(shell, "%%prompt boss\nLead.")
    run(shell, LEAD)
    runtime = magics(shell).memory.runtime
    assert runtime.engine is not None

    run(shell, "%%eval helper\nwhere are you?\nand now?\n")
    (table,) = shown
    assert isinstance(table, EvalView)
    assert table.finished
    assert len(table.rows) == 2
    for row in table.rows:
        assert row["status"] == "completed", row
        answer = runtime.thread(row["thread"]).messages[-1].content or ""
        assert f"in process {os.getpid()}" not in answer
        assert "in process" in answer

    run(shell, "%%thread lead\nGo.")
    view = shown[-1]
    assert isinstance(view, ThreadView)
    lead = runtime.thread(magics(shell).memory.last_thread["lead"])
    (child,) = lead.children
    assert child.status == "completed"
    (shown_child,) = [t for t in view.trace["threads"] if t["id"] == child.id]
    assert shown_child["status"] == "completed"
    cards = [c for c in view.trace["cards"].values() if c["thread"] == child.id]
    assert [c["name"] for c in cards] == ["where"]  # the child's card, read from the store
    assert "in process" in (cards[0]["result"] or "")
    assert f"in process {os.getpid()}" not in (cards[0]["result"] or "")
