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
