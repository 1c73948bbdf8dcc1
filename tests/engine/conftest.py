"""One local Ray for the engine tests (started once, small, no dashboard): the engines of
the tests find it running and send their tasks there."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

KEY = "engine-tests-key"
"""The secret key the local Ray's processes inherit (as from a notebook that set it)."""


@pytest.fixture(scope="session")
def ray_cluster() -> Iterator[Any]:
    ray = pytest.importorskip("ray", reason="the engine tests need Ray (threadlab[ray])")
    before = {name: os.environ.get(name) for name in ("THREADLAB_SECRET_KEY", "PYTHONPATH")}
    # The processes of a local Ray inherit this environment: the key, and the tests' own
    # package for what is pickled by reference.
    os.environ["THREADLAB_SECRET_KEY"] = KEY
    os.environ["PYTHONPATH"] = str(ROOT)
    try:
        ray.init(
            num_cpus=2,
            object_store_memory=100 * 2**20,
            include_dashboard=False,
            log_to_driver=False,
        )
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    yield ray
    ray.shutdown()
