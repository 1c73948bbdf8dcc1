from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import threadlab as tl


@pytest.fixture(autouse=True)
def _isolated_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The key file lives in the user's config dir: keep tests out of the real one.
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("THREADLAB_SECRET_KEY", raising=False)


@pytest.fixture
def registry() -> tl.Registry:
    return tl.Registry()


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "store"


@pytest.fixture
def rt(registry: tl.Registry, store_dir: Path) -> Iterator[tl.Runtime]:
    runtime = tl.Runtime(registry, store_dir, secret_key="test-key")
    yield runtime
    runtime.close()


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    from .postgres import postgres_server as start

    yield from start()


@pytest.fixture
def postgres_url(postgres_server: str) -> str:
    """A fresh database on the session's throwaway PostgreSQL server."""
    from .postgres import fresh_database

    return fresh_database(postgres_server)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """What `tl.Runtime(store=...)` takes, for each store: the tests that use it run on both."""
    if request.param == "sqlite":
        return str(tmp_path / "store")
    return str(request.getfixturevalue("postgres_url"))
