"""Bundle the views' ES modules (`src/threadlab/widgets/js/`) into the one script of every view,
`src/threadlab/widgets/static/views.js` (kept in the repository, so installing threadlab needs
no Node.js): anywidget loads it as one file, with no imports of its own.

After changing a module, run `python tools/build_views.py` (esbuild from `make npm-packages`),
then `python tools/build_labextension.py`, which bundles the same modules for JupyterLab. A test
bundles them again and compares.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "src" / "threadlab" / "widgets" / "js"
STATIC = ROOT / "src" / "threadlab" / "widgets" / "static"
ESBUILD = ROOT / ".cache" / "npm" / "node_modules" / ".bin" / "esbuild"

BUNDLES = {"views.js": "views.js"}
"""The entry module, and the script it is bundled into: one for every view (anywidget's,
the JupyterLab extension's and a shared page's)."""


def bundle(entry: str, out: Path) -> None:
    """Bundle `entry` (a module of `SOURCES`) and what it imports into `out`."""
    if not ESBUILD.exists():
        raise SystemExit(f"{ESBUILD.relative_to(ROOT)} is missing: run `make npm-packages`")
    subprocess.run(
        [
            str(ESBUILD),
            str(SOURCES / entry),
            "--bundle",
            "--format=esm",
            "--target=es2022",
            "--charset=utf8",
            "--legal-comments=none",
            "--log-level=warning",
            f"--outfile={out}",
        ],
        cwd=ROOT,  # the bundle names its modules by their paths from here
        check=True,
    )


def build(into: Path = STATIC) -> list[Path]:
    built = []
    for entry, name in BUNDLES.items():
        bundle(entry, into / name)
        built.append(into / name)
    return built


if __name__ == "__main__":
    for path in build():
        print(f"built {path.relative_to(ROOT)}", file=sys.stderr)
