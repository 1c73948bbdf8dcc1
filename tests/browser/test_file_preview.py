"""A thread's HTML file in the file browser, in JupyterLab with Chromium: rendered in a
sandboxed frame — its script does not run, its image from another server is not fetched —
with a toggle to its source, a download link, and a pane the user can resize; Markdown
rendered in the same frame, everything it says escaped first."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import Lab
from .test_lab import open_and_run

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

NOTES = (
    "# Notes\n\nA **bold** start and `code`.\n\n- first\n- second\n\n"
    "<script>parent.document.title = 'ran'</script>\n"
    "[safe](https://example.org) and [not](javascript:alert(1))\n"
    "```\n<b>kept as text</b>\n```\n"
)


def cells(image_url: str) -> list[str]:
    page = (
        "<h1 id='t'>Hello</h1><p>styled</p>"
        "<script>document.getElementById('t').textContent = 'ran'</script>"
        f"<img src='{image_url}'>"
    )
    return [
        "%load_ext threadlab",
        '%%tool\nasync def publish(state) -> str:\n    """Write the page."""\n'
        f"    await state.write_file('/index.html', {page!r})\n"
        f"    await state.write_file('/notes.md', {NOTES!r})\n"
        "    await state.write_file('/attachments/reports/weekly.txt', 'tea')\n"
        "    return 'written'",
        "%%prompt p --tools publish\nx",
        "%%thread p --live\ngo",
    ]


def settled(image: Any) -> bool:
    """Whether the image finished loading or failing (polled: the frame runs no script)."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        if image.evaluate("i => i.complete"):
            return True
        time.sleep(0.1)
    return False


def test_html_renders_sandboxed_with_its_source_a_toggle_away(
    lab: Lab, browser: Any, pixel_server: tuple[str, list[str]]
) -> None:
    image_url, asked = pixel_server
    page = browser.new_page(viewport={"width": 1400, "height": 900})
    try:
        open_and_run(lab, page, cells(image_url), "preview.ipynb")
        view = page.locator(".jp-Notebook .jp-Cell").nth(3).locator("[data-testid=inspector]")
        view.locator("[data-testid=run-status]", has_text="completed").wait_for(timeout=60_000)
        # Each path shows whole in the pane, a long one folded between its folders.
        browser_pane = view.locator("[data-testid=file-browser]")
        cut = browser_pane.evaluate(
            """(pane) => [...pane.querySelectorAll("[data-testid=file]")]
              .filter((f) => f.getBoundingClientRect().right > pane.getBoundingClientRect().right
                || f.scrollWidth > f.clientWidth)
              .map((f) => f.dataset.path)"""
        )
        assert cut == []
        weekly = view.locator("[data-testid=file][data-path='/attachments/reports/weekly.txt']")
        assert weekly.inner_text().replace("\n", "") == "/attachments/reports/weekly.txt"
        browser_pane.evaluate("e => e.scrollIntoView({block: 'center'})")
        page.screenshot(path=str(lab.root.parent / "files-pane.png"))
        listed = view.locator("[data-testid=file][data-path='/index.html']")
        assert listed.get_attribute("title") == "/index.html"  # the whole path, on hover
        listed.click()
        frame = view.locator("[data-testid=file-frame]")
        frame.wait_for(timeout=30_000)
        assert frame.get_attribute("sandbox") == ""  # no scripts, no same origin
        inside = view.frame_locator("[data-testid=file-frame]")
        assert inside.locator("#t").inner_text() == "Hello"  # the script did not run
        image = inside.locator("img")
        assert settled(image)
        assert image.evaluate("i => i.naturalWidth") == 0  # nor did the image load
        assert asked == []
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
        # Markdown renders in the same sandboxed frame; what it says is text, not markup.
        view.locator("[data-testid=file][data-path='/notes.md']").click()
        notes = view.frame_locator("[data-testid=file-frame]")
        notes.locator("h1", has_text="Notes").wait_for(timeout=30_000)
        assert notes.locator("strong").inner_text() == "bold"
        assert notes.locator("li").count() == 2
        assert "<script>" in notes.locator("body").inner_text()
        assert notes.locator("a").count() == 1
        assert notes.locator("a").get_attribute("href") == "https://example.org"
        assert notes.locator("pre").inner_text().strip() == "<b>kept as text</b>"
        assert notes.locator("script, b").count() == 0
    finally:
        page.close()
