"""Deno's permission flags do not cover module loading: a string-literal specifier is read with
no check. Every such technique, tried against a marker file the jail must not hold: its token
never appears in the result, the logs, the reports, the error, or a thread's messages and
events. The marker is world-readable on a world-traversable path, so only the jail (not file
permissions) can keep it out."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, text
from threadlab.sandbox import CodeResult, start_code_run

from ..helpers import scripted_prompt
from .conftest import require_jail

pytestmark = pytest.mark.processes  # it starts the sandbox's Deno and Python runners

TOKEN = "marker-token-7f3a9c"


@pytest.fixture
def marker() -> Iterator[Path]:
    require_jail()
    folder = Path(tempfile.mkdtemp(prefix="threadlab-marker-", dir="/tmp"))
    folder.chmod(0o755)
    (folder / "marker.txt").write_text(f"{TOKEN}:x:0:0\nsecond line {TOKEN}\n")
    (folder / "marker.js").write_text(f'export default "{TOKEN}";\n')
    (folder / "marker.ts").write_text(f'const token: string = "{TOKEN}";\nexport default token;\n')
    (folder / "marker.json").write_text(json.dumps({"token": TOKEN}))
    (folder / "marker.cjs").write_text(f'module.exports = "{TOKEN}";\n')
    for file in folder.iterdir():
        file.chmod(0o644)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def techniques(folder: Path) -> dict[str, str]:
    """Each way a model's code could read a host file by naming it, as JavaScript modules."""
    txt, js, ts = folder / "marker.txt", folder / "marker.js", folder / "marker.ts"
    data, cjs = folder / "marker.json", folder / "marker.cjs"
    host_pid = os.getpid()
    return {
        "static text import": f'import t from "{txt}" with {{ type: "text" }};\nexport default t;',
        "static bytes import": f'import b from "{txt}" with {{ type: "bytes" }};\n'
        "export default new TextDecoder().decode(b);",
        "static js import": f'import t from "{js}";\nexport default t;',
        "static ts import": f'import t from "{ts}";\nexport default t;',
        "static json import": f'import j from "{data}" with {{ type: "json" }};\nexport default j;',
        "file url import": f'import t from "file://{txt}" with {{ type: "text" }};\nexport default t;',
        "literal dynamic import": f'export default async () => (await import("{js}")).default;',
        "literal dynamic text import": "export default async () => "
        f'(await import("{txt}", {{ with: {{ type: "text" }} }})).default;',
        "createRequire of a literal": 'import { createRequire } from "node:module";\n'
        f'export default () => createRequire(import.meta.url)("{cjs}");',
        "createRequire of json": 'import { createRequire } from "node:module";\n'
        f'export default () => createRequire(import.meta.url)("{data}");',
        "parse error echoes the first line": f'import "{txt}";\nexport default 1;',
        "side-effect import of js": f'import "{js}";\nexport default 1;',
        "host environ by pid": f'import t from "/proc/{host_pid}/environ" with {{ type: "text" }};\n'
        "export default t;",
        "host cmdline by pid": f'import t from "/proc/{host_pid}/cmdline" with {{ type: "text" }};\n'
        "export default t;",
        "parent environ": 'import t from "/proc/1/environ" with { type: "text" };\nexport default t;',
        "etc passwd": 'import t from "/etc/passwd" with { type: "text" };\nexport default t;',
        "etc shadow": 'import t from "/etc/shadow" with { type: "text" };\nexport default t;',
        "read file api": f'export default () => Deno.readTextFileSync("{txt}");',
        "fetch file url": f'export default async () => (await fetch("file://{txt}")).text();',
        "node fs": f'import {{ readFileSync }} from "node:fs";\nexport default () => readFileSync("{txt}", "utf8");',
        "worker of a literal": f'export default () => new Promise((ok, no) => {{ const w = new Worker("file://{js}", {{ type: "module" }}); w.onerror = (e) => no(new Error(e.message)); }});',
    }


def _run(code: str, **options: Any) -> CodeResult:
    async def go() -> CodeResult:
        return await start_code_run(code, language="javascript", timeout=20, **options)

    return asyncio.run(go())


@pytest.fixture
def host_token(monkeypatch: pytest.MonkeyPatch) -> None:
    # The host's environment holds the token too: /proc/<host pid>/environ must stay out.
    monkeypatch.setenv("THREADLAB_MARKER", TOKEN)


@pytest.mark.usefixtures("host_token")
@pytest.mark.parametrize("technique", list(techniques(Path("/x"))))
def test_a_named_host_file_never_reaches_the_code(marker: Path, technique: str) -> None:
    result = _run(techniques(marker)[technique])
    assert TOKEN not in repr(result), result
    assert "root:x:0:0" not in repr(result)
    if technique == "parent environ":
        # The jail's own PID 1 (bubblewrap's init) may be read: its environment is empty.
        assert result.result in ("", None), result
    else:
        assert result.status == "error", result


@pytest.mark.usefixtures("host_token")
async def test_no_technique_leaks_into_a_threads_history(
    marker: Path, rt: tl.Runtime, registry: tl.Registry, store_dir: Path
) -> None:
    """The sandbox guide's `run_javascript` tool (docs/guides/sandbox.md), driven by a model
    that tries every technique."""

    @tl.tool(registry=registry)
    async def run_javascript(state: tl.ThreadState, code: str) -> Any:
        """Run JavaScript in the sandbox.

        Args:
            code: an ES module; its default export is the result
        """
        return (await state.run_code(code, language="javascript", timeout=20)).model_dump()

    codes = list(techniques(marker).values())
    scripted_prompt(
        registry,
        [*(call("run_javascript", {"code": code}) for code in codes), text("done")],
        tools=["run_javascript"],
    )
    thread = await rt.create_thread("p")
    run = await thread.send("read the host")
    assert run.status == "completed"
    results = [m for m in thread.messages if m.role == "tool"]
    assert len(results) == len(codes)
    stored = repr(thread.all_messages()) + repr(thread.events)
    assert TOKEN not in stored
    store_bytes = b"".join(p.read_bytes() for p in store_dir.rglob("*") if p.is_file())
    assert TOKEN.encode() not in store_bytes
