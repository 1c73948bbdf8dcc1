"""The package's layers: the import contracts `make lint` runs hold, catch a back-edge (even
one made only for type checking) and a notebook-side module reaching below the public API, and
no modules import each other in a circle."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

pytestmark = pytest.mark.processes  # it starts import-linter

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "threadlab"
# The console script installed next to this interpreter (the virtualenv's).
LINT_IMPORTS = str(Path(sys.executable).parent / "lint-imports")


def lint_imports(source_root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [LINT_IMPORTS, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        capture_output=True,
        text=True,
        cwd=source_root,
        env={"PYTHONPATH": str(source_root), "PATH": "/usr/bin:/bin"},
        timeout=120,
    )


def test_the_layer_contract_holds() -> None:
    result = lint_imports(ROOT / "src")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "5 kept, 0 broken" in result.stdout


def test_the_layer_contract_fails_on_a_type_checking_back_edge(tmp_path: Path) -> None:
    copy = tmp_path / "threadlab"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    state = copy / "threads" / "_state.py"
    state.write_text(
        state.read_text()
        + "\n\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
        + "    from ..runtime import Thread\n"
    )
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "threadlab.threads is not allowed to import threadlab.runtime" in result.stdout
    assert "threadlab.threads._state -> threadlab.runtime" in result.stdout


def test_the_notebook_side_contract_fails_on_an_import_below_the_public_api(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "threadlab"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    views = copy / "widgets" / "_views.py"
    views.write_text(views.read_text() + "\n\nfrom ..store import ThreadSummary\n")
    result = lint_imports(tmp_path)
    assert result.returncode != 0
    assert "The notebook side uses only the public API BROKEN" in result.stdout
    assert "threadlab.widgets._views -> threadlab.store" in result.stdout


def test_no_modules_import_each_other_in_a_circle() -> None:
    graph = grimp.build_graph("threadlab", cache_dir=None)
    # `%load_ext threadlab` imports the extension from inside the root's hook, when IPython
    # calls it, not when the package is imported.
    graph.remove_import(importer="threadlab", imported="threadlab.kernel_ext")
    # Likewise `tl.player`: the root imports the views on its first use, when the root is
    # whole (the views use the public names the root gives them).
    graph.remove_import(importer="threadlab", imported="threadlab.widgets")
    circles = [
        (module, imported)
        for module in graph.modules
        for imported in graph.find_modules_directly_imported_by(module)
        if graph.chain_exists(importer=imported, imported=module)
    ]
    assert circles == []
