"""The magics, driven through a real IPython InteractiveShell."""

from __future__ import annotations

import atexit
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
from IPython.core.error import UsageError
from IPython.core.interactiveshell import InteractiveShell
from IPython.display import DisplayHandle

import threadlab as tl
from threadlab.kernel_ext._cell_transform import thread_cells_to_await
from threadlab.widgets._views import VIEW_MIME

from ..widgets.fake_comm import install, updates

WRITE_FILE = '''%%tool --progress description --variable API_KEY:secret --variable REGION:scoped
async def write_file(state, description: str, path: str, content: str) -> str:
    """Write a file.

    Args:
        description: e.g. "writing index.html"
    """
    await state.write_file(path, content)
    return "ok"
'''


@pytest.fixture
def shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    monkeypatch.chdir(tmp_path)
    # A fresh default registry: magics define into the process-wide one, like a kernel.
    registry = tl.Registry()
    monkeypatch.setattr("threadlab.definitions._registry._DEFAULT", registry)
    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "threadlab")
    yield ip
    ip.run_line_magic("unload_ext", "threadlab")
    InteractiveShell.clear_instance()
    # Each shell registers an exit handler that runs a full garbage collection: one per test
    # added half a minute to the end of the run.
    atexit.unregister(ip.atexit_operations)


def run(shell: InteractiveShell, source: str) -> Any:
    result = shell.run_cell(source)
    result.raise_error()
    return result.result


def magics(shell: InteractiveShell) -> Any:
    return shell.magics_manager.registry["ThreadlabMagics"]


def test_tool_defines_a_tool_with_progress_and_variables(shell: InteractiveShell) -> None:
    shown = run(shell, WRITE_FILE)
    lines = repr(shown).splitlines()
    assert lines[0].startswith("tool write_file: ")
    # What the model sees: the progress argument first, and marked.
    assert [line.split()[0] for line in lines[1:]] == ["description", "path", "content"]
    assert "progress" in lines[1]
    html = shown._repr_mimebundle_()["text/html"]
    assert "<code>description</code>" in html
    assert "progress" in html
    tool = tl.default_registry().tool("write_file")
    assert tool is not None
    assert tool.progress_argument == "description"
    assert [(v.name, v.type, v.scoped) for v in tool.variables] == [
        ("API_KEY", "secret", False),
        ("REGION", "text", True),
    ]


def test_rerunning_a_tool_cell_replaces_the_definition(shell: InteractiveShell) -> None:
    run(shell, WRITE_FILE)
    first = tl.default_registry().tool("write_file")
    run(shell, WRITE_FILE.replace('return "ok"', 'return "v2"'))
    second = tl.default_registry().tool("write_file")
    assert first is not second
    assert second is not None


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("%%tool\nx = 1\n", "exactly one function (found 0)"),
        ("%%tool\ndef a(s): pass\ndef b(s): pass\n", "exactly one function (found 2)"),
        # Line 3 as the editor counts it (the %%tool line is line 1).
        ("%%tool\nimport os\ndef broken(:\n", "not valid Python, line 3:"),
        ("%%tool --variable KEY:bogus\ndef a(s): pass\n", "NAME[:secret][:required][:scoped]"),
        ("%%tool --progress nope\ndef a(s, x: str): pass\n", "progress_argument 'nope'"),
        ("%%tool --name subagents\ndef a(s): pass\n", "reserved"),
    ],
)
def test_bad_tool_cells_raise_usage_errors(
    shell: InteractiveShell, cell: str, message: str
) -> None:
    result = shell.run_cell(cell)
    assert isinstance(result.error_in_exec, UsageError)
    assert message in str(result.error_in_exec)


def test_prompt_and_agent_cells(shell: InteractiveShell) -> None:
    run(shell, WRITE_FILE)
    shown = run(shell, "%%prompt builder --tools write_file --include-chat\nBuild. {{env:REGION}}")
    assert repr(shown) == "prompt builder (model offline; write_file)"
    prompt = tl.default_registry().prompt("builder")
    assert prompt is not None
    assert prompt.include_chat
    assert prompt.prompt == (tl.Text("Build. "), tl.Env("REGION"))
    run(shell, "%%prompt critic\nCritique.")
    shown = run(
        shell,
        """%%agent duo --expose-as-tool --description "Builds."
type = "dual_ai"
max_session_turns = 6
[side_a]
prompt = "builder"
session_stop = "write_file"
[[side_a.subagents]]
name = "helper"
blocking = false
[side_b]
prompt = "critic"
""",
    )
    assert repr(shown) == "agent duo (dual_ai, side A builder, side B critic)"
    agent = tl.default_registry().agent("duo")
    assert agent is not None
    assert agent.expose_as_tool
    assert agent.tool_description == "Builds."
    assert agent.side_a.subagents == (tl.Subagent("helper", blocking=False),)


def test_default_model_is_configurable(shell: InteractiveShell) -> None:
    run(shell, '%config ThreadlabMagics.default_model = "mine"')
    run(shell, "%%prompt p\nx")
    prompt = tl.default_registry().prompt("p")
    assert prompt is not None
    assert prompt.model == "mine"


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ('%%agent a\nside_a = "p"\n[broken', "not valid TOML"),
        ("%%agent a\ntype = 'dual_ai'\n", "needs a [side_a]"),
        ("%%agent a\nside_a = 'p'\nbogus = 1\n", "unknown keys bogus; the keys are approval, env,"),
        (
            "%%agent a\n[side_a]\nprompt = 'p'\nmax_step = 3\n",
            "side_a has unknown keys max_step; the keys of a side are prompt, stop_on_response,",
        ),
        (
            "%%agent a\n[side_a]\nprompt = 'p'\nsubagents = [{name = 'w', block = false}]\n",
            "side_a.subagents[0] has unknown keys block; the keys of a subagent are name,",
        ),
        ("%%agent a\n[side_a]\nmax_steps = 3\n", "side_a needs a prompt"),
    ],
)
def test_bad_agent_cells(shell: InteractiveShell, cell: str, message: str) -> None:
    result = shell.run_cell(cell)
    assert isinstance(result.error_in_exec, UsageError)
    assert message in str(result.error_in_exec)


def test_thread_runs_inline_and_continues_the_same_thread(shell: InteractiveShell) -> None:
    run(shell, WRITE_FILE)
    run(shell, "%%prompt builder --tools write_file\nBuild.")
    run(shell, "%%thread builder --env REGION=eu\nMake a page.")
    memory = magics(shell).memory
    first = memory.last_thread["builder"]
    run(shell, "%%thread builder\nAnother one.")
    assert memory.last_thread["builder"] == first
    thread = memory.runtime.thread(first)
    assert [m.content for m in thread.messages if m.role == "user"] == [
        "Make a page.",
        "Another one.",
    ]
    run(shell, "%%thread builder --new\nFresh.")
    assert memory.last_thread["builder"] != first


def test_thread_usage_errors(shell: InteractiveShell) -> None:
    run(shell, "%%prompt builder\nBuild.")
    result = shell.run_cell("%%thread nobody\nhi")
    assert isinstance(result.error_in_exec, UsageError)
    assert str(result.error_in_exec) == (
        "%%thread: unknown target 'nobody': it is neither a defined agent nor a prompt"
        " (agents: none; prompts: builder)"
    )
    result = shell.run_cell("%%thread builder --id x --new\nhi")
    assert "use --id or --new, not both" in str(result.error_in_exec)
    result = shell.run_cell("%%thread builder\n   ")
    assert "the cell is the user message, and it is empty" in str(result.error_in_exec)
    result = shell.run_cell("%%thread builder --id thr_missing\nhi")
    assert "no thread 'thr_missing'" in str(result.error_in_exec)


def test_in_a_kernel_the_player_goes_out_first_and_its_narration_follows_in_the_cell(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(shell, WRITE_FILE)
    run(shell, "%%prompt builder --tools write_file\nBuild.")
    run(shell, "%%thread builder\nMake a page.")
    thread_id = magics(shell).memory.last_thread["builder"]
    sent = install(monkeypatch)
    monkeypatch.setattr(shell, "kernel", object(), raising=False)  # a front end will draw it
    outputs: list[tuple[str, dict[str, Any]]] = []

    def shown(data: dict[str, Any], **_: Any) -> DisplayHandle:
        outputs.append(("display", data))
        return DisplayHandle("view")

    monkeypatch.setattr("threadlab.widgets._views._display", shown)
    monkeypatch.setattr(
        "threadlab.widgets._views._update", lambda data, **_: outputs.append(("update", data))
    )
    played = run(shell, f"%threadlab play {thread_id}\n")
    # Opened untold: the history's points without narration, and an output with no history.
    opens = [data["state"] for _, kind, data in sent if kind == "comm_open"]
    (opened,) = [state for state in opens if state.get("view") == "player"]
    points = json.loads(opened["points"])
    assert points
    assert not any("explain" in p or "offered" in p for p in points)
    assert outputs[0][0] == "display"
    assert outputs[0][1][VIEW_MIME]["state"] == {
        "view": "player",
        "key": played.key,
        "pending": True,
    }
    # Before the cell ended: what the narration adds, by place (the points are not sent
    # again), and the output the notebook keeps, whole.
    (told,) = [s["told"] for _, s in updates(sent) if "told" in s]
    told_keys = {"explain", "offered", "answer", "env"}  # env: the thread's variables then
    assert all(set(extra) <= told_keys for extra in told.values())
    assert not [s for _, s in updates(sent) if "points" in s]
    assert [kind for kind, _ in outputs] == ["display", "update"]
    kept = outputs[1][1][VIEW_MIME]["state"]
    assert kept["points"] == played.points
    assert [p["explain"] for p in kept["points"] if "explain" in p] == [
        extra["explain"] for _, extra in sorted(told.items(), key=lambda i: int(i[0]))
        if "explain" in extra
    ]  # fmt: skip
    assert not played.narrating


def test_missing_variables_are_a_usage_error_when_the_kernel_cannot_ask(
    shell: InteractiveShell,
) -> None:
    run(shell, WRITE_FILE.replace("API_KEY:secret", "API_KEY:secret:required"))
    run(shell, "%%prompt builder --tools write_file\nBuild.")
    result = shell.run_cell("%%thread builder\nhi")
    assert isinstance(result.error_in_exec, UsageError)
    assert "API_KEY (declared by tool 'write_file')" in str(result.error_in_exec)
    assert "%threadlab secret NAME" in str(result.error_in_exec)


def test_threadlab_line_magic(shell: InteractiveShell, tmp_path: Path) -> None:
    run(shell, WRITE_FILE)
    run(shell, "%%prompt builder --tools write_file\nBuild.")
    run(shell, "%threadlab set REGION=eu-west")
    assert magics(shell).memory.env == {"REGION": "eu-west"}
    run(shell, "%%thread builder\nMake a page.")
    thread_id = magics(shell).memory.last_thread["builder"]
    listing = run(shell, "%threadlab threads")
    assert thread_id in repr(listing)
    opened = run(shell, f"%threadlab open {thread_id}")
    assert "[success] write_file — writing index.html" in repr(opened)
    # A branch opened shows the thread it came from, as the view that made it did.
    made = magics(shell).memory.runtime.thread(thread_id)
    shell.user_ns["made"] = made
    branch = run(shell, f"await made.fork('{made.messages[0].id}')")
    reopened = run(shell, f"%threadlab open {branch.id}")
    nodes = {t["id"]: t for t in reopened.trace["threads"]}
    assert nodes[thread_id]["relation"] == "origin"
    assert nodes[branch.id]["parent"] == thread_id
    out = tmp_path / "exported.ipynb"
    run(shell, f"%threadlab export {thread_id} {out}")
    exported = nbformat.read(out, as_version=4)
    assert "writing index.html" in "".join(c.source for c in exported.cells)
    assert "write_file" in repr(run(shell, "%threadlab tools"))
    assert "offline" in repr(run(shell, "%threadlab models"))
    drawn = run(shell, "%threadlab graph builder")
    assert repr(drawn).splitlines()[:3] == [
        "definitions of builder: 1 prompt, 1 function tool",
        "prompt builder (prompt · model offline)",
        "  tool -> function tool write_file",
    ]
    assert [n["id"] for n in drawn.graph["nodes"]] == ["prompt:builder", "tool:write_file"]
    played = run(shell, f"%threadlab play {thread_id}")
    assert repr(played).startswith(f"player of {thread_id}: ")
    assert played.points[0]["label"] == "user: Make a page."
    mistyped = shell.run_cell(f"%threadlab play {thread_id[:-1]}x")
    assert f"did you mean {thread_id}?" in str(mistyped.error_in_exec)
    for line, message in [
        ("graph buildr", "no agent, prompt or tool is named 'buildr'; did you mean 'builder'?"),
        ("graph a b", "usage: %threadlab graph [AGENT | PROMPT | TOOL]"),
        ("play", "usage: %threadlab play THREAD_ID"),
        ("play thr_nope", "no thread 'thr_nope'"),
        ("", "usage: %threadlab"),
        ("bogus", "unknown command 'bogus'"),
        ("open", "usage: %threadlab open THREAD_ID"),
        ("open thr_nope", "no thread 'thr_nope'"),
        ("set NOEQUALS", "use %threadlab set NAME=VALUE"),
        ("import missing.ipynb", "missing.ipynb does not exist"),
    ]:
        result = shell.run_cell(f"%threadlab {line}")
        assert isinstance(result.error_in_exec, UsageError), line
        assert message in str(result.error_in_exec), line


def test_import_runs_the_definition_cells_of_another_notebook(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    library = nbformat.v4.new_notebook()
    library.cells = [
        nbformat.v4.new_markdown_cell("# tools"),
        nbformat.v4.new_code_cell(WRITE_FILE),
        nbformat.v4.new_code_cell("raise RuntimeError('not a definition cell')"),
        nbformat.v4.new_code_cell("%%prompt imported\nHello."),
    ]
    path = tmp_path / "library.ipynb"
    nbformat.write(library, path)
    shown = run(shell, f"%threadlab import {path}")
    assert repr(shown) == f"imported 2 definition cells from {path}"
    assert tl.default_registry().prompt("imported") is not None


def test_no_ipython_builtin_is_shadowed(shell: InteractiveShell) -> None:
    names = set(magics(shell).magics["line"]) | set(magics(shell).magics["cell"])
    assert names == {"tool", "prompt", "agent", "mcp", "eval", "thread", "threadlab"}
    builtin = InteractiveShell.instance().magics_manager.magics
    run(shell, "%env THREADLAB_TEST=1")
    assert "env" in builtin["line"]


def test_help_shows_the_usage_line(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    shell.run_cell("%%tool?")
    out = capsys.readouterr().out
    assert "--progress PROGRESS" in out
    assert "--variable VARIABLE" in out


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (
            ["%%thread a --new\n", "hi\n"],
            [
                "await get_ipython().magics_manager.registry"
                "['ThreadlabMagics'].thread_cell('a --new', 'hi\\n')\n"
            ],
        ),
        (["%%thread?\n"], ["%%thread?\n"]),
        (["%%threadish\n"], ["%%threadish\n"]),
        (["x = 1\n"], ["x = 1\n"]),
    ],
)
def test_the_cell_transform(lines: list[str], expected: list[str]) -> None:
    assert thread_cells_to_await(lines) == expected


def test_config_store_after_loading_takes_effect_for_the_next_thread(
    shell: InteractiveShell, tmp_path: Path
) -> None:
    run(shell, WRITE_FILE)
    run(shell, "%%prompt builder --tools write_file\nBuild.")
    run(shell, "%%thread builder\nFirst.")
    run(shell, "%config ThreadlabMagics.store = 'team-store'")
    run(shell, "%%thread builder --new\nSecond.")
    memory = magics(shell).memory
    assert memory.store == "team-store"
    assert (tmp_path / "team-store" / "threads.sqlite3").exists()
    (moved,) = memory.runtime.threads()
    assert [m.content for m in moved.messages if m.role == "user"] == ["Second."]


def test_continuing_a_thread_whose_definitions_are_gone_says_what_to_do(
    shell: InteractiveShell,
) -> None:
    run(shell, WRITE_FILE)
    run(shell, "%%prompt builder --tools write_file\nBuild.")
    run(shell, "%%thread builder\nFirst.")
    thread_id = magics(shell).memory.last_thread["builder"]
    tl.default_registry().remove("builder")  # as after a kernel restart
    result = shell.run_cell(f"%%thread builder --id {thread_id}\nAgain.")
    assert isinstance(result.error_in_exec, UsageError)
    message = str(result.error_in_exec)
    assert f"thread {thread_id} cannot continue in this kernel" in message
    assert "unknown target 'builder'" in message
    assert "%threadlab import NOTEBOOK.ipynb" in message


def test_definition_cells_check_what_they_can_at_once(
    shell: InteractiveShell, capsys: pytest.CaptureFixture[str]
) -> None:
    run(shell, WRITE_FILE)
    run(shell, "%%prompt builder --tools write_flie\nBuild.")
    warned = capsys.readouterr().err
    assert "prompt 'builder' refers to tool 'write_flie', which is not defined yet" in warned
    assert "did you mean 'write_file'?" in warned
    run(shell, '%%mcp files\ncommand = "mcp-files"\ntools = ["read"]\nprefix = "fs"')
    run(shell, "%%prompt reader --tools mcp:files,fs_read\nRead.")
    assert capsys.readouterr().err == ""  # a defined server's tools: listed on first use
    run(shell, "%%prompt lost --tools mcp:fils\nRead.")
    assert "refers to MCP server 'fils', which is not defined yet; did you mean 'files'?" in (
        capsys.readouterr().err
    )
    run(shell, "%%agent studio\n[side_a]\nprompt = 'buidler'")
    assert "refers to prompt 'buidler', which is not defined yet; did you mean 'builder'?" in (
        capsys.readouterr().err
    )
    result = shell.run_cell("%%tool\ndef add(a: int, b: int) -> int:\n    return a + b\n")
    assert isinstance(result.error_in_exec, UsageError)
    assert "the first parameter receives the thread state" in str(result.error_in_exec)
    assert "def add(state, a: int, b: int)" in str(result.error_in_exec)
    result = shell.run_cell("%%tool\ndef ok(state):\n    return (1,\n")
    assert isinstance(result.error_in_exec, UsageError)
    message = str(result.error_in_exec)
    assert "line 3:" in message  # the editor's line: the %%tool line is line 1
    assert "return (1," in message
    assert message.rstrip().endswith("^")


def test_the_thread_list_narrows_to_the_notebook_that_made_them(
    shell: InteractiveShell, monkeypatch: pytest.MonkeyPatch
) -> None:
    run(shell, "%%prompt p\nx")
    monkeypatch.setenv("JPY_SESSION_NAME", "notebooks/a.ipynb")  # as the Jupyter server sets it
    run(shell, "%%thread p --new\none")
    monkeypatch.setenv("JPY_SESSION_NAME", "b.ipynb")
    run(shell, "%%thread p --new\ntwo")
    monkeypatch.delenv("JPY_SESSION_NAME")
    run(shell, "%%thread p --new\nthree")

    everything = run(shell, "%threadlab threads")
    assert [r["origin"] for r in everything.rows] == [None, "b.ipynb", "notebooks/a.ipynb"]
    assert "<td>notebooks/a.ipynb</td>" in everything._repr_mimebundle_()[0]["text/html"]
    mine = run(shell, "%threadlab threads --notebook notebooks/a.ipynb")
    assert [r["origin"] for r in mine.rows] == ["notebooks/a.ipynb"]
    assert repr(mine).startswith("1 thread made in notebooks/a.ipynb")
    monkeypatch.setenv("JPY_SESSION_NAME", "b.ipynb")
    assert len(run(shell, "%threadlab threads --here").rows) == 1
    # In a notebook the list is that notebook's by default; --all lists every thread.
    assert [r["origin"] for r in run(shell, "%threadlab threads").rows] == ["b.ipynb"]
    assert len(run(shell, "%threadlab threads --all").rows) == 3
    thread = magics(shell).memory.runtime.thread(mine.rows[0]["id"])
    assert thread.origin == "notebooks/a.ipynb"
    monkeypatch.delenv("JPY_SESSION_NAME")
    result = shell.run_cell("%threadlab threads --here")
    assert isinstance(result.error_in_exec, UsageError)
    assert "does not know its notebook" in str(result.error_in_exec)


def test_a_notebook_on_a_postgresql_store(shell: InteractiveShell, postgres_url: str) -> None:
    run(shell, f'%config ThreadlabMagics.store = "{postgres_url}"')
    run(shell, "%%prompt p\nx")
    run(shell, "%%thread p\nhello from a notebook")
    runtime = magics(shell).memory.runtime
    assert isinstance(runtime.store, tl.PostgresStore)
    (thread,) = tl.Runtime(store=postgres_url).threads()  # another runtime sees it
    assert thread.messages[0].content == "hello from a notebook"


def test_a_notebooks_runs_go_through_its_tracer_provider(shell: InteractiveShell) -> None:
    run(
        shell,
        "from opentelemetry.sdk.trace import TracerProvider\n"
        "from opentelemetry.sdk.trace.export import BatchSpanProcessor\n"
        "from opentelemetry.sdk.trace.export.in_memory_span_exporter import"
        " InMemorySpanExporter\n"
        "exporter = InMemorySpanExporter()\n"
        "provider = TracerProvider()\n"
        # A batch that would wait ten minutes: the spans are there because each run flushes.
        "provider.add_span_processor(BatchSpanProcessor(exporter, schedule_delay_millis=600000))",
    )
    run(shell, "%threadlab trace provider")
    run(shell, WRITE_FILE)
    run(shell, "%%prompt builder --tools write_file\nBuild.")
    run(shell, "%%thread builder\nMake a page.")
    spans = shell.user_ns["exporter"].get_finished_spans()
    thread_id = magics(shell).memory.last_thread["builder"]
    (agent,) = [s for s in spans if s.name == "invoke_agent builder"]
    assert agent.attributes["gen_ai.conversation.id"] == thread_id
    assert any(s.name == "execute_tool write_file" for s in spans)

    run(shell, "%threadlab trace off")
    run(shell, "%%thread builder\nAnother.")
    assert len(shell.user_ns["exporter"].get_finished_spans()) == len(spans)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("%threadlab trace", "usage: %threadlab trace PROVIDER"),
        ("%threadlab trace nowhere", "no name 'nowhere' in this notebook"),
        ("%threadlab trace text", "text is a str, not an OpenTelemetry TracerProvider"),
    ],
)
def test_trace_usage_errors(shell: InteractiveShell, line: str, message: str) -> None:
    run(shell, "text = 'hello'")
    with pytest.raises(UsageError, match=message):
        shell.run_line_magic("threadlab", line.removeprefix("%threadlab "))


def test_a_tool_cells_traceback_names_the_cell_and_the_editors_line(
    shell: InteractiveShell,
) -> None:
    counted = shell.execution_count  # the %%tool cell's number
    # Run as a kernel runs a cell (in the history): IPython counts the next cell meanwhile.
    tool = '%%tool\ndef lookup(state, key: str) -> str:\n    """Look up."""\n'
    tool += "    table = {}\n    return table[key]\n"
    shell.run_cell(tool, store_history=True).raise_error()
    assert shell.execution_count == counted + 1
    run(shell, "import threadlab as tl\nfrom threadlab.models import ScriptedModel, call, text")
    run(shell, "tl.define_prompt('p', prompt='x', tools=['lookup'], "
               "model=ScriptedModel([call('lookup', {'key': 'k'}), text('ok')]))")  # fmt: skip
    run(shell, "%%thread p\ngo")
    thread = magics(shell).memory.runtime.thread(magics(shell).memory.last_thread["p"])
    (finished,) = [e for e in thread.events if isinstance(e, tl.ToolCallFinishedEvent)]
    trace = finished.traceback or ""
    assert f"  Cell In[{counted}], line 5, in lookup\n    return table[key]" in trace
    assert trace.endswith("KeyError: 'k'")


def test_a_misspelt_magic_names_the_one_it_was_close_to(shell: InteractiveShell) -> None:
    with pytest.raises(UsageError, match=r"%%toool is not a magic: did you mean %%tool\?"):
        run(shell, "%%toool\ndef f(state):\n    return 1\n")
    with pytest.raises(UsageError, match=r"%%promt is not a magic: did you mean %%prompt\?"):
        run(shell, "%%promt p\nBe brief.")
    with pytest.raises(UsageError, match=r"%threadlb is not a magic: did you mean %threadlab\?"):
        run(shell, "%threadlb threads")
    # IPython's own magics, and names close to none of threadlab's, are left alone.
    assert run(shell, "%%capture out\nprint('hi')") is None
    with pytest.raises(UsageError, match="Cell magic `%%nothing_like_it` not found"):
        run(shell, "%%nothing_like_it\nx")
