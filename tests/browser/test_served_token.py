"""`%threadlab mcp serve` in JupyterLab with Chromium: the endpoint's bearer token and client
configuration are on screen while the kernel serves, with copy buttons; saved, reopened
without the kernel, neither is in the notebook file nor on the page (the view says where the
token is). Screenshots live and reopened, light and dark."""

from __future__ import annotations

import re
from typing import Any

import pytest

from .conftest import Lab, shown_page
from .test_lab import open_and_run
from .test_live_inspector import shut_down_kernels
from .themes import centre, in_both_themes

pytestmark = pytest.mark.processes  # it starts JupyterLab in Chromium

CELLS = [
    "%load_ext threadlab\nimport threadlab as tl",
    '%%tool\ndef shout(state, text: str) -> str:\n    """Say it loudly."""\n'
    "    return text.upper()",
    "%threadlab mcp serve",
]


def test_the_token_is_on_screen_while_served_and_kept_nowhere(lab: Lab, browser: Any) -> None:
    with shown_page(lab, browser, "served-failure.png") as (page, shots):
        open_and_run(lab, page, CELLS, "served.ipynb")
        endpoint = page.locator("[data-testid=served-endpoint]")
        token = endpoint.locator("[data-testid=served-token]")
        token.wait_for(timeout=60_000)
        secret = token.inner_text().strip()
        assert re.fullmatch(r"[\w-]{20,}", secret)
        assert f"Bearer {secret}" in endpoint.locator("[data-testid=served-config]").inner_text()
        assert "serving shout" in endpoint.inner_text()
        in_both_themes(page, shots / "served-live", show=lambda: centre(endpoint))
        page.keyboard.press("Control+s")
        page.wait_for_timeout(1500)
        shut_down_kernels(lab)
        saved = (lab.root / "served.ipynb").read_text()
        assert "serving shout" in saved  # the output is kept...
        assert secret not in saved  # ...without the token
        page.reload()
        gone = page.locator("[data-testid=served-token-gone]")
        gone.wait_for(timeout=60_000)
        assert secret not in page.inner_text("body")
        assert "Error displaying widget" not in page.inner_text("body")
        in_both_themes(page, shots / "served-reopened", show=lambda: centre(gone))
        print(f"screenshots: {shots}")
