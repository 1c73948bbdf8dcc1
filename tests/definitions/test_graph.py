"""tl.graph: the definitions as a picture — agents and their sides, prompts, tools by kind,
subagent relationships and variables — laid out once, drawn as SVG and told as text."""

from __future__ import annotations

import re
from xml.etree import ElementTree

import pytest

import threadlab as tl


def studio(registry: tl.Registry) -> None:
    async def write_file(state: tl.ThreadState, description: str, path: str) -> str:
        """Write a file.

        Args:
            description: what it does
            path: where
        """
        return "ok"

    tl.tool(progress_argument="description", registry=registry)(write_file)
    tl.define_tool(
        "deploy",
        description="Deploy <b>now</b> & then",
        execute=lambda s, a: "ok",
        approval="always",
        variables=[
            tl.Variable("DEPLOY_TOKEN", type="secret", required=True),
            tl.Variable("REGION", scoped=True),
        ],
        registry=registry,
    )
    tl.define_tool("unused", description="Nobody calls it.", execute=lambda s, a: 1,
                   registry=registry)  # fmt: skip
    tl.define_prompt("summarise", prompt="Summarise.", expose_as_tool=True, registry=registry)
    tl.define_prompt(
        "builder",
        prompt="You build pages.",
        tools=["write_file", tl.SubpromptConfig("summarise", include_tool_calls=False)],
        registry=registry,
    )
    tl.define_mcp_server("docs", command="npx", args=["-y", "docs-server"], registry=registry)
    tl.define_prompt(
        "lead",
        prompt=[tl.Text("You lead. "), tl.Include("builder")],
        tools=["deploy", "mcp:docs", "nope"],
        registry=registry,
    )
    tl.define_agent("site_builder", side_a=tl.Side("builder"), expose_as_tool=True,
                    tool_description="Builds a site.", registry=registry)  # fmt: skip
    relationship = tl.Subagent("site_builder", max_instances=2, resumable=True)
    tl.define_agent("studio", side_a=tl.Side("lead", subagents=[relationship]), registry=registry)


def test_what_an_agent_uses_is_drawn_with_how_it_uses_it(registry: tl.Registry) -> None:
    studio(registry)
    drawn = tl.graph("studio", registry=registry)
    assert [n.id for n in drawn.nodes] == [
        "agent:studio", "prompt:lead", "prompt:builder", "tool:write_file", "prompt:summarise",
        "tool:deploy", "mcp_server:docs", "missing:nope", "agent:site_builder",
    ]  # fmt: skip
    edges = {(e.source, e.target): (e.label, e.dashed) for e in drawn.edges}
    assert edges == {
        ("agent:studio", "prompt:lead"): ("side A", False),
        ("agent:studio", "agent:site_builder"): ("subagent (blocking, resumable, max 2)", True),
        ("prompt:lead", "prompt:builder"): ("includes", True),
        ("prompt:lead", "tool:deploy"): ("tool", False),
        ("prompt:lead", "mcp_server:docs"): ("tools of", False),
        ("prompt:lead", "missing:nope"): ("tool", False),
        ("prompt:builder", "tool:write_file"): ("tool", False),
        ("prompt:builder", "prompt:summarise"): ("prompt tool → text, errors", False),
        ("agent:site_builder", "prompt:builder"): ("side A", False),
    }
    deploy = next(n for n in drawn.nodes if n.name == "deploy")
    assert deploy.lines == (
        "function tool",
        "asks for approval",
        "DEPLOY_TOKEN · secret · required",
        "REGION · text · scoped",
    )
    assert "unused" not in {n.name for n in drawn.nodes}  # studio never calls it
    assert "tool:unused" in {n.id for n in tl.graph(registry=registry).nodes}


def test_the_layout_puts_each_kind_in_its_column_and_nothing_on_top_of_anything(
    registry: tl.Registry,
) -> None:
    studio(registry)
    drawn = tl.graph(registry=registry)
    columns = {n.kind: n.x for n in drawn.nodes}
    assert columns["agent"] < columns["prompt"] < columns["tool"] == columns["mcp_server"]
    for a in drawn.nodes:
        for b in drawn.nodes:
            if a is not b and a.x == b.x:
                assert a.y + a.height <= b.y or b.y + b.height <= a.y, (a.id, b.id)
    at = {n.id: n for n in drawn.nodes}
    for edge in drawn.edges:
        start, end = (
            tuple(map(float, p.split(","))) for p in re.findall(r"-?\d+,-?\d+", edge.path)[::3]
        )
        source, target = at[edge.source], at[edge.target]
        assert start[1] == pytest.approx(source.y + source.height / 2, abs=1)
        assert end[1] == pytest.approx(target.y + target.height / 2, abs=1)
        assert 0 <= edge.label_x <= drawn.width
        assert 0 <= edge.label_y <= drawn.height


def test_a_graph_with_no_agent_starts_at_the_left_not_after_an_empty_column(
    registry: tl.Registry,
) -> None:
    studio(registry)
    whole = tl.graph("studio", registry=registry)
    builder = tl.graph("builder", registry=registry)  # a prompt and what it calls: no agent
    assert {n.kind for n in builder.nodes} == {"prompt", "tool"}
    left = min(n.x for n in builder.nodes)
    assert left == min(n.x for n in whole.nodes if n.kind == "prompt") - (
        whole.width - builder.width
    )  # every node moved left by what the width lost
    assert 0 < left < min(n.x for n in whole.nodes)  # left of where the agents start
    for edge in builder.edges:  # its curves and labels moved with the nodes
        xs = [float(p.split(",")[0]) for p in re.findall(r"-?\d+,-?\d+", edge.path)]
        assert 0 <= min(xs) <= max(xs) <= builder.width
        assert 0 <= edge.label_x <= builder.width
    only_tool = tl.graph("write_file", registry=registry)
    assert [n.x for n in only_tool.nodes] == [left]


def test_the_svg_is_well_formed_and_its_texts_are_only_text(registry: tl.Registry) -> None:
    studio(registry)
    tl.define_prompt("hostile", prompt="</text><script>alert(1)</script>", registry=registry)
    drawn = tl.graph(registry=registry)
    root = ElementTree.fromstring(drawn.svg)  # well-formed: every text escaped
    svg = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{svg}svg"
    assert list(root.iter(f"{svg}script")) == []
    titles = [t.text or "" for t in root.iter(f"{svg}title")]
    assert any("</text><script>alert(1)</script>" in t for t in titles)  # text, once parsed
    assert any("Deploy <b>now</b> & then" in t for t in titles)
    html = drawn._repr_html_()
    assert "<script>" not in html
    assert "&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_name_or_line_too_wide_for_its_node_is_folded_or_cut_and_the_node_grows(
    registry: tl.Registry,
) -> None:
    from threadlab.definitions._graph import text_px

    tl.define_tool(
        "publish_the_whole_site_to_every_region_at_once",
        description="Publish.",
        execute=lambda s, a: "ok",
        variables=[
            tl.Variable("DEPLOY_TOKEN", type="secret", required=True),
            tl.Variable("A_VERY_LONG_VARIABLE_NAME_INDEED_FOR_A_TOKEN", scoped=True),
            tl.Variable("REGION"),
        ],
        registry=registry,
    )
    (node,) = tl.graph(registry=registry).nodes
    room = node.width - 16
    assert text_px(node.drawn_name, 12 * 1.1) <= room
    assert node.drawn_name.endswith("…")
    assert node.name.startswith(node.drawn_name[:-1])
    assert all(text_px(line) <= room for line in node.drawn_lines), node.drawn_lines
    # Folded between its parts: nothing of a line lost that fits on a line of its own.
    assert node.drawn_lines[:3] == ("function tool", "DEPLOY_TOKEN · secret", "· required")
    assert node.drawn_lines[3].startswith("A_VERY_LONG")
    assert node.drawn_lines[3].endswith("…")
    assert node.drawn_lines[4:] == ("· text · scoped", "REGION · text")
    assert node.lines[1] == "DEPLOY_TOKEN · secret · required"  # as written, for the text
    assert node.height >= 24 + 15 * len(node.drawn_lines)
    svg = tl.graph(registry=registry).svg
    assert "· required</text>" in svg
    assert f'font-weight="bold">{node.drawn_name}</text>' in svg


def test_the_text_tells_each_definition_and_what_it_uses(registry: tl.Registry) -> None:
    studio(registry)
    told = repr(tl.graph("site_builder", registry=registry)).splitlines()
    assert told == [
        "definitions of site_builder: 1 agent, 2 prompts, 1 function tool",
        "agent site_builder (agent · ai_human)",
        "    offered as a tool",
        "  side A -> prompt builder",
        "prompt builder (prompt · model offline)",
        "  tool -> function tool write_file",
        "  prompt tool → text, errors -> prompt summarise",
        "function tool write_file (function tool)",
        "    progress: description",
        "prompt summarise (prompt · model offline)",
        "    offered as a tool",
    ]


def test_an_unknown_target_names_the_closest_definition(registry: tl.Registry) -> None:
    studio(registry)
    with pytest.raises(
        tl.DefinitionError,
        match="no agent, prompt or tool is named 'studoi'; did you mean 'studio'",
    ):
        tl.graph("studoi", registry=registry)
    assert [n.id for n in tl.graph("mcp:docs", registry=registry).nodes] == ["mcp_server:docs"]
