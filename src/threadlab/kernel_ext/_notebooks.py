"""Notebooks as tool libraries (import the definition cells of another notebook) and threads
as notebooks (export a thread's conversation)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from .. import Thread
from .._markdown import escape_markdown, fenced

if TYPE_CHECKING:
    import nbformat

__all__ = [
    "DEFINITION_MAGICS",
    "definition_cells",
    "thread_notebook",
]

DEFINITION_MAGICS = ("%%tool", "%%prompt", "%%agent")


def definition_cells(path: str | Path) -> list[str]:
    """The `%%tool`, `%%prompt` and `%%agent` cells of a notebook, in order."""
    import nbformat  # here, not at `%load_ext`: it imports jsonschema, which costs seconds

    notebook = nbformat.read(str(path), as_version=4)
    return [
        cell.source
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.source.lstrip().startswith(DEFINITION_MAGICS)
    ]


def thread_notebook(thread: Thread) -> nbformat.NotebookNode:
    """A thread as a notebook: a heading, then a markdown cell per message and tool call.

    Everything a model, a tool or a user wrote is untrusted: prose is backslash-escaped so no
    markdown or HTML in it renders, and results and arguments sit in fenced blocks longer than
    any run of backticks inside them, so they cannot close their fence.
    """
    import nbformat

    notebook: nbformat.NotebookNode = nbformat.v4.new_notebook()
    cells = [
        nbformat.v4.new_markdown_cell(
            f"# Thread `{thread.id}`\n\nAgent {escape_markdown(thread.agent)},"
            f" {len(thread.messages)} messages. Reopen it with `%threadlab open {thread.id}`."
        )
    ]
    for message in thread.all_messages():
        indent = "> " * message.depth
        if message.role == "tool":
            status = "✓" if message.tool_status == "success" else "✗"
            name = escape_markdown(message.name or "")
            text = f"**{status} {name}** result:\n\n{fenced(message.content or '')}"
        else:
            text = f"**{message.role}**" + (f" ({message.side})" if message.side else "")
            if message.content:
                text += f": {escape_markdown(message.content)}"
            for call in message.tool_calls:
                arguments = (
                    call.arguments
                    if isinstance(call.arguments, str)
                    else json.dumps(call.arguments, ensure_ascii=False, indent=1)
                )
                text += f"\n\ncalls {escape_markdown(call.name)} with\n\n{fenced(arguments)}"
        lines = text.splitlines() or [""]
        cells.append(nbformat.v4.new_markdown_cell("\n".join(indent + line for line in lines)))
    notebook.cells = cells
    return notebook
