"""The kernel's status stays "busy" while a `%%thread` cell runs.

ipykernel handles a widget's comm messages while an async cell runs, and reports each as a
request of its own: "busy", then "idle". A front end shows the last status it saw, so after
the first message from the cell's live view the status bar says "Idle" for the rest of the
run. After each such message, the cell's own "busy" is said again."""

from __future__ import annotations

import asyncio
from typing import Any

__all__ = ["KeepBusy"]

SETTLE_S = 0.05
"""How long after a comm message its "idle" has surely gone out (it follows the handler)."""


class KeepBusy:
    """For the cell running now in `kernel` (None outside a kernel: does nothing)."""

    def __init__(self, kernel: Any) -> None:
        self.kernel = kernel
        self.parent = kernel.get_parent("shell") if kernel is not None else None
        self.running = True

    def touch(self) -> None:
        """A comm message was handled while the cell runs: say "busy" again once its "idle"
        has gone out."""
        if self.kernel is None or not self.running:
            return
        asyncio.get_running_loop().call_later(SETTLE_S, self._busy)

    def _busy(self) -> None:
        kernel, session = self.kernel, getattr(self.kernel, "session", None)
        if not self.running or session is None:
            return
        session.send(
            kernel.iopub_socket,
            "status",
            {"execution_state": "busy"},
            parent=self.parent,
            ident=f"kernel.{kernel.ident}.status".encode(),
        )

    def stop(self) -> None:
        self.running = False
