"""A thread's HTML file in the file browser, in JupyterLab with Chromium: rendered in a
sandboxed frame — its script does not run, its remote image is not fetched — with a toggle
to its source, a download link, and a pane the user can resize."""

from __future__ import annotations

from typing import Any

from .conftest import Lab
from .test_lab import open_and_run

PAGE = (
    "<h1 id='t'>Hello</h1><p>styled</p>"
    "<script>document.getElementById('t').textContent = 'ran'</script>"
    "<img src='http://203.0.113.9/pixel.png'>"
)
CELLS = [
    "%load_ext threadlab",
    '%%tool\nasync def publish(state) -> str:\n    """Write the page."""\n'
    f"    await state.write_file('/index.html', {PAGE!r})\n    return 'written'",
    "%%prompt p --tools publish\nx",
    "%%thread p --live\ngo",
]


def test_html_renders_sandboxed_with_its_source_a_toggle_away(lab: Lab, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    fetched: list[str] = []
    page.on("request", lambda request: fetched.append(request.url))
    try:
        open_and_run(lab, page, CELLS, "preview.ipynb")
        view = page.locator(".jp-Notebook .jp-Cell").nth(3).locator("[data-testid=inspector]")
        view.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=60_000)
        view.locator("[data-testid=file][data-path='/index.html']").click()
        frame = view.locator("[data-testid=file-frame]")
        frame.wait_for(timeout=30_000)
        assert frame.get_attribute("sandbox") == ""  # no scripts, no same origin
        inside = view.frame_locator("[data-testid=file-frame]")
        assert inside.locator("#t").inner_text() == "Hello"  # the script did not run
        assert not any("203.0.113.9" in url for url in fetched)  # nor the image load
        download = view.locator("[data-testid=file-download]")
        assert download.get_attribute("download") == "index.html"
        pane = view.locator("[data-testid=preview-pane]")
        assert pane.evaluate("e => getComputedStyle(e).resize") == "vertical"
        pane.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.screenshot(path=str(lab.root.parent / "preview-rendered.png"))
        view.locator("[data-testid=preview-source]").click()
        assert "<script>" in view.locator("[data-testid=file-preview]").inner_text()
        view.locator("[data-testid=preview-source]").click()  # back to the page
        view.locator("[data-testid=file-frame]").wait_for(timeout=10_000)
    finally:
        page.close()
