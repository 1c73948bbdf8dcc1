from __future__ import annotations

import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

import pytest

import threadlab as tl

# The tests run in the interpreter that runs them, whatever virtualenv the calling shell has
# active: IPython warns (an error here) when VIRTUAL_ENV names another.
if (
    os.environ.get("VIRTUAL_ENV")
    and Path(os.environ["VIRTUAL_ENV"]).resolve() != Path(sys.prefix).resolve()
):
    os.environ["VIRTUAL_ENV"] = sys.prefix


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # A test on PostgreSQL starts its server (the `store_spec` parameter or a postgres
    # fixture): it is marked `processes` like the modules that say so themselves.
    for item in items:
        params = getattr(getattr(item, "callspec", None), "params", {})
        if params.get("store_spec") == "postgresql" or any(
            name.startswith("postgres") for name in getattr(item, "fixturenames", ())
        ):
            item.add_marker(pytest.mark.processes)


@pytest.fixture(autouse=True)
def _starts_no_process_unless_marked(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A test not marked `processes` that starts one fails, naming it: `make test-fast` runs
    exactly the tests that start none, and the marker says what a test does."""
    if request.node.get_closest_marker("processes") is not None:
        return

    def refuse(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError(
            f"{request.node.nodeid} starts a process ({args[:2]!r}): mark it"
            " `pytestmark = pytest.mark.processes`, or keep it in this process"
        )

    monkeypatch.setattr(subprocess.Popen, "_execute_child", refuse)
    monkeypatch.setattr(os, "fork", refuse)
    monkeypatch.setattr(os, "posix_spawn", refuse)
    monkeypatch.setattr(os, "posix_spawnp", refuse)


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


RAY_KEY = "engine-tests-key"
"""The secret key the tests' local Ray's processes inherit (as from a notebook that set it)."""


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[Any]:
    """One local Ray for the tests that run on it (started once, small, no dashboard): their
    engines find it running and send their tasks there."""
    ray = pytest.importorskip("ray", reason="the engine tests need Ray (threadlab[ray])")
    from threadlab.engine._local_start import start_local_ray

    before = {name: os.environ.get(name) for name in ("THREADLAB_SECRET_KEY", "PYTHONPATH")}
    # The processes of a local Ray inherit this environment: the key, and the tests' own
    # package for what is pickled by reference.
    os.environ["THREADLAB_SECRET_KEY"] = RAY_KEY
    os.environ["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    try:
        start_local_ray(
            ray,
            num_cpus=2,
            object_store_memory=100 * 2**20,
            include_dashboard=False,
            log_to_driver=False,
            logging_level=logging.ERROR,
        )
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    yield ray
    ray.shutdown()
