"""A thread shared as one HTML file (`tl.share`): the player over every step of it and of its
subagents, with the narration, each thread's variables as they changed and its files, drawn by
the same script as the views in a notebook — inlined, with the data, so the file opens with no
network and no kernel. What it holds is what a view holds: secrets only by their names (a
file's text too); files past a size bound are left out, and the page says which.

What the page holds (`shared_thread`) is also what JupyterLab's Threads panel draws a stored
thread from, with the same script."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, NamedTuple, cast

from .. import FileWrittenEvent, Runtime, Thread
from ._history import descendants
from ._player_view import PlayerView
from ._preview import preview_of
from ._views import STATIC

__all__ = ["MAX_FILES_BYTES", "MAX_FILE_BYTES", "SharedThread", "share", "shared_thread"]

MAX_FILE_BYTES = 1024 * 1024
"""The largest file a shared page holds (larger ones are named, their content left out)."""
MAX_FILES_BYTES = 16 * 1024 * 1024
"""What a shared page holds of files, all together."""

# The page may reach nothing: no request leaves it, whatever its data holds.
_POLICY = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'"
# JupyterLab's dark theme's colours, for a reader whose system prefers dark.
_DARK = """@media (prefers-color-scheme: dark) {
  :root { color-scheme: dark; --jp-layout-color0: #111; --jp-layout-color1: #1e1e1e;
    --jp-layout-color2: #2b2b2b; --jp-ui-font-color0: #fff; --jp-ui-font-color1: #e0e0e0;
    --jp-ui-font-color2: #aaa; --jp-border-color1: #555; --jp-border-color2: #444;
    --jp-brand-color1: #64b5f6; }
  body { background: #111; color: #e0e0e0; }
}"""


def share(
    thread: Thread,
    path: str | os.PathLike[str],
    *,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_files_bytes: int = MAX_FILES_BYTES,
) -> Path:
    """Write `thread` (its subagents' threads too) as one self-contained HTML file at `path`:
    the player with every step and its narration, each thread's variables as of each point
    (secrets by name), and the threads' files — those up to `max_file_bytes` each and
    `max_files_bytes` together (the page names those left out). It opens in a browser with
    no network and no kernel. Returns the path written."""
    shared = shared_thread(thread, max_file_bytes=max_file_bytes, max_files_bytes=max_files_bytes)
    target = Path(path)
    target.write_text(_page(thread, *shared), encoding="utf-8")
    return target


class SharedThread(NamedTuple):
    """What a shared thread's page draws from: `renderOffline(el, state, files)`."""

    state: dict[str, Any]
    """The player's saved state, narrated, marked `shared` (the player stays on screen)."""
    files: dict[str, dict[str, Any]]
    """Each thread's files as a view previews them, by thread id and path."""
    left_out: list[str]
    """The files too large to hold, each as "path: N bytes"."""


def shared_thread(
    thread: Thread,
    *,
    max_file_bytes: int = MAX_FILE_BYTES,
    max_files_bytes: int = MAX_FILES_BYTES,
) -> SharedThread:
    """What `share(thread, path)` writes into its page, as values: the player's state over
    `thread` and its subagents' threads, and their files within the bounds."""
    runtime = cast(Runtime, thread._runtime)
    view = PlayerView(runtime, thread)
    try:
        view._tell()  # the narration now: no cell will show this view first
        state = {**view.saved_state(), "shared": True}
    finally:
        view.close()
    files, left_out = _files(thread, max_file_bytes, max_files_bytes)
    return SharedThread(state, files, left_out)


def _files(thread: Thread, each: int, total: int) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """Each thread's files as a view previews them, within the bounds: as they are (by path)
    and as they were at each point the player shows (by "path@digest"); what was left out."""
    held: dict[str, dict[str, Any]] = {}
    left_out: list[str] = []
    room = total
    for member in [thread, *descendants(thread)]:
        kept = held.setdefault(member.id, {})
        current = {record.path: record for record in member.files.list_sync()}
        written = [
            (event.path, event.digest, event.size)
            for event in member.events
            if isinstance(event, FileWrittenEvent) and event.digest and not event.deleted
        ]
        versions = {(path, digest): size for path, digest, size in written}
        # The files as they are first, then earlier contents, newest first.
        wanted = [(r.path, r.digest, r.size) for r in current.values()]
        wanted += [(p, d, n) for (p, d), n in reversed(versions.items()) if current.get(p) is None
                   or current[p].digest != d]  # fmt: skip
        for path, digest, size in wanted:
            where = f"{path}" + ("" if member.id == thread.id else f" ({member.name})")
            if size > each or size > room:
                if path in current and current[path].digest == digest:
                    left_out.append(f"{where}: {size:,} bytes")
                continue
            preview = preview_of(member, path, digest)
            kept[f"{path}@{digest}"] = preview
            if path in current and current[path].digest == digest:
                kept[path] = preview
            room -= size
        if not kept:
            del held[member.id]
    return held, left_out


def _page(thread: Thread, state: dict[str, Any], files: dict[str, Any], left_out: list[str]) -> str:
    css = (STATIC / "threadlab.css").read_text(encoding="utf-8")
    script = (STATIC / "views.js").read_text(encoding="utf-8")
    note = ""
    if left_out:
        items = "".join(f"<li>{_escape(line)}</li>" for line in left_out)
        note = (
            '<aside class="tl-shared-note" data-testid="left-out"><p>Files too large for this'
            f" page, left out:</p><ul>{items}</ul></aside>"
        )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta http-equiv="Content-Security-Policy" content="{_POLICY}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>threadlab · {_escape(thread.agent)} · {_escape(thread.id)}</title>"
        f"<style>{css}\n{_DARK}\nbody {{ font-family: system-ui, sans-serif;"
        " margin: 1rem 2rem; }</style></head><body>"
        f'<main id="threadlab-view" data-testid="shared-view"></main>{note}'
        f'<script type="application/json" id="threadlab-state">{_json(state)}</script>'
        f'<script type="application/json" id="threadlab-files">{_json(files)}</script>'
        f'<script type="module">{script}</script></body></html>\n'
    )


def _json(value: Any) -> str:
    """`value` as JSON that cannot end its script element early."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c")  # "<" occurs in JSON only inside strings


def _escape(text: str) -> str:
    import html

    return html.escape(text, quote=True)
