from __future__ import annotations

from collections.abc import Iterator

import pytest

from ._server import ScriptedServer, serve


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    yield from serve()
