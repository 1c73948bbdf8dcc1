"""Build threadlab's JupyterLab extension from `labextension/` into
`src/threadlab/labextension/` (kept in the repository, so installing threadlab needs no
Node.js), and record the digest of the sources it was built from.

The extension draws saved outputs with the views' one bundle, `static/views.js` (built by
`tools/build_views.py` from `src/threadlab/widgets/js/`), and the styles in `static/`: after
rebuilding it, run `python tools/build_labextension.py` (Node.js and npm needed) and reinstall
(`pip install -e .` or `make`). A test compares the recorded digest with the sources.
"""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "labextension"
BUILT = ROOT / "src" / "threadlab" / "labextension"
DIGEST = BUILT / "sources.sha256"
STATIC = ROOT / "src" / "threadlab" / "widgets" / "static"


def sources() -> list[Path]:
    """What the built extension is made from."""
    views = [STATIC / "views.js", STATIC / "threadlab.css"]
    own = [*SOURCE.glob("src/*.js"), *SOURCE.glob("src/*.css")]
    return sorted([SOURCE / "package.json", *own, *views])


def digest() -> str:
    """One digest over the sources' paths and contents."""
    h = hashlib.sha256()
    for path in sources():
        h.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


def build() -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise SystemExit("npm is not installed: Node.js and npm build the extension")
    if not (SOURCE / "node_modules").exists():
        subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=SOURCE, check=True)
    spec = importlib.util.find_spec("jupyterlab")
    if spec is None or spec.origin is None:
        raise SystemExit("JupyterLab is not installed here: its staging files are the core")
    core = Path(spec.origin).parent / "staging"
    builder = SOURCE / "node_modules" / "@jupyterlab" / "builder" / "lib" / "build-labextension.js"
    subprocess.run(["node", str(builder), "--core-path", str(core), str(SOURCE)], check=True)
    DIGEST.write_text(digest() + "\n")


if __name__ == "__main__":
    build()
    print(f"built {BUILT.relative_to(ROOT)} from {len(sources())} sources", file=sys.stderr)
