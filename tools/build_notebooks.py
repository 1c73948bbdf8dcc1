"""Write the example notebooks in notebooks/, without outputs.

Run: python tools/build_notebooks.py
"""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parents[1] / "notebooks"

SETUP = """%load_ext threadlab
import threadlab as tl

# An offline model that streams slowly enough to watch (no key, no network).
tl.define_model("watchable", provider="offline", model="offline", options={"delay": 0.05})
%config ThreadlabMagics.default_model = "watchable\""""

WRITE_FILE = '''%%tool --progress description
async def write_file(state, description: str, path: str, content: str) -> str:
    """Write a file into this thread's filesystem.

    Args:
        description: what this call does, e.g. "writing index.html"
        path: an absolute path, like /index.html
        content: the whole file
    """
    await state.write_file(path, content)
    return f"wrote {len(content)} characters to {path}"'''

HAND_IN = '''%%tool
async def hand_in(state, summary: str) -> tl.ToolResult:
    """Hand in the pages you wrote and end the session."""
    pages = tuple(f.path for f in await state.list_files())
    return tl.ToolResult(result=summary, attachments=pages)'''

RUN_JAVASCRIPT = '''%%tool --progress description
from typing import Annotated

from pydantic import Field

SQUARES = """const squares = [1, 2, 3].map((n) => n * n);
console.log("squares:", squares);
export default squares.reduce((a, b) => a + b, 0);"""


async def run_javascript(
    state, description: str, code: Annotated[str, Field(examples=[SQUARES])]
) -> dict:
    """Run JavaScript in a sandbox (Deno, no permissions); the default export is the result.

    Args:
        description: what the code does, e.g. "summing squares"
        code: an ES module that does `export default <result>`
    """
    result = await state.run_code(code, language="javascript", timeout=10, memory_mb=128)
    return result.model_dump(include={"status", "result", "logs", "error"})'''

RUN_PYTHON = '''%%tool --progress description
from typing import Annotated

from pydantic import Field

LENGTHS = """def main():
    words = "the quick brown fox jumps over the lazy dog".split()
    print("longest:", max(words, key=len))
    return sorted({len(word) for word in words})"""


async def run_python(
    state, description: str, code: Annotated[str, Field(examples=[LENGTHS])]
) -> dict:
    """Run Python in a sandbox (a bubblewrap jail); what `main()` returns is the result.

    Args:
        description: what the code does, e.g. "measuring words"
        code: Python source that defines `main()`
    """
    result = await state.run_code(code, language="python", timeout=10, memory_mb=128)
    return result.model_dump(include={"status", "result", "logs", "error"})'''

SHOUT = '''%%tool
def shout(state, text: str) -> str:
    """Say a text loudly."""
    {body}'''

STEP_ON = """rt = tl.Runtime()  # every persisted thread
thread = next(t for t in rt.threads() if t.agent == "builder")
run = await thread.resume(step="model")  # sends the paused step, pauses before the next
while run.status == "waiting":
    sent = run.next_request
    print("paused: the model will be sent", len(sent.messages), "messages and",
          len(sent.tools), "tool schemas")
    run = await thread.resume(step="model")
print("the run", run.status)"""

SITE_BUILDER = '''%%agent site_builder --description "Builds a page and hands it in."
type = "dual_ai"
max_session_turns = 4
[side_a]
prompt = "builder"
session_stop = "hand_in"
[side_b]
prompt = "critic"'''

STUDIO = """%%agent studio
[side_a]
prompt = "lead"
[[side_a.subagents]]
name = "site_builder\""""

WORD_COUNT = '''%%tool
def word_count(state, text: str) -> int:
    """Count the words of a text."""
    return len(text)  # the bug: this counts characters'''

DICE_TOOL = """PAGE = \"\"\"<!doctype html>
<p>rolled <b id="face">…</b></p>
<script>
let next = 1; const asked = new Map();
function request(method, params) {  // JSON-RPC to the host, over postMessage
  const id = next++;
  parent.postMessage({ jsonrpc: "2.0", id, method, params }, "*");
  return new Promise((done) => asked.set(id, done));
}
addEventListener("message", ({ data }) => {
  if (asked.has(data.id)) { asked.get(data.id)(data); asked.delete(data.id); return; }
  if (data.method === "ui/notifications/tool-result")
    document.getElementById("face").textContent = data.params.content[0].text;
});
request("ui/initialize", { appInfo: { name: "dice", version: "1" }, appCapabilities: {},
                           protocolVersion: "2026-01-26" })
  .then(() => {
    parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized" }, "*");
    const height = document.documentElement.scrollHeight;  // the frame fits the page
    parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/size-changed",
                         params: { height } }, "*");
  });
</script>\"\"\"


@tl.tool(ui=PAGE)
def roll(state, sides: int = 6) -> int:
    \"\"\"Roll a die.

    Args:
        sides: how many faces it has
    \"\"\"
    import random

    return random.randint(1, sides)"""

SERVED_APP_READ_BACK = """import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

service = await tl.mcp.serve(tools=["roll"])
async with (
    httpx2.AsyncClient(headers=service.headers) as http,
    Client(streamable_http_client(service.url, http_client=http)) as client,
):
    (listed,) = (await client.list_tools()).tools
    print(listed.name, listed.meta["ui"])
    (page,) = (await client.read_resource(listed.meta["ui"]["resourceUri"])).contents
    print(page.mime_type, f"{len(page.text)} characters, the page above:", page.text == PAGE)
await service.close()"""

NOTEBOOKS: dict[str, list[tuple[str, str]]] = {
    "quickstart": [
        (
            "md",
            "# threadlab quickstart\n\nDefine a tool and a prompt in cells, run a thread inline,"
            " and watch the tool card show what the call is doing while the model is still"
            " streaming its arguments. Everything here runs on the offline model: no key.",
        ),
        ("code", SETUP),
        (
            "md",
            "A tool is one function: type hints give the schema, the docstring the"
            " descriptions. `--progress description` makes `description` the progress"
            " argument: the card shows it the moment it has streamed.",
        ),
        ("code", WRITE_FILE),
        (
            "code",
            "%%prompt builder --tools write_file\nYou build small web pages with the tools"
            " you have.",
        ),
        ("code", "%%thread builder\nMake a landing page about green tea."),
        (
            "md",
            "## A subagent\n\nA `dual_ai` agent runs in its own thread; the lead creates it"
            " with the runtime's `subagent_create` tool, and the files it hands in are copied"
            " into the lead's filesystem.",
        ),
        ("code", HAND_IN),
        ("code", "%%prompt critic\nYou review pages and say what to improve."),
        (
            "code",
            '''%%agent site_builder --expose-as-tool --description "Builds a page and hands it in."
type = "dual_ai"
max_session_turns = 4
[side_a]
prompt = "builder"
session_stop = "hand_in"
[side_b]
prompt = "critic"''',
        ),
        ("code", "%%prompt lead\nYou delegate page building to your subagent."),
        (
            "code",
            """%%agent studio
[side_a]
prompt = "lead"
[[side_a.subagents]]
name = "site_builder"
blocking = true""",
        ),
        ("code", "%%thread studio\nWe need a page about oolong."),
        (
            "md",
            "## Reopen it later\n\nThreads persist in `.threadlab/`. After a kernel restart,"
            " `%threadlab threads` lists this notebook's (`--all`: every one) and"
            " `%threadlab open ID` shows one again.",
        ),
        ("code", "%threadlab threads"),
        (
            "code",
            """rt = tl.Runtime()  # a fresh Runtime sees every persisted thread
studio = next(t for t in rt.threads() if t.agent == "studio")
print([m.role for m in studio.messages])
print([(c.name, c.status) for c in studio.children])""",
        ),
        (
            "md",
            "To use a real model (OpenAI, Anthropic, or an OpenAI-compatible server such as"
            " Ollama), define it with `tl.define_model(...)` and give the prompt"
            " `--model NAME`; nothing else changes (`real_models.ipynb` shows it). To see each"
            " run in Phoenix or Jaeger, `%threadlab trace provider` sends its spans through an"
            " OpenTelemetry `TracerProvider` (docs/guides/traces.md).",
        ),
    ],
    "tools_and_progress": [
        (
            "md",
            "# Tools and progress\n\nValidation errors, exceptions and timeouts become error"
            " results the model reads; custom events show on the card.",
        ),
        ("code", SETUP),
        ("code", WRITE_FILE),
        (
            "code",
            '''%%tool --timeout 5
async def count_words(state, text: str) -> dict:
    """Count the words of a text.

    Args:
        text: the text to count
    """
    words = len(text.split())
    state.emit("counted", {"words": words})
    return {"words": words}''',
        ),
        ("code", "%%prompt writer --tools write_file,count_words\nWrite and measure."),
        ("code", "%%thread writer\nWrite a haiku about tea."),
        (
            "code",
            """from threadlab.models import ScriptedModel, call, text

# A scripted model shows what happens with bad input: each problem is listed with its path.
strict = tl.define_prompt("strict", prompt="x", tools=["count_words"], model=ScriptedModel([
    call("count_words", {"text": 42}),
    call("nonexistent"),
    call("count_words", raw_arguments='{"text": "unfinished'),
    text("I saw three errors and stopped."),
]))""",
        ),
        ("code", "%%thread strict\nTry it."),
    ],
    "prompts_as_tools": [
        (
            "md",
            "# Prompts as tools\n\nA prompt exposed as a tool runs a nested turn; the caller"
            " gets its answer shaped by `SubpromptConfig`.",
        ),
        ("code", SETUP),
        (
            "code",
            '''%%tool
def lookup(state, query: str) -> str:
    """Look something up.

    Args:
        query: what to look up
    """
    return f"notes about {query}"''',
        ),
        (
            "code",
            '%%prompt researcher --tools lookup --expose-as-tool --description "Researches'
            ' a question."\nYou research questions.',
        ),
        ("code", "%%prompt editor --tools researcher\nYou edit articles and ask the researcher."),
        ("code", "%%thread editor\nIs green tea good for you?"),
        (
            "code",
            """rt = tl.Runtime()
thread = rt.threads()[0]
for m in thread.all_messages():
    print("  " * m.depth + f"{m.role}: {(m.content or '')[:60]!r}")""",
        ),
    ],
    "subagents": [
        (
            "md",
            "# Subagents\n\nNon-blocking subagents run while the lead goes on; their results"
            " arrive as queued messages in the same run. The tree grows live.",
        ),
        ("code", SETUP),
        ("code", WRITE_FILE),
        ("code", HAND_IN),
        ("code", "%%prompt builder --tools write_file\nBuild one page."),
        ("code", "%%prompt critic\nReview."),
        (
            "code",
            '''%%agent page_builder
type = "dual_ai"
max_session_turns = 4
[side_a]
prompt = "builder"
session_stop = "hand_in"
[side_b]
prompt = "critic"''',
        ),
        ("code", "%%prompt lead --parallel-tool-calls\nDelegate."),
        (
            "code",
            """%%agent studio
[side_a]
prompt = "lead"
[[side_a.subagents]]
name = "page_builder"
blocking = false
max_instances = 3""",
        ),
        ("code", "%%thread studio\nBuild the tea shop's home page."),
        (
            "code",
            """rt = tl.Runtime()
lead = next(t for t in rt.threads() if t.agent == "studio")
for child in lead.children:
    print(child.name, child.status, [f.path for f in child.files.list_sync()])""",
        ),
    ],
    "attachments": [
        (
            "md",
            "# Attachments across threads\n\nFiles given to a child are copied to paths valid"
            " in the child's own filesystem; what it hands back is copied to the parent's."
            " Copies share stored content.",
        ),
        ("code", SETUP),
        (
            "code",
            '''%%tool
async def summarize(state, path: str) -> str:
    """Summarize a file of your filesystem.

    Args:
        path: the file, e.g. /attachments/notes.txt
    """
    data = (await state.read_file(path)).decode()
    await state.write_file("/attachments/summary.txt", data[:40])
    return f"{len(data)} characters"''',
        ),
        (
            "code",
            '''%%tool
async def hand_in(state, summary: str) -> tl.ToolResult:
    """Hand in the summary."""
    return tl.ToolResult(result=summary, attachments=("/attachments/summary.txt",))''',
        ),
        ("code", "%%prompt reader --tools summarize\nSummarize the attached file."),
        ("code", "%%prompt checker\nCheck."),
        (
            "code",
            '''%%agent summarizer
type = "dual_ai"
[side_a]
prompt = "reader"
session_stop = "hand_in"
[side_b]
prompt = "checker"''',
        ),
        (
            "code",
            """from threadlab.models import ScriptedModel, call, text

tl.define_prompt("boss", prompt="x", model=ScriptedModel([
    call("subagent_create", {"agent": "summarizer", "name": "reader-1",
                             "message": "summarize /attachments/notes.txt",
                             "attachments": ["/notes/notes.txt"]}),
    text("The summary is in /attachments/summary.txt."),
]))
tl.define_agent("office", side_a=tl.Side("boss", subagents=[tl.Subagent("summarizer")]))
tl.define_prompt("reader", prompt="x", tools=["summarize"], model=ScriptedModel([
    call("summarize", {"path": "/attachments/notes.txt"}),
    call("hand_in", {"summary": "done"}),
]))

rt = tl.Runtime()
office = await rt.create_thread("office")
_ = await office.files.write("/notes/notes.txt", "Tea notes: sencha, gyokuro, matcha, hojicha.")""",
        ),
        ("code", "%%thread office --id {office.id}\nPlease summarize my notes."),
        (
            "code",
            """print([f.path for f in await office.files.list()])
child = office.children[0]
print([f.path for f in await child.files.list()])
print((await office.files.read("/attachments/summary.txt")).decode())""",
        ),
    ],
    "inspecting_past_threads": [
        (
            "md",
            "# Inspecting past threads\n\nEvery message, event and file is persisted. A new"
            " Runtime — after a kernel restart, the next day — reopens a thread exactly as it"
            " was.",
        ),
        ("code", SETUP),
        ("code", WRITE_FILE),
        ("code", "%%prompt builder --tools write_file\nBuild."),
        ("code", "%%thread builder\nA page about white tea."),
        (
            "code",
            """rt = tl.Runtime()
thread = rt.threads()[0]
thread_id = thread.id
for event in thread.events:
    if event.type == "tool_call_started":
        print("started", event.name, "-", event.progress)
print(len(thread.events), "events")""",
        ),
        ("code", "%threadlab open {thread_id}"),
        ("code", "%threadlab export {thread_id} exported_thread.ipynb"),
    ],
    "reshaping": [
        (
            "md",
            "# Change one step and run again\n\nA tool gave a wrong result. Instead of starting"
            " over with a new (paid, different) model conversation: fork the thread at that"
            " call with the result it should have had, or fix the tool and run the thread"
            " again on its recorded model answers — no model call until the conversation"
            " changes. `%threadlab diff` shows two threads side by side.",
        ),
        ("code", SETUP),
        ("code", SHOUT.format(body="return text.lower()  # the bug: it should be upper case")),
        ("code", "%%prompt shouter --tools shout\nShout what you are given."),
        ("code", "%%thread shouter --new\nShout hello."),
        (
            "code",
            """rt = tl.Runtime()
first = rt.threads()[0]
call_id = next(c.id for m in first.messages for c in m.tool_calls)
print("the tool said:", [m.content for m in first.messages if m.role == "tool"])""",
        ),
        (
            "md",
            "## Fork at the call, with the result it should have had\n\nThe branch holds the"
            " history up to that call (files, env and children as they were there) and runs"
            " on from the edited result. The original thread does not change.",
        ),
        ("code", "%threadlab fork {first.id} --at {call_id} --result '\"LOUD\"'"),
        (
            "md",
            "## Or fix the tool and replay\n\nRe-run the tool's cell with the fix, then run the"
            " thread again on its recorded model answers (an empty cell sends the recorded first"
            " message): the first step is replayed (no model call); the fixed tool's result"
            " differs, so from there the prompt's own model answers (`--fallback MODEL` names"
            " another, `--strict` stops there instead). The view marks each step *replayed* or"
            " *model call*.",
        ),
        ("code", SHOUT.format(body="return text.upper()")),
        ("code", "%%thread shouter --replay {first.id}"),
        (
            "code",
            """replayed = rt.threads()[0]
print("the fixed tool said:", [m.content for m in replayed.messages if m.role == "tool"])""",
        ),
        ("code", "%threadlab diff {first.id} {replayed.id}"),
    ],
    "approvals": [
        (
            "md",
            "# Stay in the loop\n\nA tool that deletes something should not run because a model"
            " asked: with `--approval always` each of its calls waits for a decision. In"
            " JupyterLab its card asks — **Approve**, **Edit arguments** (checked against the"
            " tool's schema) or **Reject** — while the cell keeps running; the run goes on after"
            " your click. `%%thread --step` asks before every call, like a debugger's step.",
        ),
        ("code", SETUP),
        (
            "code",
            '''%%tool --approval always
def delete_file(state, path: str) -> str:
    """Delete a file of the workspace."""
    return f"deleted {path}"''',
        ),
        ("code", "%%prompt janitor --tools delete_file\nTidy the workspace."),
        ("code", "%%thread janitor\nRemove what is not needed."),
        (
            "md",
            "With nobody at the screen — a script's `Runtime`, this notebook run headless, a"
            " kernel interrupted while a card asked — the run stops before the call instead,"
            " everything before it stored, and waits (across restarts, in the store)."
            " `%threadlab pending` lists every call that waits; `%threadlab open ID` shows its"
            " card with the buttons again.",
        ),
        (
            "code",
            """rt = tl.Runtime()  # no approver: a call that needs a decision pauses the run
thread = await rt.create_thread("janitor")
run = await thread.send("Remove the old logs.")
call_id = run.pending[0].tool_call_id
print(run.status, call_id, run.pending[0].arguments)""",
        ),
        ("code", "%threadlab pending"),
        (
            "md",
            "Approve it with other arguments (checked against the tool's schema; JSON braces"
            " are doubled in a magic's line, which expands `{call_id}`), or reject it with"
            " `%threadlab reject {call_id} not that one`:",
        ),
        # Braces of the JSON doubled: a magic's line expands {call_id} from the notebook.
        ("code", '%threadlab approve {call_id} --arguments \'{{"path": "/tmp/scratch.txt"}}\''),
        (
            "code",
            """done = rt.thread(thread.id)
# The run completed (its view says so); the thread itself is idle: nothing runs it now.
print("thread", done.status, [m.content for m in done.messages if m.role == "tool"])""",
        ),
    ],
    "mcp": [
        (
            "md",
            (
                "# MCP both ways\n"
                "\n"
                "The Model Context Protocol connects tools to agents. A notebook can use the"
                " tools of any MCP server, and serve its own tools to Claude Code, Cursor, VS"
                " Code or any MCP client while the kernel runs. Every call, either way, is a"
                " thread you can open, fork and replay.\n"
                "\n"
                "`make lab` installs the reference server"
                " `@modelcontextprotocol/server-everything` with npm and puts it on the path."
            ),
        ),
        (
            "code",
            (
                "%load_ext threadlab\n"
                "import threadlab as tl\n"
                "\n"
                "# An offline model that streams slowly enough to watch (no key, no network).\n"
                'tl.define_model("watchable", provider="offline", model="offline",'
                ' options={"delay": 0.05})\n'
                '%config ThreadlabMagics.default_model = "watchable"'
            ),
        ),
        (
            "md",
            (
                "## A server's tools in a prompt\n"
                "\n"
                "`%%mcp NAME` takes the keys of `tl.define_mcp_server` as TOML: a `command`"
                " started over stdio (or a `url` with `headers`), the `tools` to offer and a"
                " `prefix`. The server starts when a run first needs it; a prompt lists all its"
                " tools as `mcp:NAME`. Arguments are checked against the server's schemas, its"
                " progress notifications drive the card's bar, and an image it returns lands in"
                " the thread's files."
            ),
        ),
        (
            "code",
            (
                "%%mcp everything\n"
                'command = "mcp-server-everything"\n'
                'args = ["stdio"]\n'
                'tools = ["echo", "get-sum", "trigger-long-running-operation", "get-tiny-image"]'
            ),
        ),
        (
            "code",
            ("%%prompt explorer --tools mcp:everything\nTry each tool once."),
        ),
        (
            "code",
            ("%%thread explorer\nShow me what the server can do."),
        ),
        (
            "md",
            (
                "## A server that asks you something\n"
                "\n"
                "A server may ask the user for details in the middle of a call (MCP"
                " *elicitation*). In JupyterLab the call's card shows the server's form — its"
                " fields, with their defaults — and the call waits for your **Submit** or"
                " **Decline**; the answer is kept in the card. Run without a page on screen"
                " (nbconvert, a script) the question is declined; in a script,"
                " `tl.Runtime(elicitor=...)` answers it. A server's requests to sample a model"
                " are answered by the thread's own model (or the server's `sampling_model`)."
            ),
        ),
        (
            "code",
            (
                "%%mcp asking\n"
                'command = "mcp-server-everything"\n'
                'args = ["stdio"]\n'
                'tools = ["trigger-elicitation-request"]'
            ),
        ),
        (
            "code",
            ("%%prompt survey --tools mcp:asking\nAsk the user for their details."),
        ),
        (
            "code",
            ("%%thread survey\nWho am I?"),
        ),
        (
            "md",
            (
                "## The notebook's tools as an MCP server\n"
                "\n"
                "`tl.mcp.serve` serves every function tool, and every prompt or agent exposed as"
                " a tool, over streamable HTTP on 127.0.0.1 with a bearer token. `%threadlab mcp"
                " serve` does the same from a cell of its own and prints the client"
                " configuration. Redefining a tool's cell updates the listing while clients are"
                " connected."
            ),
        ),
        (
            "code",
            (
                "%%tool\n"
                "def shout(state, text: str) -> str:\n"
                '    """Say a text loudly."""\n'
                '    return text.upper() + "!"'
            ),
        ),
        (
            "code",
            (
                "import struct\n"
                "import zlib\n"
                "\n"
                "\n"
                "def bar_chart_png(heights: list[int], scale: int = 16) -> bytes:\n"
                '    """A PNG of blue bars on white, one `scale` pixels wide per height."""\n'
                "    width, height = scale * len(heights), scale * max(heights)\n"
                '    blue, white = b"\\x2a\\x7a\\xe2", b"\\xff\\xff\\xff"\n'
                "\n"
                "    def pixel(x: int, y: int) -> bytes:\n"
                "        return blue if x % scale and height - y <= heights[x // scale] * scale"
                " else white\n"
                "\n"
                '    rows = b"".join(b"\\x00" + b"".join(pixel(x, y) for x in range(width)) for y'
                " in range(height))\n"
                "\n"
                "    def chunk(kind: bytes, data: bytes) -> bytes:\n"
                "        crc = zlib.crc32(kind + data)\n"
                '        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I",'
                " crc)\n"
                "\n"
                '    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)\n'
                '    return (b"\\x89PNG\\r\\n\\x1a\\n" + chunk(b"IHDR", header) + chunk(b"IDAT",'
                " zlib.compress(rows))\n"
                '            + chunk(b"IEND", b""))'
            ),
        ),
        (
            "code",
            (
                "%%tool\n"
                "async def tiny_chart(state, heights: list[int]) -> tl.ToolResult:\n"
                '    """Draw bars of the given heights as a PNG, attached to the result."""\n'
                '    await state.write_file("/chart.png", bar_chart_png(heights))\n'
                '    return tl.ToolResult(result=f"{len(heights)} bars",'
                ' attachments=("/chart.png",))'
            ),
        ),
        (
            "code",
            (
                "import json\n"
                "\n"
                'service = await tl.mcp.serve(tools=["shout", "tiny_chart"])\n'
                "# The configuration a client needs, its token left out of what the notebook"
                " file keeps:\n"
                "# paste service.token where it says so (or run `%threadlab mcp serve`, which"
                " shows it on screen only).\n"
                "shown = json.dumps(service.client_config(), indent=2).replace(service.token,"
                ' "<service.token>")\n'
                "print(shown)"
            ),
        ),
        (
            "md",
            (
                "Any MCP client can call it now; here the official SDK's client does. The call"
                " is a thread of the store (origin `mcp`): `%threadlab threads` lists it."
            ),
        ),
        (
            "code",
            (
                "import httpx2\n"
                "from mcp import Client\n"
                "from mcp.client.streamable_http import streamable_http_client\n"
                "\n"
                "async with (\n"
                "    httpx2.AsyncClient(headers=service.headers) as http,\n"
                "    Client(streamable_http_client(service.url, http_client=http)) as client,\n"
                "):\n"
                "    print([tool.name for tool in (await client.list_tools()).tools])\n"
                '    answer = await client.call_tool("shout", {"text": "hello from a client"})\n'
                "print(answer.content[0].text)"
            ),
        ),
        (
            "md",
            (
                "A result's files reach a client as content of their own kind: the attached PNG"
                " comes back as an `image` block beside the text, and the thread's files are"
                " resources the client can list and read"
                " (`threadlab://threads/<id>/files/<path>`). A tool that returns a pydantic"
                " model or a `TypedDict` is listed with an output schema and answers structured"
                " content too; see the MCP guide."
            ),
        ),
        (
            "code",
            (
                "import base64\n"
                "\n"
                "from IPython.display import Image, display\n"
                "\n"
                "async with (\n"
                "    httpx2.AsyncClient(headers=service.headers) as http,\n"
                "    Client(streamable_http_client(service.url, http_client=http)) as client,\n"
                "):\n"
                '    drawn = await client.call_tool("tiny_chart", {"heights": [2, 5, 3, 6]})\n'
                "    resources = [r.uri for r in (await client.list_resources()).resources]\n"
                'print([block.type for block in drawn.content], resources[-1].rsplit("/",'
                " 2)[-2:])\n"
                'image = next(block for block in drawn.content if block.type == "image")\n'
                "display(Image(base64.b64decode(image.data)))"
            ),
        ),
        (
            "code",
            "%threadlab threads",
        ),
        (
            "code",
            "await service.close()",
        ),
    ],
    "scale_out": [
        (
            "md",
            "# Beyond this kernel: Ray\n\nAn evaluation of many cases and models, or a lead that"
            " fans out to many helpers, outgrows one process. With an engine, those runs leave"
            " the kernel as **Ray tasks**: each opens its thread from the store, runs it in a"
            " worker process, and persists it there; the tables and views here fill from the"
            " store as they go. The tools defined in this notebook's cells travel with the work"
            " as they are. Here a local Ray, started by this kernel (a cluster is one"
            " `%config` away: see the guide *Beyond one machine*).",
        ),
        (
            "code",
            SETUP
            + """
# Evaluation rows and non-blocking children run as Ray tasks (a local Ray starts on first use).
%config ThreadlabMagics.engine = "ray\"""",
        ),
        (
            "code",
            '''%%tool
def where(state, question: str) -> str:
    """Answer with the process that runs this call."""
    import os

    return f"process {os.getpid()} took {question!r}"''',
        ),
        ("code", "%%prompt asker --tools where\nAnswer with the tool."),
        (
            "md",
            "## An evaluation grid\n\nEvery row is a Ray task: the table fills in as the"
            " workers finish (the first rows wait for Ray and its workers to start).",
        ),
        (
            "code",
            "%%eval asker --models watchable,offline --repeat 2 --called where --name grid\n"
            "tea\ncoffee\nbread\nmilk",
        ),
        (
            "md",
            "Which processes ran them? Each row's thread is in the store: its answer names the"
            " worker's process, never this kernel's.",
        ),
        (
            "code",
            """import os

rt = tl.Runtime()
rows = [t for t in rt.threads() if t.origin == "eval:grid"]
workers = {t.messages[-2].content.split()[1] for t in rows}
print(len(rows), "runs;", "this kernel ran none" if str(os.getpid()) not in workers
      else "this kernel ran some")""",
        ),
        (
            "md",
            "## A lead that fans out\n\nThe lead starts four helpers without waiting for them"
            " (non-blocking subagents): each runs as a Ray task, and its report comes back"
            " through the store. The tree shows each helper and its card as its worker stores"
            " them.",
        ),
        ("code", '%%agent helper\nside_a = "asker"\ntool_description = "Answers one question."'),
        (
            "code",
            """from threadlab.models import FunctionModel, call, step, text


def fan_out(messages, tools):
    last = messages[-1]
    if last.role == "user" and last.subagent_id is None:
        return step(*(call("subagent_create", {"agent": "helper", "name": f"helper-{i}",
                                               "message": f"question {i}"}) for i in range(4)))
    heard = sum(1 for m in messages if m.role == "user" and m.subagent_id)
    return text(f"heard {heard} of 4 helpers")


tl.define_prompt("dispatch", prompt="Fan out.", model=FunctionModel(fan_out))""",
        ),
        (
            "code",
            """%%agent lead
[side_a]
prompt = "dispatch"
[[side_a.subagents]]
name = "helper"
blocking = false""",
        ),
        ("code", "%%thread lead\nAsk four helpers."),
        (
            "code",
            """lead = next(t for t in tl.Runtime().threads() if t.agent == "lead")
for child in lead.children:
    print(child.name, child.status, child.messages[-1].content)
print(lead.messages[-1].content)""",
        ),
    ],
    "lesson_tool_calling": [
        (
            "md",
            "# Lesson: how an agent calls tools\n\nAn agent is a loop: the runtime sends the"
            " model the conversation and the tools it may call; the model answers, or asks for"
            " calls; each call runs and its result joins the conversation; then the model is"
            " asked again. This lesson walks that loop one step at a time, in the words of the"
            " spec's rules, then has you write a tool and grades it. All on the offline model:"
            " no key.",
        ),
        ("code", SETUP),
        (
            "md",
            "## 1. A tool and a prompt\n\nA tool is a function the model may call: its type"
            " hints are the schema the arguments are checked against. `--progress description`"
            " names the argument that says what a call is doing; it streams first.",
        ),
        ("code", WRITE_FILE),
        ("code", "%%prompt builder --tools write_file\nYou build small web pages."),
        (
            "md",
            "## 2. How the definitions fit\n\n`%threadlab graph` draws them: the prompt and"
            " the tool it may call. Click a node to read its definition.",
        ),
        ("code", "%threadlab graph builder"),
        (
            "md",
            "## 3. One step at a time\n\n`--step model` pauses before each model step and"
            " shows what the model is about to be sent: the system prompt, the conversation so"
            " far, the tools on offer. Read it, then press **Continue**: the model answers, its"
            " calls run, and the run pauses before the next model step. (Run without a person,"
            " the run stays paused; the cell after it goes on from Python.)",
        ),
        ("code", "%%thread builder --step model\nMake a landing page about green tea."),
        ("code", STEP_ON),
        (
            "md",
            "## 4. What happened, in words\n\n`tl.explain` tells the thread's history step by"
            " step, from what was stored (no model writes it). Each sentence that rests on a"
            " rule of the spec quotes it, with a link to the guide that explains it.",
        ),
        ("code", 'tl.explain(thread, guides="../docs/guides/")'),
        (
            "md",
            "The player steps through the same history, point by point: drag the scrubber, use"
            " the buttons or the ← / → keys, or press play. Each point shows the thread as it"
            " was then; tick **explain** to read the step in words. Tick **predict** and step"
            " forward from the start: before each model step you pick what the model will do"
            " (one of the tools it was given, or a text answer), then see what it did, and the"
            " player keeps your score.",
        ),
        ("code", "tl.player(thread)"),
        (
            "md",
            "## 5. A subagent\n\nAn agent can start another agent in a thread of its own. The"
            " lead calls the runtime's `subagent_create` tool; the child works, hands in its"
            " page, and the page is copied into the lead's files, so the path in the report is"
            " valid there.",
        ),
        ("code", HAND_IN),
        ("code", "%%prompt critic\nYou review pages and say what to improve."),
        ("code", SITE_BUILDER),
        ("code", "%%prompt lead\nYou delegate page building to your subagent."),
        ("code", STUDIO),
        ("code", "%%thread studio\nWe need a page about oolong."),
        (
            "code",
            'lead = next(t for t in tl.Runtime().threads() if t.agent == "studio")\n'
            'tl.explain(lead, guides="../docs/guides/")',
        ),
        (
            "md",
            "## 6. Exercise: write a tool\n\n`word_count` should return how many words a text"
            " has. The version below has a bug. Run the check cell after it: each case passes"
            " when the model's answer reports the right count. Fix the tool (a word is what"
            " `text.split()` gives), run both cells again, and watch the cases pass.",
        ),
        ("code", WORD_COUNT),
        ("code", "%%prompt counter --tools word_count\nYou count words with your tool."),
        (
            "code",
            "%%eval counter --name words\n"
            "the quick brown fox => returned: 4\n"
            "tea => returned: 1\n"
            "green tea and black tea => returned: 5",
        ),
        (
            "md",
            "## 7. Graded on what the agent did\n\nA course can grade the path, not only the"
            " answer: which tools the agent called, with what, in which order, whether it asked"
            " before acting, whether a secret leaked. `threadlab.grading` reads the thread's"
            " steps; each check is worth points and says, in one line, what to fix. (An"
            " nbgrader assignment's hidden test cells call the same `g.grade`: see the guide"
            " *Grading what an agent did*.)",
        ),
        (
            "code",
            """from threadlab import grading as g

g.grade(lead, [
    (g.called("subagent_create", agent="site_builder"), 2),
    g.called_before("subagent_create", "hand_in"),
    g.call_count("subagent_create", at_most=1),
])""",
        ),
    ],
    "mcp_apps": [
        (
            "md",
            (
                "# Tools with their own UI (MCP Apps)\n"
                "\n"
                "An MCP App is a tool's own interactive page: the host draws it in a sandboxed"
                " frame and tells it the call's arguments and result over `postMessage`; the app"
                " may call its server's tools. Here a server's app shows under its call's card,"
                " and a tool written in a cell brings a page of its own, which `tl.mcp.serve`"
                " serves to Claude, VS Code or ChatGPT.\n"
                "\n"
                "`make lab` installs the example server"
                " `@modelcontextprotocol/server-basic-vanillajs` with npm and puts it on the path."
            ),
        ),
        ("code", SETUP),
        (
            "md",
            (
                "## A server's tool with its app\n"
                "\n"
                "The server's `get-time` tool names its page (`_meta.ui.resourceUri`). When the"
                " model calls it, the page is read from the server and kept with the call: it"
                " shows under the card, told the result. **Get Server Time** in the app calls"
                " the server's tool again, through the kernel; the card lists each such call."
                " **wide** shows the app over the notebook."
            ),
        ),
        (
            "code",
            '%%mcp basic\ncommand = "mcp-server-basic-vanillajs"\nargs = ["--stdio"]',
        ),
        ("code", "%%prompt clock --tools mcp:basic\nTell the time."),
        ("code", "%%thread clock\nWhat time is it?"),
        (
            "md",
            (
                "## A tool with a UI, written here\n"
                "\n"
                "`@tl.tool(ui=...)` takes the page's HTML (or a `pathlib.Path`). The page speaks"
                " the protocol by hand here: it initializes, then shows the result it is told."
            ),
        ),
        (
            "code",
            DICE_TOOL,
        ),
        ("code", "%%prompt roller --tools roll\nRoll a die."),
        ("code", "%%thread roller\nRoll one."),
        (
            "md",
            (
                "## Served as an MCP App, read back\n"
                "\n"
                "`tl.mcp.serve` lists the tool with its page's address, and serves the page as a"
                " resource of type `text/html;profile=mcp-app`: what an MCP host reads to draw"
                " it. The SDK's own client reads it back."
            ),
        ),
        (
            "code",
            SERVED_APP_READ_BACK,
        ),
    ],
    "evaluate": [
        (
            "md",
            "# Evaluate and compare\n\nA tool works once; does it work on every case, with"
            " this model and with that one? `%%eval` runs a prompt over a list of cases and"
            " models into a table that fills in as runs finish. Every run is a thread: click a"
            " cell to open it, fork it, replay it.",
        ),
        ("code", SETUP),
        (
            "code",
            '''%%tool
def search(state, query: str) -> str:
    """Search the pantry."""
    return f"found {query}" if query in ("tea", "coffee", "bread") else "nothing"''',
        ),
        ("code", "%%prompt finder --tools search\nFind what the user asks for."),
        (
            "md",
            "Two model settings: the offline model, which calls each tool, and a hasty one that"
            " answers without looking (a stand-in for a model that skips its tools).",
        ),
        (
            "code",
            """from threadlab.models import FunctionModel, text


def hasty(messages, tools):
    return text("It is in the pantry, surely.")


hasty = FunctionModel(hasty)""",
        ),
        (
            "md",
            "One case per line; `=> text` scores whether the answer contains it. `--called`"
            " scores the tool calls. Filter the table to the failures, or to the cases where the"
            " models differ.",
        ),
        (
            "code",
            "%%eval finder --models watchable,hasty --called search --name pantry\n"
            "tea => found tea\ncoffee => found coffee\nbread => found bread\nmilk => found milk",
        ),
        (
            "md",
            "The same from Python: `tl.evaluate` takes `tl.Case`s (or a pydantic-evals"
            " `Dataset`), scorers (plain callables, `tl.scorers`, pydantic-evals evaluators) and"
            " models, and returns a report to summarise and compare.",
        ),
        (
            "code",
            """def found_it(ctx: tl.EvalContext) -> bool:
    return f"found {ctx.expected}" in ctx.output


cases = [tl.Case(item, item, expected=item) for item in ("tea", "milk")]
report = await tl.evaluate("finder", cases, models=["watchable", hasty], name="pantry-2",
                           scorers=[tl.scorers.called("search"), found_it])
for model, line in report.summary().items():
    print(model, "pass rate", line["pass_rate"])
a, b = report.compare("watchable", "hasty")[0]
print("they differ on", a.case)""",
        ),
        ("md", "Two runs of one case, side by side, aligned by step:"),
        ("code", "%threadlab diff {a.thread_id} {b.thread_id}"),
    ],
    "run_code": [
        (
            "md",
            "# Running model-written code\n\nTools that run code a model (or a user) wrote do"
            " it through `state.run_code`, never `eval`/`exec`: JavaScript and TypeScript run"
            " in Deno with no permissions, Python in a bubblewrap jail, each run in a fresh"
            " process with a time limit and a memory cap. The only way out is a host function"
            " you bridge in with `imports=`. Copy these two tools into your own notebooks.",
        ),
        ("code", SETUP),
        ("code", RUN_JAVASCRIPT),
        ("code", RUN_PYTHON),
        (
            "code",
            "%%prompt coder --tools run_javascript,run_python\nYou answer by running small"
            " programs.",
        ),
        (
            "md",
            "While a snippet runs, its console output appears in the tool's card"
            " (`code_log`), then the sandbox's verdict (`code_result`): success, error,"
            " timeout, memory or terminated, in words.",
        ),
        ("code", "%%thread coder\nHow long are the words of the pangram, and the squares?"),
        (
            "code",
            """import json

rt = tl.Runtime()
coder = next(t for t in rt.threads() if t.agent == "coder")
for message in coder.messages:
    if message.role == "tool":
        outcome = json.loads(message.content)
        print(message.name, outcome["status"], outcome["result"], outcome["logs"])""",
        ),
        (
            "md",
            "A run that breaks a limit is stopped and says so: `status` is `timeout`,"
            " `memory` or `terminated`, and `error` explains. Where a sandbox cannot be built"
            " (no bubblewrap on this machine, say), `run_code` raises"
            " `tl.SandboxUnavailableError` naming what to install; it never runs code"
            " unsandboxed.",
        ),
    ],
    "real_models": [
        (
            "md",
            "# Real models\n\nThe same tool and prompt on the offline model, OpenAI, Anthropic"
            " or a local server: only the model's name changes. This notebook runs offline;"
            " it switches to OpenAI or Anthropic by itself when `OPENAI_API_KEY` or"
            " `ANTHROPIC_API_KEY` is in the environment (or use `%threadlab secret"
            " OPENAI_API_KEY` to type a key, hidden, before the thread cell).",
        ),
        ("code", "%load_ext threadlab\nimport os\n\nimport threadlab as tl"),
        (
            "md",
            "Defining a model needs no key: the key is a secret variable, looked up when a"
            " thread uses the model. `base_url` points the `openai` provider at any"
            " OpenAI-compatible server.",
        ),
        (
            "code",
            """tl.define_model("gpt", provider="openai", model="gpt-4.1-mini")
tl.define_model("claude", provider="anthropic", model="claude-haiku-4-5",
                options={"max_tokens": 1024})
tl.define_model("local", provider="openai", model="llama3.2",
                base_url="http://localhost:11434/v1", api_key_variable="OLLAMA_API_KEY")

# The first model whose key is set; the offline one when none is.
keys = {"gpt": "OPENAI_API_KEY", "claude": "ANTHROPIC_API_KEY"}
chosen = next((name for name, key in keys.items() if os.environ.get(key)), "offline")
chosen""",
        ),
        (
            "md",
            "`%threadlab models` says which keys a new thread will find — never the keys.",
        ),
        ("code", "%threadlab models"),
        ("code", WRITE_FILE),
        (
            "code",
            "%%prompt builder --model {chosen} --tools write_file\nYou build small web pages"
            " with the tools you have. Keep pages short.",
        ),
        (
            "md",
            "Run it. On a real model, the card says what `write_file` is doing as soon as"
            " the `description` argument has streamed, while the page itself is still"
            " coming in; token usage is recorded on each answer and on the run.",
        ),
        ("code", "%%thread builder\nMake a one-page site about green tea."),
        (
            "code",
            """rt = tl.Runtime()
builder = next(t for t in rt.threads() if t.agent == "builder")
print("model:", chosen)
print("usage of the last answer:", builder.messages[-1].usage)""",
        ),
    ],
}


# What JupyterLab writes into a notebook once its kernel answers (the kernel spec's name, the
# kernel's language): shipped so, a notebook opens unmodified.
METADATA = {
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
    "language_info": {
        "codemirror_mode": {"name": "ipython", "version": 3},
        "file_extension": ".py",
        "mimetype": "text/x-python",
        "name": "python",
        "nbconvert_exporter": "python",
        "pygments_lexer": "ipython3",
        "version": "3.11.7",  # the Python of the environment `make lab` builds here
    },
}


def notebook(name: str) -> nbformat.NotebookNode:
    """The example notebook `name` as this script writes it."""
    built = new_notebook()
    built.metadata.update(METADATA)
    built.cells = [
        # Stable cell ids keep rebuilds from churning the committed notebooks.
        new_markdown_cell(src, id=f"cell-{i}")
        if kind == "md"
        else new_code_cell(src, id=f"cell-{i}")
        for i, (kind, src) in enumerate(NOTEBOOKS[name])
    ]
    return built  # type: ignore[no-any-return]  # nbformat is untyped


def build() -> None:
    for name in NOTEBOOKS:
        nbformat.write(notebook(name), HERE / f"{name}.ipynb")


if __name__ == "__main__":
    build()
