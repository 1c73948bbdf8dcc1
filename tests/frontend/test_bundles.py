"""The one script of every view, `widgets/static/views.js`, is its entry module bundled with
what it imports, as `tools/build_views.py` makes it from `widgets/js/` now: a module changed
without rebuilding fails here."""

from __future__ import annotations

from pathlib import Path

import pytest
from tools import build_views as build

from ..helpers import missing_package

pytestmark = pytest.mark.processes  # it starts Node.js


def test_the_views_script_is_bundled_from_the_modules_as_they_are(tmp_path: Path) -> None:
    if not build.ESBUILD.exists():
        missing_package("esbuild in .cache/npm: run `make npm-packages`")
    rebuilt = build.build(tmp_path)
    assert [p.name for p in rebuilt] == ["views.js"]
    for fresh in rebuilt:
        kept = build.STATIC / fresh.name
        assert kept.read_text() == fresh.read_text(), (
            f"{kept.name} is not what the modules make now: run `python tools/build_views.py`"
        )


def test_no_other_script_is_kept_beside_the_one_bundle() -> None:
    assert sorted(p.name for p in build.STATIC.glob("*.js")) == ["views.js"]


@pytest.mark.parametrize(
    ("view", "kind"),
    [
        ("ThreadView", "inspector"),
        ("ThreadListView", "threads"),
        ("ClassView", "class"),
        ("EvalView", "eval"),
        ("ServedView", "served"),
        ("GraphView", "graph"),
        ("PlayerView", "player"),
    ],
)
def test_every_view_class_loads_the_one_script_and_names_its_kind(view: str, kind: str) -> None:
    import threadlab.widgets as widgets

    cls = getattr(widgets, view)
    esm = str(cls._esm)  # anywidget keeps the file's contents
    assert esm == (Path(widgets.__file__).parent / "static" / "views.js").read_text()
    assert "as default" in esm  # an ES module anywidget can render
    assert cls.class_traits()["view"].default_value in {kind, "inspector"}
    assert f"{kind}: {{ draw:" in esm  # the kinds' table draws it
