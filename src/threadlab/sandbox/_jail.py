"""Python in a bubblewrap jail: a fresh `/usr/bin/python3 -I` that sees read-only `/usr` (with
the `/bin` and `/lib*` links), a synthetic minimal `/etc`, a private `/tmp` and work dir, its own
network, PID, IPC and UTS namespaces, a clean environment, and rlimits on memory, CPU time, file
size, open files and processes. As root, the jail runs as nobody, so the process limit holds."""

from __future__ import annotations

import functools
import os
import re
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from .._errors import CodeOptionError, SandboxUnavailableError
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


@functools.cache
def check_jail() -> str:
    """The bwrap executable, once it has shown it can build a jail here."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        raise SandboxUnavailableError(
            "running Python needs bubblewrap, which is not installed: apt-get install bubblewrap"
        )
    if not Path(_INTERPRETER).exists():
        raise SandboxUnavailableError(
            f"running Python needs the system interpreter {_INTERPRETER}: apt-get install python3"
        )
    probe = subprocess.run(
        [*_jail_argv(bwrap, None), _INTERPRETER, "-I", "-c", "pass"],
        capture_output=True,
        text=True,
        timeout=30,
        preexec_fn=_as_nobody_if_root,
        check=False,
    )
    if probe.returncode != 0:
        raise SandboxUnavailableError(
            f"bubblewrap cannot build a jail here ({probe.stderr.strip()[:300]}); user"
            " namespaces may be disabled"
        )
    return bwrap


def _as_nobody_if_root() -> None:
    if os.getuid() == 0:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)


def _jail_argv(bwrap: str, workdir: Path | None) -> list[str]:
    argv = [
        bwrap,
        "--ro-bind", "/usr", "/usr",
        "--symlink", "usr/bin", "/bin",
        "--symlink", "usr/sbin", "/sbin",
        "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64",
        "--proc", "/proc",
        "--dev", "/dev",
        "--tmpfs", "/tmp",
        "--tmpfs", "/work",
        "--chdir", "/work",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--setenv", "PATH", "/usr/bin",
        "--setenv", "HOME", "/work",
        "--setenv", "PYTHONDONTWRITEBYTECODE", "1",
    ]  # fmt: skip
    if workdir is None:
        return [*argv, "--dir", "/etc"]
    return [
        *argv,
        "--ro-bind", str(workdir / "etc"), "/etc",
        "--ro-bind", str(workdir / "harness.py"), "/sandbox/harness.py",
    ]  # fmt: skip


def prepare_jail(plan: Plan) -> Launch:
    bwrap = check_jail()
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
        argv=[*_jail_argv(bwrap, workdir), _INTERPRETER, "-I", "/sandbox/harness.py"],
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
