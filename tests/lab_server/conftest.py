"""A real Jupyter server on 127.0.0.1 with threadlab's server extension, as installed (its
configuration file enables it), on a store the test chose."""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from ..helpers import missing_package


@dataclass
class Server:
    url: str
    token: str
    root: Path

    def get(self, path: str, **params: object) -> httpx.Response:
        """`path` asked with the server's token."""
        return httpx.get(
            f"{self.url}{path}",
            params={k: str(v) for k, v in params.items()},
            headers={"Authorization": f"token {self.token}"},
            timeout=30,
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def jupyter_server(root: Path, *options: str) -> Iterator[Server]:
    """A Jupyter server on `root`, with `options` (`--ThreadlabServer.store=...`), until the
    block ends; its log is `root/../server.log`."""
    jupyter = Path(sys.executable).with_name("jupyter")
    if not jupyter.exists() or shutil.which(str(jupyter)) is None:
        missing_package("jupyter server is not installed in this environment")
    port, token = _free_port(), secrets.token_hex(16)
    log_path = root.parent / f"server-{port}.log"
    config = root.parent / f"config-{port}"
    config.mkdir()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(config), XDG_CONFIG_HOME=str(config))
    with log_path.open("w") as log:
        proc = subprocess.Popen(
            [
                str(jupyter), "server", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
                f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}",
                *(["--allow-root"] if os.geteuid() == 0 else []), *options,
            ],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=root,
        )  # fmt: skip
        server = Server(f"http://127.0.0.1:{port}", token, root)
        try:
            _wait_ready(server, proc, log_path)
            yield server
        finally:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _wait_ready(server: Server, proc: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + 90
    while True:
        try:
            if server.get("/api/status").status_code == 200:
                return
        except httpx.TransportError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(log_path.read_text()[-3000:])
        time.sleep(0.3)
