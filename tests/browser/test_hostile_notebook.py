"""A notebook file written by an attacker: threadlab's output type holds markup in every
text an attacker chooses (the model's text, a call's arguments, an agent's name, a status,
an error, a depth that is no number). The notebook is not trusted, and threadlab's renderer
draws it anyway (it declares itself safe): everything must read as text, no script may run
and nothing may be fetched."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path
from typing import Any

import nbformat
import pytest

import threadlab as tl
from threadlab.models import call, text
from threadlab.widgets import ThreadView, replay
from threadlab.widgets._views import VIEW_MIME

from .conftest import Lab

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium


def markup(url: str, mark: int) -> str:
    image = f"<img src='{url}?{mark}' onerror='window.__pwned={mark}'>"
    return f"{image}<script>window.__pwned={mark}</script>"


async def saved_output(store: Path, url: str) -> dict[str, Any]:
    """What a real view keeps in a notebook, for a run whose model said markup."""
    registry = tl.Registry()

    def shout(state: tl.ThreadState, args: dict[str, Any]) -> str:
        return str(args["text"])

    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    tl.define_tool("shout", description="S.", args=schema, execute=shout, registry=registry)
    model = tl.models.ScriptedModel([call("shout", {"text": markup(url, 1)}), text(markup(url, 2))])
    tl.define_prompt("p", prompt="x", tools=["shout"], model=model, registry=registry)
    rt = tl.Runtime(registry, store)
    try:
        thread = await rt.create_thread("p")
        await thread.send("go")
        data = ThreadView(rt, replay(thread))._repr_mimebundle_()[0]
    finally:
        rt.close()
    return {VIEW_MIME: data[VIEW_MIME], "text/plain": "a view"}


def hostile_notebook(folder: Path, url: str) -> Path:
    made: list[dict[str, Any]] = []
    worker = threading.Thread(target=lambda: made.append(asyncio.run(saved_output(folder, url))))
    worker.start()
    worker.join()
    data = made[0]
    trace = data[VIEW_MIME]["state"]["trace"]
    # What the attacker edits by hand: fields the runtime would never fill this way.
    trace["threads"][0]["agent"] = markup(url, 3)
    trace["run"]["status"] = f"x' onmouseover='window.__pwned=4'>{markup(url, 4)}"
    trace["run"]["error"] = markup(url, 5)
    for card in trace["cards"].values():
        card["depth"] = f"1;background:url({url}?6)"
        card["label"] = markup(url, 7)
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    cell = nbformat.v4.new_code_cell("%%thread p\ngo")
    cell.outputs = [nbformat.v4.new_output("display_data", data=data)]
    notebook.cells = [cell]
    path = folder / "hostile.ipynb"
    nbformat.write(notebook, path)  # unsigned: JupyterLab opens it untrusted
    return path


def test_a_hostile_saved_view_reads_as_text(
    lab: Lab, browser: Any, pixel_server: tuple[str, list[str]], tmp_path: Path
) -> None:
    url, asked = pixel_server
    path = hostile_notebook(tmp_path, url)
    (lab.root / path.name).write_bytes(path.read_bytes())
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        page.goto(lab.notebook_url(path.name))
        view = page.locator("[data-threadlab=saved] [data-testid=inspector]")
        view.wait_for(timeout=60_000)
        for card in view.locator("[data-testid=tool-card]").all():
            card.locator("summary").first.click()
        page.wait_for_timeout(1000)
        shown = view.inner_text()
        assert "window.__pwned=1" in shown  # the arguments, as text
        assert "<script>window.__pwned=2</script>" in shown  # the model's text, as text
        assert page.evaluate("() => window.__pwned") is None
        assert view.locator("img, script").count() == 0
        assert asked == []
        page.screenshot(path=str(lab.root.parent / "hostile.png"))
    finally:
        page.close()
