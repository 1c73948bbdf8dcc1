"""The engine tests share the session's local Ray (`ray_cluster`, in tests/conftest.py)."""

from __future__ import annotations

from ..conftest import RAY_KEY as KEY

__all__ = ["KEY"]
