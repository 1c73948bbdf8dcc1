"""The definitions as a picture, as a view: `%threadlab graph`. The graph is laid out in the
kernel (`tl.graph`); the view draws its nodes and edges and shows a node's definition when it
is clicked, live and in a reopened notebook alike (the definitions are in the saved state)."""

from __future__ import annotations

from typing import Any, Protocol

import traitlets

from .. import Runtime
from ._views import _View

__all__ = ["GraphView"]


class Drawn(Protocol):
    """What `tl.graph` returns, as the view uses it."""

    def state(self) -> dict[str, Any]: ...
    def _repr_html_(self) -> str: ...


class GraphView(_View):
    """`%threadlab graph [TARGET]`'s output."""

    graph = traitlets.Dict().tag(sync=True)

    def __init__(self, rt: Runtime, drawn: Drawn, **kwargs: Any) -> None:
        super().__init__(rt, view="graph", graph=drawn.state(), **kwargs)
        self._drawn = drawn

    def saved_state(self) -> dict[str, Any]:
        return {**super().saved_state(), "graph": self.graph}

    def __repr__(self) -> str:
        return repr(self._drawn)

    def static_html(self) -> str:
        return self._drawn._repr_html_()
