"""Whether a host named in a cluster's address is this machine: a cluster whose head is here
reaches a SQLite file here, as a local Ray does."""

from __future__ import annotations

import contextlib
import functools
import socket

__all__ = ["is_this_machine"]

_LOOPBACK = frozenset({"", "localhost", "127.0.0.1", "::1"})
_UNROUTED = ("192.0.2.1", 9)  # TEST-NET-1: a UDP socket's connect picks a route, sends nothing


def is_this_machine(host: str) -> bool:
    """Whether `host` (a name or an address) is this machine's: loopback, its host name or
    what that resolves to, or the address it reaches other machines from — what Ray names a
    node by, and so what `ray start --head` and `ray.cluster_utils` hand out.

    Examples:
        >>> is_this_machine("localhost"), is_this_machine("10.255.255.254")
        (True, False)
    """
    return host in _LOOPBACK or host in _own_names()


@functools.cache
def _own_names() -> frozenset[str]:
    name = socket.gethostname()
    found = {name}
    with contextlib.suppress(OSError):  # a host name nothing resolves
        found.update(socket.gethostbyname_ex(name)[2])
    with (
        contextlib.suppress(OSError),  # no route at all: only loopback is this machine's
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe,
    ):
        probe.connect(_UNROUTED)
        found.add(probe.getsockname()[0])
    return frozenset(found)
