"""MCP peers for the tests: the npm `@modelcontextprotocol/server-everything` (installed by
`.ci/run` into `.cache/npm`, never fetched by a test), and servers of the tests' own on the
official SDK, over stdio and over streamable HTTP."""

from __future__ import annotations

import os
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EVERYTHING = ROOT / ".cache/npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
HERE = Path(__file__).resolve().parent


@pytest.fixture
def everything() -> list[str]:
    """The command line that starts the "everything" server over stdio."""
    if not EVERYTHING.exists():
        message = (
            "@modelcontextprotocol/server-everything: run .ci/run (it installs it into .cache/npm)"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return ["node", str(EVERYTHING), "stdio"]


def stdio_server(*args: str) -> list[str]:
    """The command line of the tests' own stdio server."""
    return [sys.executable, str(HERE / "stdio_server.py"), *args]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class HttpServer:
    url: str
    token: str
    markers: Path


@pytest.fixture
def http_server(tmp_path: Path) -> Iterator[HttpServer]:
    port, token = free_port(), secrets.token_hex(16)
    process = subprocess.Popen(
        [sys.executable, str(HERE / "http_server.py"), str(port), token, str(tmp_path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert process.poll() is None, "the test MCP server exited"
                assert time.monotonic() < deadline, "the test MCP server did not start"
                time.sleep(0.1)
        yield HttpServer(f"http://127.0.0.1:{port}/mcp", token, tmp_path)
    finally:
        process.terminate()
        process.wait(30)


def processes_running(fragment: str) -> list[int]:
    """Pids of this test process's live children whose command line holds `fragment` (tests
    running beside it, under xdist, start the same servers: theirs are not counted)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state, parent = (entry / "stat").read_text().split(")")[-1].split()[:2]
        except OSError:
            continue
        if fragment in cmdline and state != "Z" and int(parent) == os.getpid():
            found.append(int(entry.name))
    return found
