"""The README's quickstart runs as written."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), re.DOTALL)


def run_block(index: int, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    script = tmp_path / f"block{index}.py"
    script.write_text(python_blocks()[index])
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    return result


def test_the_quickstart_runs_and_prints_what_the_readme_says(tmp_path: Path) -> None:
    result = run_block(0, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "card: write_file - writing index.html" in result.stdout
    assert "['/index.html']" in result.stdout
    assert "tool: 'wrote" in result.stdout


def test_the_composition_example_runs_and_prints_what_the_readme_says(tmp_path: Path) -> None:
    result = run_block(1, tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "site_builder-1 completed"
    assert lines[1] == "['/index.html']"
    assert lines[2] == "['/attachments/index.html']"
    assert lines[3].startswith("- a subagent reported")


def test_the_reshaping_example_runs_and_prints_what_the_readme_says(tmp_path: Path) -> None:
    (index,) = [i for i, block in enumerate(python_blocks()) if "thread.fork(" in block]
    result = run_block(index, tmp_path)
    assert result.returncode == 0, result.stderr
    forked, replayed = result.stdout.splitlines()
    assert re.fullmatch(r"ForkPoint\(thread_id='thr_[0-9a-f]+', at='call_1'\) \['5'\]", forked)
    assert replayed == "2 + 3 = 5 1 1"  # one step replayed, one answered by the fallback


def test_the_approval_example_runs_and_prints_what_the_readme_says(tmp_path: Path) -> None:
    (index,) = [i for i, block in enumerate(python_blocks()) if "thread.approve(" in block]
    result = run_block(index, tmp_path)
    assert result.returncode == 0, result.stderr
    waiting, finished = result.stdout.splitlines()
    assert waiting == "waiting ['call_del']"
    assert finished == "completed ['noted start', 'deleted /tmp/old.txt', 'noted end']"


def test_the_evaluation_example_prints_what_the_readme_says(tmp_path: Path) -> None:
    (index,) = [i for i, block in enumerate(python_blocks()) if "tl.evaluate(" in block]
    result = run_block(index, tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "offline 0.6666666666666666 1.0",
        "careful 0.6666666666666666 1.0",
        "['milk']",
    ]


def test_the_mcp_example_serves_and_uses_the_tool(tmp_path: Path) -> None:
    (index,) = [i for i, block in enumerate(python_blocks()) if "tl.mcp.serve(" in block]
    result = run_block(index, tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "True"
    assert lines[1].startswith("[('remote_shout', '")
    assert lines[1].endswith("!')]")
    assert result.stderr == ""  # no server log on the way out


def test_every_python_example_type_checks_under_mypy_strict(tmp_path: Path) -> None:
    # Users copy these: they must type-check as written against the shipped types (py.typed).
    scripts = []
    for index, block in enumerate(python_blocks()):
        script = tmp_path / f"readme_block{index}.py"
        script.write_text(block)
        scripts.append(str(script))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *scripts],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
