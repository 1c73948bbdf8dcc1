"""Each widget class's script in `widgets/static/` is its entry module bundled with what it
imports, as `tools/build_views.py` makes it from `widgets/js/` now: a module changed without
rebuilding fails here."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools import build_views as build

from ..helpers import missing_package

pytestmark = pytest.mark.processes  # it starts Node.js


def test_each_view_class_has_a_script_bundled_from_the_modules_as_they_are(
    tmp_path: Path,
) -> None:
    if not build.ESBUILD.exists():
        missing_package("esbuild in .cache/npm: run `make npm-packages`")
    rebuilt = build.build(tmp_path)
    assert [p.name for p in rebuilt] == [
        "inspector.js",
        "thread_list.js",
        "class_view.js",
        "eval.js",
        "served.js",
        "graph.js",
        "player.js",
        "share.js",
    ]
    for fresh in rebuilt:
        kept = build.STATIC / fresh.name
        assert kept.read_text() == fresh.read_text(), (
            f"{kept.name} is not what the modules make now: run `python tools/build_views.py`"
        )


@pytest.mark.parametrize(
    ("view", "script"),
    [
        ("ThreadView", "inspector.js"),
        ("ThreadListView", "thread_list.js"),
        ("ClassView", "class_view.js"),
        ("EvalView", "eval.js"),
        ("ServedView", "served.js"),
        ("GraphView", "graph.js"),
        ("PlayerView", "player.js"),
    ],
)
def test_each_view_class_loads_its_own_script(view: str, script: str) -> None:
    import threadlab.widgets as widgets

    esm = str(getattr(widgets, view)._esm)  # anywidget keeps the file's contents
    assert esm == (Path(widgets.__file__).parent / "static" / script).read_text()
    assert "export {" in esm
    assert "as default" in esm  # an ES module anywidget can render
