"""The JupyterLab extension in the repository is built from the sources as they are: it
bundles the view code, so a change to that code without a rebuild would ship the old one."""

from __future__ import annotations

import json
from pathlib import Path

from tools import build_labextension as build

INSTALLED = Path(__file__).resolve().parents[2] / "src" / "threadlab" / "labextension"


def test_the_built_extension_matches_its_sources() -> None:
    recorded = build.DIGEST.read_text().strip()
    assert recorded == build.digest(), (
        "the view code changed since the extension was built: run"
        " `python tools/build_labextension.py`"
    )


def test_the_built_extension_declares_both_entry_points() -> None:
    meta = json.loads((INSTALLED / "package.json").read_text())["jupyterlab"]["_build"]
    assert (INSTALLED / meta["load"]).is_file()
    assert meta["extension"] == "./extension"
    assert meta["mimeExtension"] == "./mimeExtension"
