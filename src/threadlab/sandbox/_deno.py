"""JavaScript and TypeScript in Deno, inside the bubblewrap jail (`_bubblewrap.py`): one
`deno run` per run with no permissions at all, no config, lock file, remote or npm imports, a
V8 heap cap plus an RLIMIT_DATA cap (the heap flag does not cover ArrayBuffers).

Deno's permission flags do not cover module loading (a string-literal `import` of any path is
read with no check), so the jail is the wall that holds: it holds the Deno binary, the
libraries it links and the run's own files (read-only at /work), and nothing else of the host.
Deno's cache directory is in the jail's own `/tmp` (a read-only or missing one costs Deno
150 ms of retries), so nothing of one run is left for the next.
Bridged modules are generated files mapped to their bare specifiers by an import map."""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from .._errors import CodeOptionError, SandboxUnavailableError
from ._bubblewrap import Jail, probe
from ._code_run import Launch, Plan
from ._limits import NOBODY, limits

__all__ = ["check_deno", "deno_binary", "prepare_deno"]

_HARNESS = Path(__file__).parent / "harness" / "harness.js"
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*$")
# What Deno and V8 need before any code runs (address space reserved for the heap's cage,
# the runtime's own allocations); the code's memory cap comes on top of it.
_BASELINE_BYTES = 1024 << 20
# What Deno holds resident before the code allocates anything (about 40 MiB measured, with
# room): a run is stopped once its processes hold more than this plus its `memory_mb`.
_RESIDENT_BASELINE_BYTES = 64 << 20


_BINARY = "/sandbox/deno"
_ENV = (("DENO_DIR", "/tmp/deno"), ("NO_COLOR", "1"), ("DENO_NO_UPDATE_CHECK", "1"))
_FLAGS = ("--quiet", "--no-prompt", "--no-config", "--no-lock", "--no-remote", "--no-npm")
_LINKED = re.compile(r"(/\S+) \(0x[0-9a-f]+\)$")


def _deno_jail(binary: str, memory_mb: int, workdir: str | None) -> Jail:
    return Jail(
        read_only=[(binary, _BINARY), *((path, path) for path in _libraries(binary))],
        memory_mb=memory_mb,
        workdir=workdir,
        env=_ENV,
    )


@functools.cache
def _libraries(binary: str) -> tuple[str, ...]:
    """The shared libraries `binary` loads (and the loader), as the loader will look for them."""
    try:
        listing = subprocess.run(
            ["ldd", binary], capture_output=True, text=True, timeout=30, check=True
        ).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise SandboxUnavailableError(
            f"cannot list the libraries Deno needs (ldd {binary}): {exc}"
        ) from None
    found = (_LINKED.search(line.strip()) for line in listing.splitlines())
    return tuple(match.group(1) for match in found if match)


@functools.cache
def check_deno() -> str:
    """The Deno binary, once it has shown it runs in the jail here."""
    binary = str(Path(deno_binary()).resolve())
    probe(_deno_jail(binary, 64, None), [_BINARY, "--version"], "JavaScript")
    return binary


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
    binary = check_deno()
    workdir = Path(tempfile.mkdtemp(prefix="threadlab-js-"))
    workdir.chmod(0o755)  # the jail may run as nobody
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
        _BINARY,
        "run",
        *_FLAGS,
        "--import-map=import_map.json",
        # The heap, and each WebAssembly memory (64 KiB pages), within the cap.
        f"--v8-flags=--max-old-space-size={plan.memory_mb},"
        f"--wasm-max-mem-pages={max(plan.memory_mb * 16, 1)}",
        "entry.js",
    ]
    root = os.getuid() == 0
    return Launch(
        argv=[*_deno_jail(binary, plan.memory_mb, str(workdir)).argv(), *argv],
        env={},
        cwd=str(workdir),
        preexec=limits(
            data_bytes=_BASELINE_BYTES + (plan.memory_mb << 20),
            cpu_seconds=plan.timeout + 1,
            file_bytes=16 << 20,  # the code cannot write any file
            open_files=256,
            as_user=NOBODY if root else None,
        ),
        start={"globals": dict(plan.globals), "execute": plan.execute},
        workdir=str(workdir),
        memory_markers=("out of memory", "heap limit", "Fatal process out of memory"),
        memory_errors=(
            "Array buffer allocation failed",
            "Invalid array buffer length",
            "Unable to grow instance memory",
        ),
        memory_signals=(signal.SIGTRAP, signal.SIGABRT),
        resident_cap=_RESIDENT_BASELINE_BYTES + (plan.memory_mb << 20),
    )
