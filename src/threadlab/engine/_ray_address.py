"""The cluster `ray.init` would join for an engine's address, read as Ray reads it and
without connecting: RAY_ADDRESS wins over no address and over "auto", and the address that
`ray start` recorded on this machine comes next."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["joined_address"]

RAY_ADDRESS = "RAY_ADDRESS"


def joined_address(address: str | None) -> str | None:
    """The address Ray connects to for `address`; None: Ray starts a new local instance
    (or, for "auto", finds none it could name without connecting).

    Examples:
        >>> import os; os.environ["RAY_ADDRESS"] = "ray://10.0.0.9:10001"
        >>> joined_address("auto"), joined_address("127.0.0.1:6379")
        ('ray://10.0.0.9:10001', '127.0.0.1:6379')
        >>> del os.environ["RAY_ADDRESS"]
    """
    if address is not None and address != "auto":
        return address
    from_environment = os.environ.get(RAY_ADDRESS, "")
    if from_environment and from_environment != "auto":
        return from_environment
    return _recorded_address()


def _recorded_address() -> str | None:
    """The address of the cluster `ray start` last joined from this machine (a head started
    here, or a node that joined a head elsewhere), as `ray.init` finds it."""
    try:
        from ray._common.utils import get_ray_address_file
    except ImportError:  # Ray not installed, or laid out otherwise: its default place
        import tempfile

        recorded = Path(tempfile.gettempdir()) / "ray" / "ray_current_cluster"
    else:
        recorded = Path(get_ray_address_file(None))
    try:
        return recorded.read_text().strip() or None
    except OSError:
        return None
