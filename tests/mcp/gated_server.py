"""A served registry whose `delete` waits for a decision, in a process of its own, for tests
that kill it: `python -m tests.mcp.gated_server STORE URL_FILE DELETED_FILE`. It writes its URL
to URL_FILE once serving (no token) and appends each path it deletes to DELETED_FILE."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import threadlab as tl

from .conformance_server import serve_until_stopped


def gated_registry(deleted: Path) -> tl.Registry:
    registry = tl.Registry()

    @tl.tool(registry=registry, approval="always")
    def delete(state: tl.ThreadState, path: str) -> str:
        """Delete a path."""
        with deleted.open("a") as out:
            out.write(path + "\n")
        return f"deleted {path}"

    return registry


if __name__ == "__main__":
    store, url_file, deleted = map(Path, sys.argv[1:4])
    asyncio.run(serve_until_stopped(gated_registry(deleted), store, url_file))
