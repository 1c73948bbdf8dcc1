"""A real JupyterLab on 127.0.0.1 and a real Chromium driven by Playwright."""

from __future__ import annotations

import base64
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ..helpers import missing_package

CHROMIUM = "/usr/bin/chromium"


@dataclass
class Lab:
    url: str
    token: str
    root: Path

    def notebook_url(self, name: str) -> str:
        # `reset`: a fresh workspace, so no notebook a previous test left open shares the page.
        return f"{self.url}/lab/tree/{name}?token={self.token}&reset"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    if not Path(CHROMIUM).exists():
        missing_package(f"{CHROMIUM} is not installed (apt-get install chromium)")
    jupyter = Path(sys.executable).with_name("jupyter")
    if not jupyter.exists() or shutil.which(str(jupyter)) is None:
        missing_package("jupyter lab is not installed in this environment")
    base = tmp_path_factory.mktemp("lab")
    root, settings, app_settings, workspaces, config = (
        base / n for n in ("root", "settings", "app-settings", "ws", "cfg")
    )
    for folder in (root, settings, app_settings, workspaces, config):
        folder.mkdir()
    port, token = _free_port(), secrets.token_hex(16)
    npm_bin = Path(__file__).resolve().parents[2] / ".cache/npm/node_modules/.bin"
    env = dict(
        os.environ,
        PATH=f"{npm_bin}:{os.environ.get('PATH', '')}",  # the MCP peers, as `make lab` does
        JUPYTERLAB_SETTINGS_DIR=str(settings),
        JUPYTERLAB_WORKSPACES_DIR=str(workspaces),
        XDG_CONFIG_HOME=str(config),
        JUPYTER_CONFIG_DIR=str(config / "jupyter"),
    )
    log = (base / "lab.log").open("w")
    proc = subprocess.Popen(
        [
            str(jupyter),
            "lab",
            "--no-browser",
            "--ip=127.0.0.1",
            f"--port={port}",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            "--ServerApp.disable_check_xsrf=True",
            "--LabApp.news_url=",
            # JupyterLab's defaults, as a new user has them: settings of the test's own, and
            # no environment-wide overrides (widget state is not saved with the notebook).
            f"--LabApp.app_settings_dir={app_settings}",
            "--allow-root",
        ],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=root,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError((base / "lab.log").read_text()[-3000:]) from None
            time.sleep(0.3)
    yield Lab(url, token, root)
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def browser(lab: Lab) -> Iterator[object]:
    # Module scope: Playwright's sync API keeps an event loop running on this thread while
    # it is open, and the async tests that follow need the thread to themselves.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        yield chromium
        chromium.close()


PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="
)


@pytest.fixture
def pixel_server() -> Iterator[tuple[str, list[str]]]:
    """A real server that answers every GET with a 1x1 PNG and records what was asked: the
    only sure sign that an image left the frame (a request the page's CSP blocks is still
    announced to the browser's tools, and a frame of its own process may not be watched)."""
    asked: list[str] = []

    class Pixel(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(PIXEL)))
            self.end_headers()
            self.wfile.write(PIXEL)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Pixel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/pixel.png", asked
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def shown_page(lab: Lab, browser: Any, failure: str) -> Iterator[tuple[Any, Path]]:
    """A 1400x1000 page and the folder for screenshots; if the body fails, a screenshot of
    the whole page named `failure` is left there (and its path printed)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    shots = lab.root.parent / "shots"
    shots.mkdir(exist_ok=True)
    try:
        yield page, shots
    except Exception:
        page.screenshot(path=str(shots / failure), full_page=True)
        print(f"screenshot of the failure: {shots / failure}")
        raise
    finally:
        page.close()
