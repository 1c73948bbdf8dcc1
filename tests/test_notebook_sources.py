"""The example notebooks are what `tools/build_notebooks.py` writes: an edit made in one place
only (a notebook changed by hand, then rebuilt over) would be lost."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from tools.build_notebooks import HERE, NOTEBOOKS, notebook


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_a_committed_notebook_is_what_the_script_builds(name: str) -> None:
    committed = json.loads((HERE / f"{name}.ipynb").read_text())
    built = json.loads(nbformat.writes(notebook(name)))
    assert committed == built, f"run `python tools/build_notebooks.py` ({name})"


def test_every_notebook_has_its_source() -> None:
    assert {p.stem for p in Path(HERE).glob("*.ipynb")} == set(NOTEBOOKS)
