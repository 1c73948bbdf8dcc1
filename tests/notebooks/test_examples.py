"""Every example notebook, executed in a real kernel with nbclient, offline."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient

from ..helpers import synced_state

pytestmark = pytest.mark.processes  # it starts a Jupyter kernel per notebook

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def execute(name: str, tmp_path: Path) -> nbformat.NotebookNode:
    notebook = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    assert all(not c.get("outputs") for c in notebook.cells if c.cell_type == "code"), (
        "example notebooks are committed without outputs"
    )
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    client = NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(tmp_path)}},
        store_widget_state=True,
    )
    client.execute()
    return notebook  # type: ignore[no-any-return]  # nbformat is untyped


def outputs(notebook: nbformat.NotebookNode, mime: str = "text/plain") -> list[str]:
    found = []
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            assert output.output_type != "error", f"{output.ename}: {output.evalue}"
            if output.output_type == "stream":
                found.append(output.text)
            elif mime in output.get("data", {}):
                found.append(output.data[mime])
    return found


def widget_states(notebook: nbformat.NotebookNode) -> list[dict[str, Any]]:
    """The saved widgets' states, as the views read them."""
    saved = notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]
    return [synced_state(model["state"]) for model in saved["state"].values()]


def traces(notebook: nbformat.NotebookNode) -> list[dict[str, Any]]:
    return [s["trace"] for s in widget_states(notebook) if s.get("trace")]


def test_quickstart(tmp_path: Path) -> None:
    notebook = execute("quickstart", tmp_path)
    html = outputs(notebook, "text/html")
    # The finished runs are static HTML: tool cards in <details>, progress text included.
    assert any("<details" in h and "writing index.html" in h for h in html)
    assert all("<script" not in h for h in html)
    text = "\n".join(outputs(notebook))
    assert "[success] write_file — writing index.html" in text
    assert "[success] subagent_create" in text
    assert "[('site_builder-1', 'completed')]" in text
    # The live views' saved state holds the same trace, for the inspector to reopen.
    saved = traces(notebook)
    cards = [c for t in saved for c in t["cards"].values()]
    assert any(c["progress"] == "writing index.html" for c in cards)
    trees = [t for t in saved if len(t["threads"]) == 2]
    assert trees, "the subagent run's view holds the parent and the child"
    child = next(th for th in trees[0]["threads"] if th["parent"])
    assert child["name"] == "site_builder-1"
    (written,) = trees[0]["files"][child["id"]]
    assert written["path"] == "/index.html"
    assert written["size"] > 0
    assert len(written["digest"]) == 64  # which content: a preview at a point shows that one


def test_tools_and_progress(tmp_path: Path) -> None:
    notebook = execute("tools_and_progress", tmp_path)
    text = "\n".join(outputs(notebook))
    assert "[success] count_words" in text
    assert text.count("[error]") == 3
    saved = traces(notebook)
    events = [
        (e["type"], e["data"]) for t in saved for c in t["cards"].values() for e in c["events"]
    ]
    assert ("counted", {"words": 5}) in events
    errors = [c["result"] for t in saved for c in t["cards"].values() if c["status"] == "error"]
    assert any("- text: Input should be a valid string" in e for e in errors)
    assert any(e.startswith("unknown tool 'nonexistent'") for e in errors)
    assert any(e.startswith("the arguments are not valid JSON") for e in errors)


def test_prompts_as_tools(tmp_path: Path) -> None:
    notebook = execute("prompts_as_tools", tmp_path)
    text = "\n".join(outputs(notebook))
    assert "[success] researcher" in text
    assert "  tool: 'notes about Is green tea good for you?'" in text


def test_subagents(tmp_path: Path) -> None:
    notebook = execute("subagents", tmp_path)
    text = "\n".join(outputs(notebook))
    assert "page_builder-1 completed ['/index.html']" in text
    assert "subagent page_builder-1" in text


def test_attachments(tmp_path: Path) -> None:
    notebook = execute("attachments", tmp_path)
    text = "\n".join(outputs(notebook))
    assert "['/attachments/summary.txt', '/notes/notes.txt']" in text
    assert "['/attachments/notes.txt', '/attachments/summary.txt']" in text
    assert "Tea notes: sencha, gyokuro, matcha, hoji" in text


def test_inspecting_past_threads(tmp_path: Path) -> None:
    notebook = execute("inspecting_past_threads", tmp_path)
    text = "\n".join(outputs(notebook))
    assert "started write_file - writing index.html" in text
    assert (tmp_path / "exported_thread.ipynb").exists()
    exported = nbformat.read(tmp_path / "exported_thread.ipynb", as_version=4)
    assert "writing index.html" in json.dumps(exported.cells)


def test_approvals(tmp_path: Path) -> None:
    notebook = execute("approvals", tmp_path)
    printed = "\n".join(outputs(notebook))
    assert "waiting call_" in printed  # the run stopped before the call
    assert "  delete_file(" in printed  # %threadlab pending listed it
    assert "thread idle ['deleted /tmp/scratch.txt']" in printed  # approved, edited arguments


def test_mcp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    npm_bin = NOTEBOOKS.parent / ".cache/npm/node_modules/.bin"
    if not (npm_bin / "mcp-server-everything").exists():
        message = "@modelcontextprotocol/server-everything: .ci/run installs it into .cache/npm"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    monkeypatch.setenv("PATH", f"{npm_bin}:{os.environ['PATH']}")  # as `make lab` does
    notebook = execute("mcp", tmp_path)
    printed = "\n".join(outputs(notebook))
    assert "HELLO FROM A CLIENT!" in printed
    assert "['shout', 'tiny_chart']" in printed
    assert '"mcpServers"' in printed
    assert "<service.token>" in printed  # the token itself is not kept in the notebook
    assert not re.search(r"Bearer [\w-]{20,}", json.dumps(notebook))
    assert "['text', 'image'] ['files', 'chart.png']" in printed  # a served tool's image
    assert outputs(notebook, "image/png")  # read back by the SDK's client and shown
    html = "".join(outputs(notebook, "text/html"))
    assert "Echo: " in html  # the server's echo, in the explorer's run
    assert "/mcp/everything/" in html  # its image, in the thread's files
    # Run headless, nobody is on screen to answer the server's form: declined, not an error.
    assert "User declined to provide the requested information" in html


def test_mcp_apps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    npm_bin = NOTEBOOKS.parent / ".cache/npm/node_modules/.bin"
    if not (npm_bin / "mcp-server-basic-vanillajs").exists():
        message = (
            "@modelcontextprotocol/server-basic-vanillajs: .ci/run installs it into .cache/npm"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    monkeypatch.setenv("PATH", f"{npm_bin}:{os.environ['PATH']}")  # as `make lab` does
    notebook = execute("mcp_apps", tmp_path)
    printed = "\n".join(outputs(notebook))
    assert "get-time returned" in printed  # the server's tool ran
    assert "roll {'resourceUri': 'ui://threadlab/roll'}" in printed
    assert "text/html;profile=mcp-app" in printed
    assert "the page above: True" in printed  # read back as written
    # The views keep each app's page once, named by the cards that show it.
    saved = traces(notebook)
    apps = [c["app"] for t in saved for c in t["cards"].values() if c.get("app")]
    assert {a["uri"] for a in apps} == {"ui://get-time/mcp-app.html", "ui://threadlab/roll"}
    assert all(a["page"] in t["apps"] for t in saved for c in t["cards"].values()
               if (a := c.get("app")))  # fmt: skip


def test_evaluate(tmp_path: Path) -> None:
    notebook = execute("evaluate", tmp_path)
    printed = "\n".join(outputs(notebook))
    assert "watchable pass rate 0.5" in printed  # milk is not in the pantry
    assert "hasty pass rate 0.0" in printed
    assert "they differ on tea" in printed
    assert "eval pantry: finder, 8/8 runs, 3 passed" in printed  # the table, as text
    html = "".join(outputs(notebook, "text/html"))
    assert "threadlab-eval" in html
    assert "threadlab-diff" in html


@pytest.mark.timeout(480)  # a local Ray starts in the kernel first: slow on a busy machine
def test_scale_out(tmp_path: Path) -> None:
    notebook = execute("scale_out", tmp_path)
    printed = "\n".join(outputs(notebook))
    assert "16 runs; this kernel ran none" in printed  # 4 cases x 2 models x 2 repeats
    assert "eval grid: asker, 16/16 runs" in printed
    for i in range(4):
        assert re.search(rf"helper-{i} completed \(offline model\)", printed), printed
    assert "heard 4 of 4 helpers" in printed
    # The lead's view holds each helper and its card, read from the store.
    tree = next(t for t in traces(notebook) if len(t["threads"]) == 5)
    helpers = {th["id"] for th in tree["threads"] if th["parent"]}
    assert {c["thread"] for c in tree["cards"].values() if c["name"] == "where"} == helpers


def test_reshaping(tmp_path: Path) -> None:
    notebook = execute("reshaping", tmp_path)
    printed = "\n".join(outputs(notebook))
    said = next(line for line in printed.splitlines() if line.startswith("the tool said"))
    assert said == said.lower()  # the bug
    assert " at call_" in printed  # %threadlab fork says which branch it made, and where
    fixed = next(line for line in printed.splitlines() if line.startswith("the fixed tool"))
    assert fixed.split(":", 1)[1] == fixed.split(":", 1)[1].upper()  # the fix, replayed
    # An empty replay cell: the recorded first message; the prompt's own model takes over.
    assert "replayed 1 model call from thr_" in printed
    assert ", 1 answered by the model" in printed
    html = "".join(outputs(notebook, "text/html"))
    assert "[replayed]" in html
    assert "1 model call replayed · 1 forwarded to the model" in html
    assert "threadlab-diff" in html
    assert re.search(r"first difference at step 3 of 5 \(message 3 of thr_\w+\)", html)
    assert "model (replayed)" in html


@pytest.mark.parametrize("name", sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb")))
def test_every_example_notebook_is_covered(name: str) -> None:
    assert f"def test_{name}(" in Path(__file__).read_text()


def test_run_code(tmp_path: Path) -> None:
    notebook = execute("run_code", tmp_path)
    printed = "".join(outputs(notebook))
    assert "run_javascript success 14 ['squares: [1,4,9]']" in printed
    assert "run_python success [3, 4, 5] ['longest: quick']" in printed
    html = "".join(outputs(notebook, "text/html"))
    # Each card shows the snippet's output and the sandbox's verdict.
    assert "code_log" in html
    assert "the code ran and returned a result" in html


def test_real_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The kernel inherits this environment: with no key, the notebook picks the offline model.
    for key in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OLLAMA_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    notebook = execute("real_models", tmp_path)
    printed = "".join(outputs(notebook))
    assert "'offline'" in printed
    assert "gpt: openai gpt-4.1-mini; key OPENAI_API_KEY NOT SET" in printed
    assert "local: openai llama3.2 at http://localhost:11434/v1; key OLLAMA_API_KEY NOT SET" in (
        printed
    )
    assert "model: offline" in printed
    html = "".join(outputs(notebook, "text/html"))
    assert "write_file" in html


def test_lesson_tool_calling(tmp_path: Path) -> None:
    notebook = execute("lesson_tool_calling", tmp_path)
    printed = "\n".join(outputs(notebook))
    assert "definitions of builder: 1 prompt, 1 function tool" in printed  # the graph, as text
    assert "paused before a model step: Continue or Stop in the view" in printed
    assert "paused: the model will be sent 4 messages and 1 tool schemas" in printed
    assert "the run completed" in printed
    builder, studio = [t for t in outputs(notebook, "text/markdown") if t.startswith("**1. ")]
    assert "**2. The run paused before a model step.**" in builder
    assert "](../docs/guides/reliability.md)" in builder  # each rule links to its guide
    assert "**3. A subagent.** While `subagent_create` ran" in studio
    assert "The subagent's report hands over `/attachments/index.html`" in studio
    # The exercise as shipped: the buggy tool fails every case; fixed, it passes them all.
    assert "eval words: counter, 3/3 runs, 0 passed" in printed
    assert "4 / 4 points" in printed  # graded on the path the studio took
    graded = next(s for s in widget_states(notebook) if s.get("view") == "eval")
    assert len(graded["rows"]) == 3
    assert not any(row["passed"] for row in graded["rows"])
    played = next(s for s in widget_states(notebook) if s.get("view") == "player")
    assert played["points"][0]["label"] == "user: Make a landing page about green tea."
    assert sum("explain" in extra for extra in played["told"].values()) >= 5  # it followed
    views: list[Any] = list(outputs(notebook, "application/vnd.threadlab.view+json"))
    saved = [o["state"] for o in views if isinstance(o, dict)]  # (printed text aside)
    kept = next(s for s in saved if s.get("view") == "player")  # what a reopened one plays
    assert kept["points"][0]["label"] == played["points"][0]["label"]
    assert sum("explain" in p for p in kept["points"]) >= 5
    graph = next(s for s in widget_states(notebook) if s.get("view") == "graph")
    assert [n["id"] for n in graph["graph"]["nodes"]] == ["prompt:builder", "tool:write_file"]


def test_the_lessons_exercise_passes_once_the_tool_is_fixed(tmp_path: Path) -> None:
    path = tmp_path / "fixed.ipynb"
    lesson = nbformat.read(NOTEBOOKS / "lesson_tool_calling.ipynb", as_version=4)
    (cell,) = [c for c in lesson.cells if "def word_count" in c.source]
    cell.source = cell.source.replace(
        "return len(text)  # the bug: this counts characters", "return len(text.split())"
    )
    nbformat.write(lesson, path)
    os.environ["XDG_CONFIG_HOME"] = str(tmp_path / "config")
    NotebookClient(
        lesson, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    assert "eval words: counter, 3/3 runs, 3 passed" in "\n".join(outputs(lesson))
