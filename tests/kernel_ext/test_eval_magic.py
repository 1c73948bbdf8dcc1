"""`%%eval TARGET`: a case per line, scorers from flags, a live table that keeps its rows."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell

from threadlab.widgets import EvalView

from .test_magics import magics, run, shell

__all__ = ["shell"]

DEFINE = '''%%tool
def search(state, query: str) -> str:
    """Search."""
    return f"found {query}"
'''


def test_an_eval_cell_scores_each_line_with_each_model(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[object] = []
    monkeypatch.setattr("threadlab.kernel_ext._eval_cells.display", shown.append)
    run(shell, DEFINE)
    run(shell, "%%prompt finder --tools search\nFind things.")
    run(shell, "%%eval finder --called search --contains found --name quick\n"
               "tea => tea\n\ncoffee => milk\ntea\n")  # fmt: skip
    (view,) = shown
    assert isinstance(view, EvalView)
    assert view.finished
    assert view.cases == ["tea", "coffee", "tea (2)"]
    assert view.models == ["offline"]
    scores = {r["case"]: r["scores"] for r in view.rows}
    assert scores["tea"] == {"called(search)": True, "contains('found')": True,
                             "answer has expected": True}  # fmt: skip
    assert scores["coffee"]["answer has expected"] is False
    assert scores["tea (2)"]["answer has expected"] is None
    threads = magics(shell).memory.runtime.threads()
    assert {t.origin for t in threads} == {"eval:quick"}
    assert "coffee" in view.static_html()
    state = view.saved_state()
    assert (state["view"], state["total"], len(state["rows"])) == ("eval", 3, 3)
    view.open_thread(view.rows[0]["thread"])
    assert view.opened["root"] == view.rows[0]["thread"]


def test_eval_cells_that_do_not_fit_say_why(shell: InteractiveShell) -> None:
    run(shell, "%%prompt finder\nFind things.")
    with pytest.raises(UsageError, match="the cell holds the cases"):
        run(shell, "%%eval finder\n\n")
    with pytest.raises(UsageError, match="unknown target 'nobody'"):
        run(shell, "%%eval nobody\nhello\n")
    with pytest.raises(UsageError, match="--scorer judge: no such name"):
        run(shell, "%%eval finder --scorer judge\nhello\n")
    with pytest.raises(UsageError, match="no message before '=>'"):
        run(shell, "%%eval finder\n=> x\n")


def test_a_case_line_that_is_a_json_object_is_read_as_a_case(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    shown: list[object] = []
    monkeypatch.setattr("threadlab.kernel_ext._eval_cells.display", shown.append)
    run(shell, DEFINE)
    run(shell, "%%prompt finder --tools search\nFind things.")
    run(shell, "%%eval finder\n"
               '{"name": "jp", "message": "Capital of Japan?", "expected": "Tokyo"}\n'
               '{"message": "tea", "expected": "found"}\n'
               "{not json} is a message\n")  # fmt: skip
    (view,) = shown
    assert isinstance(view, EvalView)
    assert view.cases == ["jp", "tea", "{not json} is a message"]
    scores = {r["case"]: r["scores"]["answer has expected"] for r in view.rows}
    assert scores == {"jp": False, "tea": True, "{not json} is a message": None}
    sent = {t.messages[0].content for t in magics(shell).memory.runtime.threads() if t.messages}
    assert "Capital of Japan?" in sent  # the case's message, not the JSON line
    assert not any(m.startswith('{"name"') for m in sent if m)


def test_a_json_case_line_with_wrong_fields_says_which(shell: InteractiveShell) -> None:
    run(shell, "%%prompt finder\nFind things.")
    with pytest.raises(UsageError, match=r"not a tl.Case \(message: Field required\)"):
        run(shell, '%%eval finder\n{"name": "x", "expected": 1}\n')
    with pytest.raises(UsageError, match=r"not a tl.Case \(colour: Extra inputs"):
        run(shell, '%%eval finder\n{"message": "hi", "colour": "red"}\n')
