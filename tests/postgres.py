"""A throwaway PostgreSQL server for the tests: `initdb` and `pg_ctl` on a temporary directory
and a free port (as the unprivileged user `nobody` when the tests run as root, which
PostgreSQL refuses), and a fresh database per test. A real server, no mocks."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Generator
from contextlib import contextmanager, suppress
from itertools import count
from pathlib import Path

from .helpers import missing_package

_databases = count()


def _binary(name: str) -> str | None:
    # Debian keeps the server binaries out of PATH, under /usr/lib/postgresql/<version>/bin.
    found = shutil.which(name)
    if found:
        return found
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        candidate = Path(folder) / name
        if candidate.exists():
            return str(candidate)
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """A server on a temporary directory and a free port; `restart()` stops it the way a crash
    or a failover does (immediate mode: every connection is cut) and starts it again."""

    def __init__(self) -> None:
        initdb, pg_ctl = _binary("initdb"), _binary("pg_ctl")
        if initdb is None or pg_ctl is None:
            missing_package(
                "PostgreSQL's initdb and pg_ctl are not installed (apt-get install postgresql)"
            )
        self._pg_ctl = pg_ctl
        self.base = Path(tempfile.mkdtemp(prefix="threadlab-pg-"))
        self._run_as: list[str] = []
        if os.geteuid() == 0:
            self._run_as = ["runuser", "-u", "nobody", "--"]
            shutil.chown(self.base, "nobody")
        self._data, sockets, self.port = self.base / "data", self.base / "sockets", _free_port()
        subprocess.run(
            [*self._run_as, initdb, "-D", str(self._data), "-A", "trust", "-U", "postgres",
             "--no-sync"],
            check=True,
            capture_output=True,
        )  # fmt: skip
        subprocess.run([*self._run_as, "mkdir", str(sockets)], check=True)
        self._options = f"-p {self.port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _ctl(self, *args: str) -> None:
        subprocess.run(
            [*self._run_as, self._pg_ctl, "-D", str(self._data), *args],
            check=True,
            capture_output=True,
        )

    def start(self) -> None:
        self._ctl("-o", self._options, "-l", str(self.base / "log"), "-w", "start")

    def stop(self) -> None:
        self._ctl("-m", "immediate", "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    def remove(self) -> None:
        with suppress(subprocess.CalledProcessError):
            self.stop()
        shutil.rmtree(self.base, ignore_errors=True)


def postgres_server() -> Generator[str, None, None]:
    """Start a server; yield its admin URL; stop it and remove its files."""
    server = PostgresServer()
    try:
        server.start()
        yield server.url
    finally:
        server.remove()


running_postgres = contextmanager(postgres_server)
"""`with running_postgres() as url:` — the same server, for scripts (the benchmarks)."""


def fresh_database(server: str) -> str:
    """A new, empty database on `server`; its URL."""
    import psycopg

    name = f"test_{os.getpid()}_{next(_databases)}"
    with psycopg.connect(server, autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    return server.rsplit("/", 1)[0] + f"/{name}"
