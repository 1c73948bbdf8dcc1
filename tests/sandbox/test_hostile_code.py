"""Hostile code in both sandboxes: each attempt is contained with a clear result, and the host
is unharmed (its files, its network, its environment, its memory and open files)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import secrets
import time
from pathlib import Path
from typing import Any

import pytest

from threadlab.sandbox import CodeResult, Language, start_code_run

pytestmark = pytest.mark.processes  # it starts the sandbox's Deno and Python runners

# The same attack written for each sandbox: JavaScript (ES module, default export is the
# result) and Python (function `main`).
ATTACKS: dict[str, dict[str, str]] = {
    "read_host_file": {
        "javascript": "export default () => Deno.readTextFileSync(TARGET);",
        "python": "def main():\n    return open(TARGET).read()",
    },
    "write_outside": {
        "javascript": "export default () => { Deno.writeTextFileSync(TARGET, 'pwned'); return 1; };",
        "python": "def main():\n    open(TARGET, 'w').write('pwned')\n    return 1",
    },
    "connect_local_server": {
        "javascript": "export default async () =>"
        " (await fetch(`http://127.0.0.1:${PORT}/${MARK}`)).status;",
        "python": "import socket\ndef main():\n"
        "    socket.create_connection(('127.0.0.1', PORT), timeout=2).sendall(MARK.encode())\n"
        "    return 1",
    },
    "connect_outside": {
        "javascript": "export default async () => (await fetch('https://threadlab.invalid/')).status;",
        "python": "import urllib.request\ndef main():\n"
        "    return urllib.request.urlopen('https://threadlab.invalid/', timeout=2).status",
    },
    "read_host_env": {
        "javascript": "export default () => Deno.env.get('THREADLAB_HOST_SECRET');",
        "python": "import os\ndef main():\n    return os.environ.get('THREADLAB_HOST_SECRET')",
    },
    "spawn_process": {
        "javascript": "export default () => new Deno.Command('/usr/bin/id').outputSync().code;",
        "python": "import subprocess\ndef main():\n"
        "    return subprocess.run(['/usr/bin/cat', TARGET], capture_output=True).stdout.decode()",
    },
    "ffi": {
        "javascript": "export default () => Deno.dlopen('libc.so.6', {getpid: {parameters: [], result: 'i32'}}).symbols.getpid();",
        "python": "import ctypes\ndef main():\n"
        "    libc = ctypes.CDLL('libc.so.6')\n"
        "    return libc.getuid()",
    },
}


def _run(code: str, language: Language, **options: Any) -> CodeResult:
    async def go() -> CodeResult:
        return await start_code_run(code, language=language, **options)

    return asyncio.run(go())


@pytest.fixture
def host_secret(monkeypatch: pytest.MonkeyPatch) -> str:
    value = "host-only-value-5521"
    monkeypatch.setenv("THREADLAB_HOST_SECRET", value)
    return value


def test_reading_a_host_file_is_refused(language: Language, tmp_path: Path) -> None:
    store_file = tmp_path / "threads.sqlite3"
    store_file.write_text("the store's secrets")
    result = _run(
        ATTACKS["read_host_file"][language], language, globals={"TARGET": str(store_file)}
    )
    assert result.status == "error", result
    assert "the store's secrets" not in repr(result)
    # The jail's /etc is a synthetic one: the host's accounts are not in it.
    result = _run(ATTACKS["read_host_file"][language], language, globals={"TARGET": "/etc/passwd"})
    assert "root:" not in repr(result)


def test_writing_outside_the_work_dir_is_refused(language: Language, tmp_path: Path) -> None:
    target = tmp_path / "outside.txt"
    result = _run(ATTACKS["write_outside"][language], language, globals={"TARGET": str(target)})
    assert result.status == "error"
    assert not target.exists()


def test_no_connection_reaches_a_server_on_the_hosts_loopback(language: Language) -> None:
    # What the code sends names it: a port picked at random may be reached meanwhile by
    # another process's client (one retrying an earlier server's port), which is not the code.
    mark = secrets.token_hex(8)

    async def go() -> tuple[CodeResult, int]:
        connections = 0

        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            nonlocal connections
            with contextlib.suppress(TimeoutError, ConnectionError):
                said = await asyncio.wait_for(reader.read(4096), 2)
                if mark.encode() in said:
                    connections += 1
            writer.close()

        server = await asyncio.start_server(accept, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        async with server:
            run = start_code_run(
                ATTACKS["connect_local_server"][language],
                language=language,
                globals={"PORT": port, "MARK": mark},
                timeout=10,
            )
            result = await run
            await asyncio.sleep(0.1)
        return result, connections

    result, connections = asyncio.run(go())
    assert result.status == "error"
    assert connections == 0


def test_no_network_to_the_outside(language: Language) -> None:
    result = _run(ATTACKS["connect_outside"][language], language, timeout=10)
    assert result.status == "error"
    assert result.error is not None


def test_the_host_environment_is_not_visible(language: Language, host_secret: str) -> None:
    result = _run(ATTACKS["read_host_env"][language], language)
    assert host_secret not in repr(result)
    assert result.status == "error" if language == "javascript" else result.result is None


def test_spawning_processes_is_contained(language: Language, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host file content")
    result = _run(ATTACKS["spawn_process"][language], language, globals={"TARGET": str(secret)})
    assert "host file content" not in repr(result)
    if language == "javascript":
        assert result.status == "error"
        assert result.error is not None
        assert "run access" in result.error.message


def test_ffi_is_refused_or_confined(language: Language) -> None:
    result = _run(ATTACKS["ffi"][language], language)
    if language == "javascript":
        assert result.status == "error"
    else:
        # ctypes works inside the jail, but only sees the jail: the process is nobody there
        # (as root) or the calling user, with no capability over the host.
        assert result.status == "success"
        assert result.result != 0 or os.getuid() != 0


@pytest.mark.parametrize(
    ("code", "language"),
    [
        (
            "export default () => { const a = []; for (;;) a.push({ x: 'y'.repeat(64) + Math.random() }); };",
            "javascript",
        ),
        (
            "export default () => { const a = []; for (;;) a.push(new ArrayBuffer(1 << 24)); };",
            "javascript",
        ),
        (
            "def main():\n    blocks = []\n    while True:\n        blocks.append(bytearray(1 << 24))",
            "python",
        ),
    ],
    ids=["js-heap-bomb", "js-arraybuffer-bomb", "python-memory-bomb"],
)
def test_memory_bombs_hit_the_cap(code: str, language: Language) -> None:
    if language == "python":
        from .conftest import require_jail

        require_jail()
    result = _run(code, language, memory_mb=64, timeout=30)
    assert result.status == "memory", result


PEAK = """
import asyncio, json, os, sys, threading, time
from threadlab.sandbox import start_code_run
from threadlab.sandbox._resident import tree_resident_bytes


mine = tree_resident_bytes(os.getpid())
peak = 0
def sample():  # the run's processes' resident memory, every millisecond
    global peak
    while True:
        peak = max(peak, tree_resident_bytes(os.getpid()) - mine)
        time.sleep(0.001)
threading.Thread(target=sample, daemon=True).start()
async def go():
    return await start_code_run(sys.argv[1], language="javascript", memory_mb=128, timeout=30)
result = asyncio.run(go())
print(json.dumps({"status": result.status, "peak_mb": peak >> 20}))
"""


@pytest.mark.parametrize(
    "code",
    [
        # One WebAssembly memory grown to 600 MiB (outside the heap the V8 flag caps).
        "export default () => { const m = new WebAssembly.Memory({initial: 1, maximum: 65536});"
        " m.grow(9600); const v = new Uint8Array(m.buffer);"
        " for (let i = 0; i < v.length; i += 4096) v[i] = 1; return v.length; };",
        # Ten of 100 MiB each, every one under a per-memory limit.
        "export default () => { const kept = []; for (let n = 0; n < 10; n++) {"
        " const m = new WebAssembly.Memory({initial: 1, maximum: 2048}); m.grow(1600);"
        " const v = new Uint8Array(m.buffer); for (let i = 0; i < v.length; i += 4096) v[i] = 1;"
        " kept.push(m); } return kept.length; };",
        # A 600 MiB typed array.
        "export default () => { const b = new Uint8Array(600 << 20);"
        " for (let i = 0; i < b.length; i += 4096) b[i] = 1; return b.length; };",
    ],
    ids=["one-wasm-memory", "many-wasm-memories", "typed-array"],
)
def test_a_javascript_run_is_held_near_its_memory_cap(code: str) -> None:
    """memory_mb=128: the run stops as over its cap, and its processes' peak resident memory
    (sampled every millisecond) stays near 128 MiB plus Deno's own, not 1 GiB more."""
    import json
    import subprocess
    import sys

    said = subprocess.run(
        [sys.executable, "-c", PEAK, code], capture_output=True, text=True, timeout=120,
        check=True,
    )  # fmt: skip
    measured = json.loads(said.stdout.strip().splitlines()[-1])
    assert measured["status"] == "memory", measured
    # Deno's baseline (~40 MiB) + 128 MiB + what can be touched between two looks.
    assert measured["peak_mb"] < 128 + 64 + 96, measured


def test_an_infinite_loop_times_out(language: Language) -> None:
    code = {
        "javascript": "export default () => { for (;;) {} };",
        "python": "def main():\n    while True:\n        pass",
    }[language]
    started = time.monotonic()
    result = _run(code, language, timeout=1.5)
    assert result.status == "timeout"
    assert time.monotonic() - started < 10


def test_a_promise_that_never_settles_stays_pending_until_its_timeout(language: Language) -> None:
    code = {
        "javascript": "export default () => new Promise(() => {});",
        "python": "import asyncio\nasync def main():\n    await asyncio.get_running_loop().create_future()",
    }[language]
    started = time.monotonic()
    result = _run(code, language, timeout=1.5)
    assert result.status == "timeout"
    assert time.monotonic() - started >= 1.4


def test_a_fork_bomb_is_contained() -> None:
    from .conftest import require_jail

    require_jail()
    code = (
        "import os, time\n"
        "def main():\n"
        "    children = 0\n"
        "    try:\n"
        "        while True:\n"
        "            if os.fork() == 0:\n"
        "                time.sleep(30)\n"
        "                os._exit(0)\n"
        "            children += 1\n"
        "    except OSError as error:\n"
        "        return {'children': children, 'error': str(error)}\n"
    )
    result = _run(code, "python", timeout=20)
    assert result.status == "success", result
    assert result.result["children"] < 64


def test_worker_spam_is_contained() -> None:
    code = (
        "export default () => {\n"
        "  const source = 'const a = []; for (;;) a.push(new Array(1e5).fill(1));';\n"
        "  const url = `data:application/javascript,${encodeURIComponent(source)}`;\n"
        "  for (let i = 0; i < 500; i++) new Worker(url, { type: 'module' });\n"
        "  return new Promise(() => {});\n"
        "};"
    )
    result = _run(code, "javascript", timeout=5, memory_mb=64)
    assert result.status in ("memory", "timeout", "error"), result


def test_a_flood_of_output_is_bounded(language: Language) -> None:
    code = {
        "javascript": "export default () => { for (let i = 0; i < 200000; i++) console.log('x'.repeat(100)); return 'done'; };",
        "python": "def main():\n    for _ in range(200000):\n        print('x' * 100)\n    return 'done'",
    }[language]
    result = _run(code, language, timeout=60)
    assert result.status == "success"
    assert result.result == "done"
    assert len(result.logs) <= 1001
    assert sum(map(len, result.logs)) <= 80_000
    assert result.logs[-1].endswith("more lines not kept")


def test_an_import_of_a_remote_module_is_refused() -> None:
    result = _run(
        "import x from 'https://threadlab.invalid/x.js';\nexport default x;", "javascript"
    )
    assert result.status == "error"


def test_a_bridged_function_that_raises_is_an_error_inside_the_sandbox(language: Language) -> None:
    def lookup(key: str) -> str:
        raise KeyError(key)

    code = {
        "javascript": "import { lookup } from 'host';\nexport default async () => {\n"
        "  try { await lookup('k'); } catch (e) { return 'caught: ' + e.message; }\n};",
        "python": "from host import lookup\nasync def main():\n    try:\n"
        "        await lookup('k')\n    except Exception as error:\n"
        "        return 'caught: ' + str(error)",
    }[language]
    result = _run(code, language, imports={"host": {"lookup": lookup}})
    assert result.status == "success", result
    assert result.result == "caught: KeyError: 'k'"


def test_terminate_during_a_bridged_call(language: Language) -> None:
    async def go() -> tuple[CodeResult, float]:
        entered = asyncio.Event()

        async def slow() -> str:
            entered.set()
            await asyncio.sleep(60)
            return "late"

        code = {
            "javascript": "import { slow } from 'host';\nexport default async () => await slow();",
            "python": "from host import slow\nasync def main():\n    return await slow()",
        }[language]
        run = start_code_run(code, language=language, imports={"host": {"slow": slow}})
        await asyncio.wait_for(entered.wait(), 30)
        started = time.monotonic()
        run.terminate("enough")
        result = await run
        return result, time.monotonic() - started

    result, took = asyncio.run(go())
    assert result.status == "terminated"
    assert result.error is not None
    assert "enough" in result.error.message
    assert took < 5


def _open_files() -> int:
    return len(os.listdir("/proc/self/fd"))


def test_the_host_gets_its_memory_and_open_files_back(language: Language) -> None:
    code = {
        "javascript": "export default () => { for (;;) {} };",
        "python": "def main():\n    while True:\n        pass",
    }[language]

    async def many() -> None:
        for _ in range(5):
            await start_code_run(code, language=language, timeout=0.5)
            await start_code_run(
                "export default 1;" if language == "javascript" else "main = 1", language=language
            )

    asyncio.run(many())  # warm-up: imports, the loop's own descriptors
    files = _open_files()
    memory = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    asyncio.run(many())
    assert _open_files() == files
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - memory < 50_000  # KiB


@pytest.mark.parametrize("folder", ["/work", "/tmp", "/dev/shm", "/", "/dev"])
def test_writable_space_is_capped_by_the_memory_cap(folder: str) -> None:
    """tmpfs lives in the host's RAM: 512 MB written by a run with memory_mb=64 must fail."""
    from .conftest import require_jail

    require_jail()
    code = (
        "import os\n"
        "def main():\n"
        "    written = 0\n"
        "    chunk = b'x' * (1 << 20)\n"
        "    try:\n"
        "        for index in range(512):\n"
        "            with open(os.path.join(FOLDER, f'fill-{index // 8}'), 'ab') as file:\n"
        "                file.write(chunk)\n"
        "            written += 1\n"
        "    except OSError as error:\n"
        "        return {'mb': written, 'error': error.strerror}\n"
        "    return {'mb': written, 'error': None}\n"
    )
    result = _run(code, "python", globals={"FOLDER": folder}, memory_mb=64, timeout=60)
    assert result.status == "success", result
    assert result.result["error"] is not None
    assert result.result["mb"] <= 32  # the work dir's half of memory_mb, the most of any


def test_no_new_namespaces_can_be_made_in_the_jail() -> None:
    from .conftest import require_jail

    require_jail()
    code = (
        "import ctypes\n"
        "def main():\n"
        "    libc = ctypes.CDLL(None, use_errno=True)\n"
        "    flags = {'user': 0x10000000, 'net': 0x40000000, 'mount': 0x00020000}\n"
        "    return {name: libc.unshare(flag) for name, flag in flags.items()}\n"
    )
    result = _run(code, "python")
    assert result.status == "success", result
    assert result.result == {"user": -1, "net": -1, "mount": -1}


def test_reports_are_capped_per_run(language: Language) -> None:
    code = {
        "javascript": "export default () => { for (let i = 0; i < 24; i++) report('x'.repeat(4 << 20)); return 'done'; };",
        "python": "def main():\n    for _ in range(24):\n        report('x' * (4 << 20))\n    return 'done'",
    }[language]
    result = _run(code, language, timeout=60)
    assert result.status == "error", result.status
    assert result.error is not None
    assert result.error.name == "LimitExceeded"
    assert "reports went over 16 MiB" in result.error.message
    assert sum(len(r) for r in result.reports) <= 16 << 20


def _flood_of_calls(language: Language, count: int) -> tuple[CodeResult, dict[str, int]]:
    seen = {"calls": 0, "running": 0, "most": 0}

    async def lookup(key: int) -> int:
        seen["calls"] += 1
        seen["running"] += 1
        seen["most"] = max(seen["most"], seen["running"])
        await asyncio.sleep(0.01)
        seen["running"] -= 1
        return key

    code = {
        "javascript": "import { lookup } from 'host';\n"
        "export default async () => (await Promise.all([...Array(COUNT).keys()].map((i) => lookup(i)))).length;",
        "python": "import asyncio\nfrom host import lookup\n"
        "async def main():\n    return len(await asyncio.gather(*(lookup(i) for i in range(COUNT))))",
    }[language]
    result = _run(
        code, language, imports={"host": {"lookup": lookup}}, globals={"COUNT": count}, timeout=60
    )
    return result, seen


def test_bridged_calls_run_a_few_at_a_time(language: Language) -> None:
    result, seen = _flood_of_calls(language, 200)
    assert (result.status, result.result) == ("success", 200), result
    assert seen["calls"] == 200
    assert seen["most"] <= 16


def test_a_flood_of_bridged_calls_ends_the_run() -> None:
    # Python's bridge makes one call at a time; only JavaScript can have thousands in flight.
    result, seen = _flood_of_calls("javascript", 50_000)
    assert result.status == "error", result.status
    assert result.error is not None
    assert result.error.name == "LimitExceeded"
    assert "bridged calls" in result.error.message
    assert seen["most"] <= 16
    assert seen["calls"] < 1_000
