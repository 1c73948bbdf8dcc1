"""The definitions as a picture: agents and their sides, prompts, tools by kind (function
tools, prompts and agents offered as tools, MCP servers) and the subagent relationships, with
their variables marked (secret, required, scoped).

The graph is laid out here, once, in three columns (agents, prompts, what prompts call), and
drawn from that layout by whoever shows it: `svg` below (a standalone picture, and the static
HTML of a saved notebook), the notebook view from the same nodes and edges. Every text in it
is a name or words a definition holds; none of it is markup.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from html import escape
from typing import Any

from .._errors import DefinitionError
from ._registry import Registry, default_registry
from ._types import AgentDefinition, MCPServerDefinition, PromptDefinition, ToolDefinition
from ._values import Env, Include, Subagent, SubpromptConfig, Text, ToolConfig, Variable

__all__ = ["DefinitionGraph", "GraphEdge", "GraphNode", "graph", "label_lines"]

_COLUMN_OF = {"agent": 0, "prompt": 1, "tool": 2, "mcp_server": 2, "missing": 2}
_COLUMN_X = (150.0, 410.0, 690.0)  # room on the left for the loops between agents
_LEFT = 24.0  # where the first column starts when it is not the agents' (no loops round it)
_NODE_WIDTH = 190.0
_TITLE_HEIGHT = 24.0
_LINE_HEIGHT = 15.0
_GAP = 18.0
_TOP = 16.0
_KIND_WORDS = {
    "agent": "agent",
    "prompt": "prompt",
    "tool": "function tool",
    "mcp_server": "MCP server",
    "missing": "not defined",
}
_DEFINITION_CHARS = 2_000
_LABEL_CHARS = 18  # what fits on a line between two columns


@dataclass(frozen=True)
class GraphNode:
    """One definition, placed."""

    id: str
    """"KIND:NAME"."""
    kind: str
    """"agent", "prompt", "tool", "mcp_server" or "missing" (named but not defined)."""
    name: str
    lines: tuple[str, ...]
    """What it is in a few words, then its variables (secret, required, scoped marked)."""
    definition: str
    """The definition as text: what clicking the node shows."""
    x: float = 0.0
    y: float = 0.0
    width: float = _NODE_WIDTH
    height: float = 0.0
    drawn_name: str = ""
    """The name as the picture draws it: cut with "…" where it is too wide for the node."""
    drawn_lines: tuple[str, ...] = ()
    """`lines` as the picture draws them: a line too wide for the node folded between its
    " · " parts, a part still too wide cut with "…" (the definition, on a click, says it
    whole)."""


@dataclass(frozen=True)
class GraphEdge:
    """How one definition uses another."""

    source: str
    target: str
    label: str
    """"side A", "tool", "prompt tool", "agent tool", "subagent (blocking, max 2)", ..."""
    dashed: bool = False
    """A relationship rather than a call: a subagent, an included prompt."""
    path: str = ""
    """The SVG path it is drawn along."""
    label_x: float = 0.0
    label_y: float = 0.0
    label_anchor: str = "middle"
    """Where the label's text is anchored at (label_x, label_y): "start", "middle", "end"."""


@dataclass(frozen=True)
class DefinitionGraph:
    """The definitions as a picture: `.svg` (str), rendered in a notebook, and as text."""

    target: str | None
    nodes: tuple[GraphNode, ...]
    edges: tuple[GraphEdge, ...]
    width: float
    height: float

    @property
    def svg(self) -> str:
        """The picture as standalone SVG (colours from JupyterLab's theme where it is shown
        inside JupyterLab, light ones elsewhere)."""
        return _svg(self)

    def _repr_html_(self) -> str:
        listed = "".join(
            f"<details><summary><b>{escape(n.name)}</b> · {escape(_KIND_WORDS[n.kind])}"
            f"</summary><pre>{escape(n.definition)}</pre></details>"
            for n in self.nodes
        )
        return f'<div class="tl-graph">{self.svg}{listed}</div>'

    def __repr__(self) -> str:
        return _text(self)

    def state(self) -> dict[str, Any]:
        """The graph as JSON-able data (what a view draws)."""
        return {
            "target": self.target,
            "nodes": [asdict(n) for n in self.nodes],
            "edges": [{**asdict(e), "label_lines": label_lines(e.label)} for e in self.edges],
            "width": self.width,
            "height": self.height,
        }


def graph(target: str | None = None, *, registry: Registry | None = None) -> DefinitionGraph:
    """The definitions of `registry` (the process-wide one by default) as a picture: all of
    them, or what `target` (an agent, prompt or tool) uses, directly or not. Raises
    `DefinitionError` for a target that is not defined, naming the closest one."""
    registry = registry or default_registry()
    built = _Builder(registry)
    if target is None:
        everything: list[AgentDefinition | PromptDefinition | ToolDefinition] = [
            *registry.agents(),
            *registry.prompts(),
            *registry.tools(),
        ]
        for definition in everything:
            built.visit(definition)
        for defined in registry.mcp_servers():
            built.server(defined)
        return _laid_out(target, built.nodes, built.edges)
    found = registry.agent(target) or registry.prompt(target) or registry.tool(target)
    server = registry.mcp_server(target.removeprefix("mcp:"))
    if found is not None:
        built.visit(found)
    elif server is not None:
        built.server(server)
    else:
        raise DefinitionError(_unknown(registry, target))
    return _laid_out(target, built.nodes, built.edges)


def _unknown(registry: Registry, target: str) -> str:
    known = [
        *(d.name for d in registry.agents()),
        *(d.name for d in registry.prompts()),
        *(d.name for d in registry.tools()),
    ]
    close = difflib.get_close_matches(target, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    return f"no agent, prompt or tool is named {target!r}{hint}"


@dataclass
class _Builder:
    registry: Registry
    nodes: dict[str, GraphNode] = field(default_factory=dict)
    edges: list[GraphEdge] = field(default_factory=list)

    def visit(self, definition: AgentDefinition | PromptDefinition | ToolDefinition) -> str:
        if isinstance(definition, AgentDefinition):
            return self.agent(definition)
        if isinstance(definition, PromptDefinition):
            return self.prompt(definition)
        return self.tool(definition)

    def agent(self, agent: AgentDefinition) -> str:
        node_id = f"agent:{agent.name}"
        if node_id in self.nodes:
            return node_id
        lines = [f"agent · {agent.type}"]
        if agent.expose_as_tool:
            lines.append("offered as a tool")
        self.nodes[node_id] = GraphNode(
            node_id, "agent", agent.name, (*lines, *_variables(agent.variables)),
            _agent_text(agent),
        )  # fmt: skip
        for label, side in (("side A", agent.side_a), ("side B", agent.side_b)):
            if side is None:
                continue
            self._edge(node_id, self._named(side.prompt, prefer="prompt"), label)
            for relationship in side.subagents:
                child = self._named(relationship.name, prefer="agent")
                self._edge(node_id, child, _relationship(relationship), dashed=True)
        return node_id

    def prompt(self, prompt: PromptDefinition) -> str:
        node_id = f"prompt:{prompt.name}"
        if node_id in self.nodes:
            return node_id
        lines = [f"prompt · model {_model_name(prompt.model)}"]
        if prompt.expose_as_tool:
            lines.append("offered as a tool")
        self.nodes[node_id] = GraphNode(
            node_id, "prompt", prompt.name, (*lines, *_variables(prompt.variables)),
            _prompt_text(prompt),
        )  # fmt: skip
        for part in prompt.prompt:
            if isinstance(part, Include):
                self._edge(node_id, self._named(part.prompt, prefer="prompt"), "includes", True)
        for entry in prompt.tools:
            name = entry if isinstance(entry, str) else entry.name
            if name.startswith("mcp:"):
                server = self.registry.mcp_server(name.removeprefix("mcp:"))
                used = self.server(server) if server else self._missing(name)
                self._edge(node_id, used, "tools of")
                continue
            used = self._named(name, prefer="tool")
            kind = used.split(":", 1)[0]
            label = {"prompt": "prompt tool", "agent": "agent tool"}.get(kind, "tool")
            if isinstance(entry, SubpromptConfig):
                label += f" → {_shape(entry)}"
            elif isinstance(entry, ToolConfig) and entry.env:
                label += f" · env {', '.join(sorted(entry.env))}"
            self._edge(node_id, used, label)
        return node_id

    def tool(self, tool: ToolDefinition) -> str:
        node_id = f"tool:{tool.name}"
        if node_id not in self.nodes:
            lines = ["function tool"]
            if tool.progress_argument:
                lines.append(f"progress: {tool.progress_argument}")
            if tool.approval is not None:
                lines.append("asks for approval")
            self.nodes[node_id] = GraphNode(
                node_id, "tool", tool.name, (*lines, *_variables(tool.variables)),
                _tool_text(tool),
            )  # fmt: skip
        return node_id

    def server(self, server: MCPServerDefinition) -> str:
        node_id = f"mcp_server:{server.name}"
        if node_id not in self.nodes:
            where = server.where.strip()  # a URL without its credentials
            lines = ["MCP server", _short(where, 34)]
            if server.tools is not None:
                lines.append(f"tools: {', '.join(server.tools) or 'none'}")
            self.nodes[node_id] = GraphNode(
                node_id, "mcp_server", server.name, tuple(lines), _server_text(server)
            )
        return node_id

    def _named(self, name: str, *, prefer: str) -> str:
        """The node of whatever is defined under `name` (a prompt's tool entry may name a
        tool, a prompt or an agent)."""
        order = {"tool": ("tool", "prompt", "agent"), "prompt": ("prompt",),
                 "agent": ("agent",)}[prefer]  # fmt: skip
        for kind in order:
            found = getattr(self.registry, kind)(name)
            if found is not None:
                return self.visit(found)
        return self._missing(name)

    def _missing(self, name: str) -> str:
        node_id = f"missing:{name}"
        if node_id not in self.nodes:
            self.nodes[node_id] = GraphNode(
                node_id, "missing", name, ("not defined (yet)",),
                f"{name}\nnamed by a definition, but nothing of that name is defined",
            )  # fmt: skip
        return node_id

    def _edge(self, source: str, target: str, label: str, dashed: bool = False) -> None:
        edge = GraphEdge(source, target, label, dashed)
        if edge not in self.edges:
            self.edges.append(edge)


def _laid_out(
    target: str | None, nodes: dict[str, GraphNode], edges: list[GraphEdge]
) -> DefinitionGraph:
    """Each node in its kind's column, in the order it was reached; each edge a curve from
    its source to its target, labelled near its target (where the labels of the edges of one
    source part), several into one target stacked. Columns left of the first that holds a
    node are left out: a prompt with no agent starts at the left, not after an empty column."""
    bottoms = [_TOP, _TOP, _TOP]
    placed: dict[str, GraphNode] = {}
    first = min((_COLUMN_OF[node.kind] for node in nodes.values()), default=0)
    shift = _COLUMN_X[first] - _LEFT if first > 0 else 0.0
    for node in nodes.values():
        column = _COLUMN_OF[node.kind]
        drawn_lines = tuple(folded for line in node.lines for folded in _fitted(line))
        height = _TITLE_HEIGHT + _LINE_HEIGHT * len(drawn_lines) + 6
        placed[node.id] = GraphNode(
            **{
                **asdict(node),
                "x": _COLUMN_X[column] - shift,
                "y": bottoms[column],
                "height": height,
                "drawn_name": _clipped(node.name, _NAME_PX),
                "drawn_lines": drawn_lines,
            }
        )
        bottoms[column] += height + _GAP
    arriving: dict[str, int] = {}
    routed = []
    for edge in edges:
        order = arriving[edge.target] = arriving.get(edge.target, -1) + 1
        routed.append(_routed(edge, placed[edge.source], placed[edge.target], order))
    width = _COLUMN_X[-1] - shift + _NODE_WIDTH + 24
    return DefinitionGraph(target, tuple(placed.values()), tuple(routed), width, max(bottoms) + 8)


def _routed(edge: GraphEdge, source: GraphNode, target: GraphNode, order: int) -> GraphEdge:
    """`edge` placed: forwards from the right side of its source to the left side of its
    target; between two agents round their left; otherwise round the right-hand side."""
    sy, ty = source.y + source.height / 2, target.y + target.height / 2
    stack = _LINE_HEIGHT * order
    if target.x > source.x:
        sx, tx = source.x + source.width, target.x
        bend = (tx - sx) / 2
        curve = f"C{sx + bend:.0f},{sy:.0f} {tx - bend:.0f},{ty:.0f}"
        label = (tx - 6, ty - 5 - stack, "end")
    elif source.kind == target.kind == "agent":
        sx = tx = source.x
        reach = sx - 36
        curve = f"C{reach:.0f},{sy:.0f} {reach:.0f},{ty:.0f}"
        label = (reach - 4, (sy + ty) / 2 - stack, "end")
    else:
        sx, tx = source.x + source.width, target.x + target.width
        reach = max(sx, tx) + 36
        curve = f"C{reach:.0f},{sy:.0f} {reach:.0f},{ty:.0f}"
        label = (tx + 6, ty + 14 + stack, "start")
    return GraphEdge(
        edge.source,
        edge.target,
        edge.label,
        edge.dashed,
        f"M{sx:.0f},{sy:.0f} {curve} {tx:.0f},{ty:.0f}",
        round(label[0]),
        round(label[1]),
        label[2],
    )


def label_lines(label: str) -> list[str]:
    """An edge's label on a few short lines: what it is, then how ("subagent" / "blocking,
    max 2"), so that a long one fits between two columns."""
    if " (" in label and label.endswith(")"):
        head, tail = label[:-1].split(" (", 1)
        lines = [head, ""]
        for word in tail.split(", "):  # "blocking, resumable, max 2": as few lines as fit
            joined = f"{lines[-1]}, {word}" if lines[-1] else word
            if len(joined) > _LABEL_CHARS and lines[-1]:
                lines[-1] += ","
                lines.append(word)
            else:
                lines[-1] = joined
        return lines
    for cut in (" → ", " · "):
        if cut in label:
            head, tail = label.split(cut, 1)
            return [head, f"{cut.strip()} {tail}"]
    return [label]


def _variables(variables: tuple[Variable, ...]) -> Iterator[str]:
    for variable in variables:
        marks: list[str] = [variable.type]
        if variable.required:
            marks.append("required")
        if variable.scoped:
            marks.append("scoped")
        yield f"{variable.name} · {' · '.join(marks)}"


def _relationship(relationship: Subagent) -> str:
    words = ["subagent", "blocking" if relationship.blocking else "non-blocking"]
    if relationship.resumable:
        words.append("resumable")
    if relationship.max_instances is not None:
        words.append(f"max {relationship.max_instances}")
    if relationship.hidden:
        words.append("hidden")
    return f"{words[0]} ({', '.join(words[1:])})"


def _shape(config: SubpromptConfig) -> str:
    kept = [
        word
        for word, on in (
            ("text", config.include_text_response),
            ("calls", config.include_tool_calls),
            ("errors", config.include_errors),
        )
        if on
    ]
    return ", ".join(kept) or "nothing"


def _model_name(model: Any) -> str:
    return model if isinstance(model, str) else str(getattr(model, "name", type(model).__name__))


# What a node's text takes on screen, in 1/2048 of the font's size: the widths of DejaVu Sans
# (the sans-serif of Debian's Chromium and most Linux desktops; others are narrower), a
# little over for each class of character, so that what is judged to fit does.
_NARROW = frozenset(" .,:;'!|·ijlIft()[]/-")
_WIDE = frozenset("mwMW%@")
_TEXT_ROOM = _NODE_WIDTH - 16  # 8 px of padding on either side
_SMALL_PX = 11.0
_NAME_PX = 12.0 * 1.1  # the name is bold


def _advance(char: str) -> int:
    if char in _NARROW:
        return 900
    if char in _WIDE:
        return 2050
    if char.isupper() or char.isdigit() or char in "_#&?":
        return 1620
    return 1300


def text_px(text: str, size: float = _SMALL_PX) -> float:
    """About how wide `text` is drawn at `size` px (never much less than it is)."""
    return sum(_advance(char) for char in text) * size / 2048


def _clipped(text: str, size: float = _SMALL_PX) -> str:
    """`text`, cut with "…" where it is wider than a node has room for (measured once, as
    far as it fits: a long name costs no more than a short one)."""
    if text_px(text, size) <= _TEXT_ROOM:
        return text
    room = _TEXT_ROOM * 2048 / size - _advance("…")
    used = 0
    for end, char in enumerate(text):
        used += _advance(char)
        if used > room:
            return text[:end].rstrip() + "…"
    return text.rstrip() + "…"


def _fitted(line: str) -> list[str]:
    """`line` on as many lines as a node needs for it: folded between its " · " parts
    ("DEPLOY_TOKEN · secret · required" / "· scoped"), a part too wide on its own cut."""
    fitted: list[str] = []
    for part in line.split(" · "):
        joined = f"{fitted[-1]} · {part}" if fitted else part
        if fitted and text_px(joined) <= _TEXT_ROOM:
            fitted[-1] = joined
        else:
            fitted.append(_clipped(f"· {part}" if fitted else part))
    return fitted


def _short(text: str, length: int) -> str:
    return text if len(text) <= length else text[: length - 1] + "…"


def _system_text(prompt: PromptDefinition) -> str:
    parts = []
    for part in prompt.prompt:
        if isinstance(part, Text):
            parts.append(part.content)
        elif isinstance(part, Include):
            parts.append(f"{{{{include:{part.prompt}}}}}")
        elif isinstance(part, Env):
            parts.append(f"{{{{env:{part.name}}}}}")
    return "".join(parts)


def _clip(text: str) -> str:
    if len(text) <= _DEFINITION_CHARS:
        return text
    return text[:_DEFINITION_CHARS] + f"… ({len(text) - _DEFINITION_CHARS} more characters)"


def _variables_text(variables: tuple[Variable, ...]) -> list[str]:
    return [f"variable {line}" for line in _variables(variables)]


def _agent_text(agent: AgentDefinition) -> str:
    lines = [f"agent {agent.name} ({agent.type})"]
    if agent.tool_description:
        lines.append(agent.tool_description)
    for label, side in (("side A", agent.side_a), ("side B", agent.side_b)):
        if side is None:
            continue
        ends = (
            ("stop tool", side.stop_tool),
            ("session stop", side.session_stop),
            ("session fail", side.session_fail),
        )
        stops = [f"{k} {v}" for k, v in ends if v]
        lines.append(f"{label}: prompt {side.prompt}" + (f" ({', '.join(stops)})" if stops else ""))
        lines += [f"  {_relationship(r)}: {r.name}" for r in side.subagents]
    lines += _variables_text(agent.variables)
    return _clip("\n".join(lines))


def _prompt_text(prompt: PromptDefinition) -> str:
    lines = [f"prompt {prompt.name} (model {_model_name(prompt.model)})"]
    if prompt.tool_description:
        lines.append(f"as a tool: {prompt.tool_description}")
    tools = [t if isinstance(t, str) else t.name for t in prompt.tools]
    lines.append(f"tools: {', '.join(tools) or 'none'}")
    lines += _variables_text(prompt.variables)
    lines += ["system prompt:", _system_text(prompt)]
    return _clip("\n".join(lines))


def _tool_text(tool: ToolDefinition) -> str:
    lines = [f"tool {tool.name}", tool.description]
    if tool.progress_argument:
        lines.append(f"progress argument: {tool.progress_argument}")
    if tool.approval is not None:
        lines.append("its calls wait for approval")
    lines += _variables_text(tool.variables)
    lines += ["arguments:", json.dumps(tool.args.json_schema, indent=2, default=str)]
    return _clip("\n".join(lines))


def _server_text(server: MCPServerDefinition) -> str:
    lines = [f"MCP server {server.name}"]
    if server.url:
        lines.append(f"url: {server.where}")
    if server.command:
        lines.append(f"command: {' '.join([server.command, *server.args])}")
    if server.tools is not None:
        lines.append(f"tools: {', '.join(server.tools) or 'none'}")
    if server.prefix:
        lines.append(f"prefix: {server.prefix}")
    return _clip("\n".join(lines))


# A picture of its own, light whatever the page around it: it reads the same in a light or a
# dark notebook, an HTML export or a file. (The notebook view draws the same layout in the
# theme's colours.)
_SVG_STYLE = (
    ".tl-g text{font:12px sans-serif;fill:#1f1f1f}"
    ".tl-g .tl-g-small{font-size:11px;fill:#555}"
    ".tl-g rect{fill:#fff;stroke:#9e9e9e;stroke-width:1.2}"
    ".tl-g rect.tl-g-paper{stroke:none}"
    ".tl-g .tl-g-agent rect{stroke:#1976d2;stroke-width:2}"
    ".tl-g .tl-g-prompt rect{stroke:#388e3c}"
    ".tl-g .tl-g-mcp_server rect{stroke:#f57c00}"
    ".tl-g .tl-g-missing rect{stroke:#d32f2f;stroke-dasharray:4 3}"
    ".tl-g path{fill:none;stroke:#777;stroke-width:1.2}"
    ".tl-g path.tl-g-dashed{stroke-dasharray:5 4}"
    ".tl-g path.tl-g-head{fill:#777;stroke:none}"
)


def _svg(drawn: DefinitionGraph) -> str:
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="tl-g" width="{drawn.width:.0f}"'
        f' height="{drawn.height:.0f}" viewBox="0 0 {drawn.width:.0f} {drawn.height:.0f}"'
        f' role="img" aria-label="definitions">',
        f"<style>{_SVG_STYLE}</style>",
        '<defs><marker id="tl-g-arrow" viewBox="0 0 10 10" refX="10" refY="5"'
        ' markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M0,0 L10,5 L0,10 z" class="tl-g-head"/></marker></defs>',
        f'<rect class="tl-g-paper" width="{drawn.width:.0f}" height="{drawn.height:.0f}"/>',
    ]
    for edge in drawn.edges:
        dashed = ' class="tl-g-dashed"' if edge.dashed else ""
        parts.append(f'<path d="{edge.path}"{dashed} marker-end="url(#tl-g-arrow)"/>')
        lines = "".join(
            f'<tspan x="{edge.label_x:.0f}" dy="{0 if i == 0 else _LINE_HEIGHT - 2:.0f}">'
            f"{escape(line)}</tspan>"
            for i, line in enumerate(label_lines(edge.label))
        )
        parts.append(
            f'<text class="tl-g-small" x="{edge.label_x:.0f}" y="{edge.label_y:.0f}"'
            f' text-anchor="{edge.label_anchor}">{lines}</text>'
        )
    for node in drawn.nodes:
        parts.append(f'<g class="tl-g-{node.kind}" data-node="{escape(node.id)}">')
        parts.append(f"<title>{escape(node.definition)}</title>")
        parts.append(
            f'<rect x="{node.x:.0f}" y="{node.y:.0f}" width="{node.width:.0f}"'
            f' height="{node.height:.0f}" rx="5"/>'
        )
        parts.append(
            f'<text x="{node.x + 8:.0f}" y="{node.y + 17:.0f}" font-weight="bold">'
            f"{escape(node.drawn_name)}</text>"
        )
        for index, line in enumerate(node.drawn_lines):
            y = node.y + _TITLE_HEIGHT + _LINE_HEIGHT * index + 8
            parts.append(
                f'<text class="tl-g-small" x="{node.x + 8:.0f}" y="{y:.0f}">{escape(line)}</text>'
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def _text(drawn: DefinitionGraph) -> str:
    counts = {kind: sum(1 for n in drawn.nodes if n.kind == kind) for kind in _KIND_WORDS}
    shown = ", ".join(
        f"{n} {_KIND_WORDS[k]}{'' if n == 1 or k == 'missing' else 's'}"
        for k, n in counts.items()
        if n
    )
    head = f"definitions of {drawn.target}" if drawn.target else "definitions"
    lines = [f"{head}: {shown or 'none'}"]
    for node in drawn.nodes:
        lines.append(f"{_KIND_WORDS[node.kind]} {node.name} ({'; '.join(node.lines[:1])})")
        for line in node.lines[1:]:
            lines.append(f"    {line}")
        for edge in drawn.edges:
            if edge.source == node.id:
                kind, name = edge.target.split(":", 1)
                lines.append(f"  {edge.label} -> {_KIND_WORDS[kind]} {name}")
    return "\n".join(lines)
