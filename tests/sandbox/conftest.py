"""Sandbox tests need Deno (a Python dependency) and bubblewrap (a Debian package): both
languages run in a bubblewrap jail. Locally a missing bubblewrap skips these tests with its
name; under CI=true it fails them."""

from __future__ import annotations

import os

import pytest

import threadlab as tl
from threadlab.sandbox import Language
from threadlab.sandbox._deno import check_deno
from threadlab.sandbox._jail import check_jail


def require_jail() -> None:
    try:
        check_jail()
        check_deno()
    except tl.SandboxUnavailableError as exc:
        if os.environ.get("CI") == "true":
            raise
        pytest.skip(f"needs bubblewrap (apt-get install bubblewrap): {exc}")


@pytest.fixture(params=["javascript", "python"])
def language(request: pytest.FixtureRequest) -> Language:
    require_jail()
    chosen: Language = request.param
    return chosen
