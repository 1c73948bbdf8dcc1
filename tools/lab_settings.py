"""Write the JupyterLab defaults threadlab's notebooks want into this environment.

Widget state is saved with the notebook, so a thread view (`%threadlab open`, `%threadlab
threads`, `%%thread --live`) still shows its trace when the notebook is reopened without a
kernel, instead of "model not found". The file is JupyterLab's per-environment
`overrides.json`: it sets defaults for this virtualenv only, and a user's own settings still
win. Run: python tools/lab_settings.py (`make lab` and `make test` do).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

OVERRIDES = {"@jupyter-widgets/jupyterlab-manager:plugin": {"saveState": True}}


def write(prefix: Path = Path(sys.prefix)) -> Path:
    """Merge threadlab's defaults into `prefix`'s overrides.json; return its path."""
    path = prefix / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    current = json.loads(path.read_text()) if path.exists() else {}
    for plugin, values in OVERRIDES.items():
        current.setdefault(plugin, {}).update(values)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(current, indent=2) + "\n")
    return path


if __name__ == "__main__":
    print(f"wrote {write()}")
