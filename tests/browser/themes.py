"""Screenshots of a view in JupyterLab's light and dark themes, as a person checks both."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any


def set_theme(page: Any, theme: str) -> None:
    """Choose `theme` from the Settings menu, as a person does, and wait until it applies."""
    page.locator(".lm-MenuBar-itemLabel", has_text="Settings").click()
    page.locator(".lm-Menu-itemLabel", has_text="Theme").first.hover()
    page.get_by_text(theme, exact=True).click()
    light = "true" if theme == "JupyterLab Light" else "false"
    page.wait_for_selector(f"body[data-jp-theme-light='{light}']", state="attached", timeout=30_000)
    page.wait_for_timeout(500)


def centre(element: Any) -> None:
    """Scroll `element` to the middle of the window."""
    element.evaluate("e => e.scrollIntoView({block: 'center'})")


def in_both_themes(
    page: Any,
    path: Path,
    *,
    show: Callable[[], None] = lambda: None,
    of: Any = None,
) -> None:
    """`path`-light.png and `path`-dark.png (of the element `of`, else the page) after `show`
    brings the view into sight in each theme (a theme change reflows it); the light theme
    is left on."""
    for theme, suffix in (("JupyterLab Light", "light"), ("JupyterLab Dark", "dark")):
        if suffix == "dark":
            set_theme(page, theme)
        show()
        (of if of is not None else page).screenshot(path=f"{path}-{suffix}.png")
    set_theme(page, "JupyterLab Light")
