from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import threadlab as tl

# Tests that start other processes: a Jupyter kernel or server, a browser, PostgreSQL, worker
# or server processes, the sandbox's Deno and Python runners, or a command line tool. They are
# marked `processes`; `make test-fast` runs everything else.
STARTS_PROCESSES = (
    "tests/browser/",
    "tests/notebooks/",
    "tests/sandbox/",
    "tests/mcp/",
    "tests/kernel_ext/test_interrupt.py",
    "tests/runtime/test_workers.py",
    "tests/runtime/test_cross_process_wake_up.py",
    "tests/evaluation/test_by_workers.py",
    "tests/widgets/test_worker_children_view.py",
    "tests/security/test_concurrency.py",
    "tests/security/test_postgres_restart.py",
    "tests/test_docs.py",
    "tests/test_benchmarks.py",
    "tests/test_import_weight.py",
    "tests/test_layers.py",
    "tests/frontend/",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    root = config.rootpath
    for item in items:
        where = item.path.relative_to(root).as_posix() if item.path.is_relative_to(root) else ""
        params = getattr(getattr(item, "callspec", None), "params", {})
        on_postgres = params.get("store_spec") == "postgresql" or any(
            name.startswith("postgres") for name in getattr(item, "fixturenames", ())
        )
        if where.startswith(STARTS_PROCESSES) or on_postgres:
            item.add_marker(pytest.mark.processes)


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
