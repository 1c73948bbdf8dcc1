"""Python in the bubblewrap jail (`_bubblewrap.py`): a fresh `/usr/bin/python3 -I` that sees
read-only `/usr` (with the `/bin` and `/lib*` links), a synthetic minimal `/etc`, a private
work dir, and rlimits on memory, CPU time, file size, open files and processes. As root, the
jail runs as nobody, so the process limit holds."""

from __future__ import annotations

import functools
import os
import re
import shutil
import signal
import tempfile
from pathlib import Path

from .._errors import CodeOptionError, SandboxUnavailableError
from ._bubblewrap import Jail, bubblewrap, probe
from ._code_run import Launch, Plan
from ._limits import NOBODY, limits, processes_of

__all__ = ["check_jail", "prepare_jail"]

_HARNESS = Path(__file__).parent / "harness" / "harness.py"
_INTERPRETER = "/usr/bin/python3"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MODULE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_BASELINE_BYTES = 64 << 20  # the interpreter itself
_ETC = {
    "passwd": "sandbox:x:65534:65534:sandbox:/work:/usr/sbin/nologin\n",
    "group": "sandbox:x:65534:\n",
    "hosts": "127.0.0.1 localhost\n",
}


def _python_jail(memory_mb: int, workdir: Path | None) -> Jail:
    read_only = [("/usr", "/usr")]
    if workdir is not None:
        read_only += [
            (str(workdir / "etc"), "/etc"),
            (str(workdir / "harness.py"), "/sandbox/harness.py"),
        ]
    return Jail(
        read_only=read_only,
        links=[
            ("usr/bin", "/bin"),
            ("usr/sbin", "/sbin"),
            ("usr/lib", "/lib"),
            ("usr/lib64", "/lib64"),
        ],
        memory_mb=memory_mb,
        env=[("PATH", "/usr/bin"), ("HOME", "/work"), ("PYTHONDONTWRITEBYTECODE", "1")],
    )


@functools.cache
def check_jail() -> str:
    """The bwrap executable, once it has shown it can build a Python jail here."""
    bwrap = bubblewrap()
    if not Path(_INTERPRETER).exists():
        raise SandboxUnavailableError(
            f"running Python needs the system interpreter {_INTERPRETER}: apt-get install python3"
        )
    probe(_python_jail(16, None), [_INTERPRETER, "-I", "-c", "pass"], "Python")
    return bwrap


def prepare_jail(plan: Plan) -> Launch:
    check_jail()
    for specifier, names in plan.imports.items():
        if not _MODULE.match(specifier):
            raise CodeOptionError(f"bridged module {specifier!r} is not a Python module name")
        for name in names:
            if not _IDENTIFIER.match(name):
                raise CodeOptionError(
                    f"bridged name {name!r} in {specifier!r} is not an identifier"
                )
    workdir = Path(tempfile.mkdtemp(prefix="threadlab-py-"))
    workdir.chmod(0o755)  # the jail may run as nobody
    (workdir / "etc").mkdir(mode=0o755)
    for name, content in _ETC.items():
        (workdir / "etc" / name).write_text(content)
    shutil.copyfile(_HARNESS, workdir / "harness.py")
    root = os.getuid() == 0
    user = NOBODY if root else os.getuid()
    return Launch(
        argv=[
            *_python_jail(plan.memory_mb, workdir).argv(),
            _INTERPRETER,
            "-I",
            "/sandbox/harness.py",
        ],
        env={},
        cwd=str(workdir),
        preexec=limits(
            address_bytes=_BASELINE_BYTES + (plan.memory_mb << 20),
            cpu_seconds=plan.timeout + 1,
            file_bytes=16 << 20,
            open_files=64,
            processes=processes_of(user) + 32,
            as_user=NOBODY if root else None,
        ),
        start={
            "source": plan.source,
            "imports": {k: list(v) for k, v in plan.imports.items()},
            "globals": dict(plan.globals),
            "execute": plan.execute,
        },
        workdir=str(workdir),
        memory_errors=("MemoryError",),
        memory_signals=(signal.SIGSEGV,),
    )
