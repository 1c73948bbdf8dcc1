"""The examples of the README and the documentation run as written and print what the text
says. Each is picked by its title (```python title="name.py"), never by its position."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes  # it starts mypy on every example

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
BLOCK = re.compile(r"```python([^\n]*)\n(.*?)```", re.DOTALL)
TITLE = re.compile(r'title="([\w.-]+\.py)"')
# Examples that need a service this machine does not run: they are type-checked, not run.
NOT_RUN = {
    "traces.py": "exports to a Phoenix or collector on localhost",
    "cluster.py": "joins a Ray cluster and a PostgreSQL store at made-up addresses",
    "mcp_oauth.py": "signs in, through a browser, to an MCP server at a made-up address",
}


def examples() -> dict[str, str]:
    """Every python example by title; a block without a title, or a title used twice, fails."""
    found: dict[str, str] = {}
    for page in PAGES:
        for info, code in BLOCK.findall(page.read_text()):
            title = TITLE.search(info)
            assert title, f"{page.relative_to(ROOT)}: a python block without a title="
            assert title[1] not in found, f"two examples are called {title[1]}"
            found[title[1]] = code
    return found


def run_example(
    title: str, tmp_path: Path, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    script = tmp_path / title
    script.write_text(examples()[title])
    env = {"XDG_CONFIG_HOME": str(tmp_path / "config"), "PATH": "/usr/bin:/bin"}
    result = subprocess.run(
        [sys.executable, str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=timeout,
    )
    return result


def test_the_quickstart_runs_and_prints_what_the_readme_says(tmp_path: Path) -> None:
    result = run_example("quickstart.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "card: write_file - writing index.html" in result.stdout
    assert "['/index.html']" in result.stdout
    assert "tool: 'wrote" in result.stdout


def test_the_composition_example_runs_and_prints_what_the_readme_says(tmp_path: Path) -> None:
    result = run_example("composition.py", tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "site_builder-1 completed"
    assert lines[1] == "['/index.html']"
    assert lines[2] == "['/attachments/index.html']"
    assert lines[3].startswith("- a subagent reported")


def test_the_reshaping_example_runs_and_prints_what_the_readme_says(tmp_path: Path) -> None:
    result = run_example("reshaping.py", tmp_path)
    assert result.returncode == 0, result.stderr
    forked, replayed = result.stdout.splitlines()
    assert re.fullmatch(r"ForkPoint\(thread_id='thr_[0-9a-f]+', at='call_1'\) \['5'\]", forked)
    assert replayed == "2 + 3 = 5 1 1"  # one step replayed, one answered by the fallback


def test_the_approval_example_runs_and_prints_what_the_readme_says(tmp_path: Path) -> None:
    result = run_example("approvals.py", tmp_path)
    assert result.returncode == 0, result.stderr
    waiting, finished = result.stdout.splitlines()
    assert waiting == "waiting ['call_del']"
    assert finished == "completed ['noted start', 'deleted /tmp/old.txt', 'noted end']"


def test_the_evaluation_example_prints_what_the_readme_says(tmp_path: Path) -> None:
    result = run_example("evaluation.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "offline 0.6666666666666666 1.0",
        "careful 0.6666666666666666 1.0",
        "['milk']",
    ]


def test_the_mcp_example_serves_and_uses_the_tool(tmp_path: Path) -> None:
    result = run_example("mcp_serve_and_use.py", tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == "True"
    assert lines[1].startswith("[('remote_shout', '")
    assert lines[1].endswith("!')]")
    assert result.stderr == ""  # no server log on the way out


def test_the_new_guides_examples_print_what_their_pages_say(tmp_path: Path) -> None:
    prompts = run_example("prompts_and_agents.py", tmp_path)
    assert prompts.returncode == 0, prompts.stderr
    assert prompts.stdout.splitlines()[0] == "completed"
    assert "1 tool count_words" in prompts.stdout.splitlines()
    assert "0 tool editor" in prompts.stdout.splitlines()
    variables = run_example("variables_and_secrets.py", tmp_path)
    assert variables.returncode == 0, variables.stderr
    assert variables.stdout.startswith("refused: required variables have no value: REGION")
    assert "asked with [secret:API_TOKEN]" in variables.stdout
    assert "tok-12345678" not in variables.stdout
    assert variables.stdout.splitlines()[-1] == "in the store: False"
    hooks = run_example("hooks.py", tmp_path)
    assert hooks.returncode == 0, hooks.stderr
    assert hooks.stdout.splitlines() == ["started: fetch - reading the docs", "106 [cut]"]


def test_the_explain_example_prints_what_the_jupyter_guide_says(tmp_path: Path) -> None:
    result = run_example("explain.py", tmp_path)
    assert result.returncode == 0, result.stderr
    paragraphs = result.stdout.split("\n\n")
    assert paragraphs[0].startswith("**1. The user's message.** “Make a landing page about tea")
    assert paragraphs[1].startswith(
        "**2. A model step (offline).** The runtime sent the model 2 messages (the system"
        " prompt and 1 user message) and the schemas of 1 tool (`write_file`)."
    )
    assert "the card of `write_file` already said “writing index\\.html”" in paragraphs[1]
    assert paragraphs[2].startswith("**3. The call of `write_file` (“writing index\\.html”).**")
    assert "It wrote `/index.html` (474 bytes) in the thread's files." in paragraphs[2]


def test_the_grading_example_prints_what_the_grading_guide_says(tmp_path: Path) -> None:
    result = run_example("grading.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "1.0 of 5.0",
        "False write_file was never called with path='/index.html' (its call had"
        " path='/about.html')",
        "False write_file was called before search; call search first",
        "False the final answer does not contain 'index.html'",
        "True no secret reached a message, a call or a file",
    ]


def test_the_follow_a_run_example_prints_what_the_jupyter_guide_says(tmp_path: Path) -> None:
    result = run_example("follow_a_run.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "model  ",
        "tool_call delete_file {'path': '/tmp/a.log'}",
        "  -> deleted /tmp/a.log",
        "waiting ['/tmp/a.log']",
        "before_tool",
        "Both deleted. ['/tmp/a.log', '/index.html']",
    ]


@pytest.mark.parametrize("title", ["models.py"])
def test_the_other_examples_run(title: str, tmp_path: Path) -> None:
    result = run_example(title, tmp_path)
    assert result.returncode == 0, result.stderr


def test_the_store_contract_example_passes_under_pytest(tmp_path: Path) -> None:
    script = tmp_path / "test_my_store.py"
    script.write_text(examples()["test_my_store.py"])
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(script)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "11 passed" in result.stdout  # every check of the contract ran


def test_the_local_ray_example_runs_each_row_in_another_process(tmp_path: Path) -> None:
    result = run_example("local_ray.py", tmp_path, timeout=240)  # Ray starts first
    assert result.returncode == 0, result.stderr[-3000:]
    assert result.stdout.splitlines() == [f"q{i} completed elsewhere" for i in range(4)]


def test_every_example_is_run_by_a_test_or_said_not_to_be() -> None:
    tested = re.findall(r'"([\w-]+\.py)"', Path(__file__).read_text())
    assert set(examples()) - set(NOT_RUN) <= set(tested)


def test_every_python_example_type_checks_under_mypy_strict(tmp_path: Path) -> None:
    # Users copy these: they must type-check as written against the shipped types (py.typed).
    scripts = []
    for title, code in examples().items():
        script = tmp_path / title
        script.write_text(code)
        scripts.append(str(script))
    result = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", *scripts],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_mcp_guides_examples_print_what_the_page_says(tmp_path: Path) -> None:
    served = run_example("mcp_served_content.py", tmp_path)
    assert served.returncode == 0, served.stderr
    lines = served.stdout.splitlines()
    assert lines[:3] == ["{'city': 'Oslo', 'celsius': 21.5}", "['text', 'resource']",
                         "True /chart.svg"]  # fmt: skip
    assert "text='Write a weather brief for Oslo.'" in lines[3]
    decided = run_example("mcp_decisions.py", tmp_path)
    assert decided.returncode == 0, decided.stderr
    assert decided.stdout.splitlines() == [
        'asked: threadlab: the call delete(path="/tmp/old.log")',
        "completed ['deleted /tmp/old.log']",
    ]


def test_the_mcp_guides_own_resources_example_prints_what_the_page_says(tmp_path: Path) -> None:
    result = run_example("mcp_own_resources.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "['notes://index', 'assets://pixel.gif']",
        "['notes://{topic}', 'threadlab://threads/{thread_id}/files/{path}']",
        "Steep for four minutes.",
        "image/gif True",
        "resource notes://juice: read failed: KeyError: 'juice'",
        "['image', 'resource', 'text']",
    ]


def test_the_mcp_guides_asking_example_prints_what_the_page_says(tmp_path: Path) -> None:
    result = run_example("mcp_asking_the_caller.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "the client's person is asked: Book a table at Noma?",
        "['4 seats, terrace=False: We look forward to it.']",
        "the elicitor is asked by book: Book a table at Geranium?",
        "['2 seats, terrace=True: Please seat us early.']",
    ]


def test_the_mcp_guides_tool_ui_example_keeps_the_page_with_the_call(tmp_path: Path) -> None:
    result = run_example("mcp_tool_ui.py", tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["ui://threadlab/clock True"]
