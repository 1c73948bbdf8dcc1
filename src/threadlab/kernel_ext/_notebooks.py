"""Notebooks as tool libraries (import the definition cells of another notebook) and threads
as notebooks (export a thread's conversation)."""

from __future__ import annotations

from pathlib import Path

import nbformat

from ..runtime import Thread

__all__ = ["DEFINITION_MAGICS", "definition_cells", "thread_notebook"]

DEFINITION_MAGICS = ("%%tool", "%%prompt", "%%agent")


def definition_cells(path: str | Path) -> list[str]:
    """The `%%tool`, `%%prompt` and `%%agent` cells of a notebook, in order."""
    notebook = nbformat.read(str(path), as_version=4)
    return [
        cell.source
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.source.lstrip().startswith(DEFINITION_MAGICS)
    ]


def thread_notebook(thread: Thread) -> nbformat.NotebookNode:
    """A thread as a notebook: a heading, then a markdown cell per message and tool call."""
    notebook: nbformat.NotebookNode = nbformat.v4.new_notebook()
    cells = [
        nbformat.v4.new_markdown_cell(
            f"# Thread `{thread.id}`\n\nAgent `{thread.agent}`, {len(thread.messages)} messages."
            f" Reopen it with `%threadlab open {thread.id}`."
        )
    ]
    for message in thread.all_messages():
        indent = "> " * message.depth
        if message.role == "tool":
            status = "✓" if message.tool_status == "success" else "✗"
            text = f"**{status} {message.name}** result:\n\n```\n{message.content or ''}\n```"
        else:
            text = f"**{message.role}**" + (f" ({message.side})" if message.side else "")
            if message.content:
                text += f": {message.content}"
            for call in message.tool_calls:
                text += f"\n\n- calls `{call.name}` with `{call.arguments}`"
        lines = text.splitlines() or [""]
        cells.append(nbformat.v4.new_markdown_cell("\n".join(indent + line for line in lines)))
    notebook.cells = cells
    return notebook
