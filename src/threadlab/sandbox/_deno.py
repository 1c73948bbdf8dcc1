"""JavaScript and TypeScript in Deno: one `deno run` per run with no permissions at all, no
config, lock file, remote or npm imports, a V8 heap cap plus an RLIMIT_DATA cap (the heap flag
does not cover ArrayBuffers), a DENO_DIR private to this process and a clean environment.
Bridged modules are generated files mapped to their bare specifiers by an import map."""

from __future__ import annotations

import atexit
import functools
import json
import re
import shutil
import signal
import tempfile
from pathlib import Path

from .._errors import CodeOptionError, SandboxUnavailableError
from ._code_run import Launch, Plan
from ._limits import limits

__all__ = ["deno_binary", "prepare_deno"]

_HARNESS = Path(__file__).parent / "harness" / "harness.js"
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
# What Deno and V8 need before any code runs (address space reserved for the heap's cage,
# the runtime's own allocations); the code's memory cap comes on top of it.
_BASELINE_BYTES = 1024 << 20


@functools.cache
def _deno_dir() -> str:
    """Deno's cache for this process: private to it (0700, removed at exit) and shared by its
    runs, so each run need not re-create Deno's cache databases (a third of its start-up).
    It holds Deno's transpile cache only; the code, with no read permission, never sees it."""
    directory = tempfile.mkdtemp(prefix="threadlab-deno-")
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    return directory


def deno_binary() -> str:
    """The Deno executable shipped by the `deno` package (or on PATH)."""
    try:
        import deno  # the PyPI package bundles the binary

        found: str | None = deno.find_deno_bin()
    except (ImportError, FileNotFoundError):
        found = shutil.which("deno")
    if not found or not Path(found).exists():
        raise SandboxUnavailableError(
            "running JavaScript/TypeScript needs Deno: pip install 'deno>=2.6.5'"
        )
    return found


def prepare_deno(plan: Plan, *, typescript: bool) -> Launch:
    binary = deno_binary()
    workdir = Path(tempfile.mkdtemp(prefix="threadlab-js-"))
    user_file = "user.ts" if typescript else "user.js"
    # On the code's first line, so its line numbers stay as written: the harness sets up the
    # console, globals and bridge before the code's module body runs.
    (workdir / user_file).write_text('import "./harness.js"; ' + plan.source)
    shutil.copyfile(_HARNESS, workdir / "harness.js")
    (workdir / "entry.js").write_text(
        f'import {{ finish }} from "./harness.js";\nimport * as code from "./{user_file}";\n'
        "await finish(code);\n"
    )
    import_map: dict[str, str] = {}
    for index, (specifier, names) in enumerate(plan.imports.items()):
        for name in names:
            if not _IDENTIFIER.match(name):
                raise CodeOptionError(
                    f"bridged name {name!r} in {specifier!r} is not an identifier"
                )
        module = f"bridge_{index}.js"
        # Looked up at call time: this module may be evaluated before the harness is set up.
        lines = [
            f'export const {name} = (...args) => globalThis[Symbol.for("threadlab.bridge")]('
            f"{json.dumps(specifier)}, {json.dumps(name)}, args);"
            for name in names
        ]
        (workdir / module).write_text("\n".join(lines) + "\n")
        import_map[specifier] = f"./{module}"
    (workdir / "import_map.json").write_text(json.dumps({"imports": import_map}))
    argv = [
        binary,
        "run",
        "--quiet",
        "--no-prompt",
        "--no-config",
        "--no-lock",
        "--no-remote",
        "--no-npm",
        "--import-map=import_map.json",
        f"--v8-flags=--max-old-space-size={plan.memory_mb}",
        "entry.js",
    ]
    return Launch(
        argv=argv,
        env={"DENO_DIR": _deno_dir(), "NO_COLOR": "1", "DENO_NO_UPDATE_CHECK": "1"},
        cwd=str(workdir),
        preexec=limits(
            data_bytes=_BASELINE_BYTES + (plan.memory_mb << 20),
            cpu_seconds=plan.timeout + 1,
            file_bytes=64 << 20,  # Deno's own cache files; the code cannot write any file
            open_files=256,
        ),
        start={"globals": dict(plan.globals), "execute": plan.execute},
        workdir=str(workdir),
        memory_markers=("out of memory", "heap limit", "Fatal process out of memory"),
        memory_errors=("Array buffer allocation failed", "Invalid array buffer length"),
        memory_signals=(signal.SIGTRAP, signal.SIGABRT),
    )
