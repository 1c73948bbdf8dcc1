"""`state.run_code` from a tool: results, logs, reports and errors with secrets redacted, the
card events that show a snippet's output and verdict, and clear refusals."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import threadlab as tl
from threadlab.models import call, text
from threadlab.sandbox import Language, start_code_run
from threadlab.sandbox._bubblewrap import bubblewrap
from threadlab.sandbox._deno import check_deno
from threadlab.sandbox._jail import check_jail

from ..helpers import scripted_prompt, tool_messages
from .conftest import require_jail

pytestmark = pytest.mark.processes  # it starts the sandbox's Deno and Python runners

SECRET = "sk-sandbox-secret-4410"


def define_runner(registry: tl.Registry, language: Language, code: str) -> list[tl.CodeResult]:
    results: list[tl.CodeResult] = []

    async def run_snippet(state: tl.ThreadState, args: Any) -> dict[str, Any]:
        key = await state.env("API_KEY")
        run = state.run_code(
            code,
            language=language,
            globals={"KEY": key},
            imports={"host": {"double": lambda n: n * 2}},
        )
        result = await run
        results.append(result)
        return result.model_dump()

    tl.define_tool(
        "run_snippet",
        description="Run a snippet.",
        execute=run_snippet,
        variables=[tl.Variable("API_KEY", type="secret", required=True)],
        registry=registry,
    )
    scripted_prompt(registry, [call("run_snippet"), text("ok")], tools=["run_snippet"])
    return results


CODE = {
    "javascript": (
        "import { double } from 'host';\n"
        "export default async () => {\n"
        "  console.log('the key is', KEY);\n"
        "  report({ step: 1, of: 2 });\n"
        "  if (await double(21) !== 42) throw new Error('bridge broken');\n"
        "  throw new Error('failed with ' + KEY);\n"
        "};"
    ),
    "python": (
        "from host import double\n"
        "async def main():\n"
        "    print('the key is', KEY)\n"
        "    report({'step': 1, 'of': 2})\n"
        "    assert await double(21) == 42\n"
        "    raise RuntimeError('failed with ' + KEY)\n"
    ),
}


async def test_a_snippet_in_a_tool_reports_logs_and_errors_with_secrets_redacted(
    rt: tl.Runtime, registry: tl.Registry, language: Language
) -> None:
    results = define_runner(registry, language, CODE[language])
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    await thread.send("go")
    (result,) = results
    assert result.status == "error"
    assert result.error is not None
    assert result.error.message.endswith("failed with [secret:API_KEY]")
    assert result.error.location is not None
    assert result.logs == ["the key is [secret:API_KEY]"]
    assert result.reports == [{"step": 1, "of": 2}]
    cards = [e for e in thread.events if isinstance(e, tl.CustomEvent)]
    assert [e.event_type for e in cards] == ["code_log", "code_result"]
    assert cards[0].data == {"text": "the key is [secret:API_KEY]"}
    assert cards[1].data["status"] == "error"
    assert cards[1].data["verdict"] == "the code raised an error"
    assert all(e.tool_call_id is not None for e in cards)
    stored = "".join(repr(m) for m in thread.all_messages()) + repr(thread.events)
    assert SECRET not in stored
    assert "[secret:API_KEY]" in (tool_messages(thread)[0].content or "")


async def test_a_snippet_returns_its_result(rt: tl.Runtime, registry: tl.Registry) -> None:
    results = define_runner(
        registry,
        "typescript",
        "import { double } from 'host';\n"
        "const half = (n: number): number => n / 2;\n"
        "export default async (): Promise<number> => half(await double(42));",
    )
    thread = await rt.create_thread("p", secrets={"API_KEY": SECRET})
    await thread.send("go")
    assert [(r.status, r.result) for r in results] == [("success", 42)]
    verdict = [e for e in thread.events if isinstance(e, tl.CustomEvent)][-1]
    assert verdict.data["verdict"] == "the code ran and returned a result"


async def test_execute_names_a_function_and_its_arguments() -> None:
    run = start_code_run(
        "export const add = (a: number, b: number) => a + b;\nexport default 0;",
        execute={"fn": "add", "args": [2, 3]},
    )
    assert (await run).result == 5


async def test_a_result_that_is_not_json_is_an_error() -> None:
    result = await start_code_run("export default () => 10n;", language="javascript")
    assert result.status == "error"
    assert result.error is not None
    assert "JSON" in result.error.message


async def test_a_syntax_error_says_so() -> None:
    require_jail()
    result = await start_code_run("def main(:\n    pass", language="python")
    assert result.status == "error"
    assert result.error is not None
    assert result.error.name == "SyntaxError"
    assert result.error.location is not None
    assert result.error.location.startswith("line 1")


async def test_reports_are_live_while_the_code_runs() -> None:
    run = start_code_run(
        "export default async () => { report('first'); await new Promise(() => {}); };",
        timeout=20,
    )
    for _ in range(200):
        if run.reports:
            break
        await asyncio.sleep(0.05)
    assert run.reports == ["first"]
    assert not run.done
    run.terminate()
    result = await run
    assert result.status == "terminated"
    assert result.reports == ["first"]


async def test_each_run_is_fresh(language: Language) -> None:
    code = {
        "javascript": "globalThis.count = (globalThis.count ?? 0) + 1;\nexport default count;",
        "python": "import builtins\nbuiltins.count = getattr(builtins, 'count', 0) + 1\nmain = builtins.count",
    }[language]
    results = [await start_code_run(code, language=language) for _ in range(2)]
    assert [r.result for r in results] == [1, 1]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"language": "ruby"}, "language 'ruby'"),
        ({"globals": {"x": object()}}, "globals must be JSON"),
        ({"imports": {"host": {"not an identifier": print}}}, "not an identifier"),
        ({"imports": {"host": {"f": 3}}}, "not callable"),
        ({"timeout": 0}, "must be positive"),
    ],
)
async def test_unusable_options_raise_a_clear_error(options: dict[str, Any], message: str) -> None:
    with pytest.raises(tl.CodeOptionError, match=message):
        start_code_run("export default 1;", **options)


@pytest.mark.parametrize("language", ["python", "javascript"])
async def test_without_bubblewrap_code_is_refused_never_run_unsandboxed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, language: Language
) -> None:
    checks = (bubblewrap, check_jail, check_deno)
    monkeypatch.setenv("PATH", str(tmp_path))  # a PATH with no bwrap on it
    for check in checks:
        check.cache_clear()
    try:
        with pytest.raises(tl.SandboxUnavailableError, match="apt-get install bubblewrap"):
            start_code_run("main = 1", language=language)
    finally:
        monkeypatch.undo()
        for check in checks:
            check.cache_clear()


async def test_a_sync_tool_runs_code_from_its_thread_pool(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    seen: list[Any] = []

    def compute(state: tl.ThreadState, args: Any) -> Any:
        seen.append(state.sync.run_code("export default 2 ** 10;").result)
        pending = state.run_code("export default new Promise(() => {});", timeout=30)
        pending.terminate("not needed")
        seen.append(pending.wait(10).status)
        return seen

    tl.define_tool("compute", description="Compute.", execute=compute, registry=registry)
    scripted_prompt(registry, [call("compute"), text("ok")], tools=["compute"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    assert seen == [1024, "terminated"]
    (result,) = tool_messages(thread)
    assert result.tool_status == "success"


async def test_waiting_on_the_event_loop_is_refused() -> None:
    run = start_code_run("export default 1;")
    with pytest.raises(tl.CallContextError, match="await the run instead"):
        run.wait()
    assert (await run).result == 1
