"""A served registry whose `delete` waits for a decision, in a process of its own, for tests
that kill it: `python -m tests.mcp.gated_server STORE URL_FILE DELETED_FILE`. It writes its URL
to URL_FILE once serving (no token) and appends each path it deletes to DELETED_FILE."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import threadlab as tl


def gated_registry(deleted: Path) -> tl.Registry:
    registry = tl.Registry()

    @tl.tool(registry=registry, approval="always")
    def delete(state: tl.ThreadState, path: str) -> str:
        """Delete a path."""
        with deleted.open("a") as out:
            out.write(path + "\n")
        return f"deleted {path}"

    return registry


async def main(store: Path, url_file: Path, deleted: Path) -> None:
    rt = tl.Runtime(gated_registry(deleted), store)
    service = await tl.mcp.serve(runtime=rt, token=None)
    url_file.write_text(service.url)
    try:
        await asyncio.Event().wait()
    finally:
        await service.close()
        await rt.aclose()


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])))
