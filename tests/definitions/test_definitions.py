from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

import threadlab as tl


def noop(state: Any, args: Any) -> None:
    return None


class Args(BaseModel):
    description: str | None = None
    count: int = 0


@pytest.mark.parametrize("name", sorted(tl.RESERVED_TOOL_NAMES))
def test_reserved_names_cannot_be_defined(name: str, registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match="reserved"):
        tl.define_tool(name, description="x", execute=noop, registry=registry)
    with pytest.raises(tl.DefinitionError, match="reserved"):
        tl.define_prompt(name, prompt="x", registry=registry)
    with pytest.raises(tl.DefinitionError, match="reserved"):
        tl.define_agent(name, side_a="p", registry=registry)


@pytest.mark.parametrize("name", ["", "has space", "1starts_with_digit", "x" * 65, "dot.ted"])
def test_invalid_names_are_rejected_with_the_rule(name: str, registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match="letters, digits"):
        tl.define_tool(name, description="x", execute=noop, registry=registry)


def test_progress_argument_must_be_a_string_property(registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match=r"'missing'.*description, count"):
        tl.define_tool(
            "t",
            description="x",
            execute=noop,
            args=Args,
            progress_argument="missing",
            registry=registry,
        )
    with pytest.raises(tl.DefinitionError, match="progress_argument 'count'"):
        tl.define_tool(
            "t",
            description="x",
            execute=noop,
            args=Args,
            progress_argument="count",
            registry=registry,
        )
    # A nullable string counts.
    tl.define_tool(
        "t",
        description="x",
        execute=noop,
        args=Args,
        progress_argument="description",
        registry=registry,
    )
    schema = {"type": "object", "properties": {"d": {"type": ["string", "null"]}}}
    tl.define_tool(
        "u", description="x", execute=noop, args=schema, progress_argument="d", registry=registry
    )


def test_progress_argument_on_a_tool_without_args_is_an_error(registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match="declared properties: none"):
        tl.define_tool("t", description="x", execute=noop, progress_argument="d", registry=registry)


def test_bad_args_schemas_are_definition_errors(registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match='"type": "object"'):
        tl.define_tool(
            "t", description="x", execute=noop, args={"type": "string"}, registry=registry
        )
    with pytest.raises(tl.DefinitionError, match="not a valid JSON Schema"):
        tl.define_tool(
            "t",
            description="x",
            execute=noop,
            args={"type": "object", "properties": 3},
            registry=registry,
        )
    with pytest.raises(tl.DefinitionError, match="pydantic BaseModel subclass"):
        tl.define_tool("t", description="x", execute=noop, args=[1], registry=registry)  # type: ignore[arg-type]


def test_execute_must_be_callable(registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match="execute must be callable"):
        tl.define_tool("t", description="x", execute="nope", registry=registry)  # type: ignore[arg-type]


def test_a_hook_id_listed_twice_is_an_error(registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match="hook id 'h' is listed twice"):
        tl.define_prompt("p", prompt="x", hooks=["h", "h"], registry=registry)
    with pytest.raises(tl.DefinitionError, match="hook id 'h' is listed twice"):
        tl.define_agent("a", side_a="p", hooks=["h", "h"], registry=registry)


def test_hook_definitions_are_checked(registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match="unknown hook 'on_whatever'"):
        tl.define_hook(hook="on_whatever", id="h", execute=noop, registry=registry)  # type: ignore[arg-type]
    with pytest.raises(tl.DefinitionError, match="snake_case"):
        tl.define_hook(hook="filter_messages", id="Bad-Id", execute=noop, registry=registry)


def test_a_prompt_tools_entry_cannot_configure_a_subagent(registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match="declare the relationship on the owning side"):
        tl.define_prompt("p", prompt="x", tools=[tl.Subagent("w")], registry=registry)  # type: ignore[list-item]
    with pytest.raises(tl.DefinitionError, match="cannot configure a subagent"):
        tl.define_prompt(
            "p",
            prompt="x",
            tools=[{"name": "w", "blocking": False}],  # type: ignore[list-item]
            registry=registry,
        )
    with pytest.raises(tl.DefinitionError, match="reserved lifecycle tool"):
        tl.define_prompt("p", prompt="x", tools=["subagent_create"], registry=registry)


def test_a_variable_declared_twice_is_an_error(registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match="variable 'A' is declared twice"):
        tl.define_tool(
            "t",
            description="x",
            execute=noop,
            variables=[tl.Variable("A"), tl.Variable("A")],
            registry=registry,
        )


def test_agent_shapes_are_checked(registry: tl.Registry) -> None:
    with pytest.raises(tl.DefinitionError, match="dual_ai agent needs side_b"):
        tl.define_agent("a", side_a="p", type="dual_ai", registry=registry)
    with pytest.raises(tl.DefinitionError, match="one AI side"):
        tl.define_agent("a", side_a="p", side_b="q", registry=registry)
    with pytest.raises(tl.DefinitionError, match="type must be"):
        tl.define_agent("a", side_a="p", type="triple", registry=registry)  # type: ignore[arg-type]


def test_redefining_with_the_same_kind_replaces(registry: tl.Registry) -> None:
    first = tl.define_tool("t", description="one", execute=noop, registry=registry)
    second = tl.define_tool("t", description="two", execute=noop, registry=registry)
    assert registry.tool("t") is second is not first


def test_redefining_as_another_kind_raises(registry: tl.Registry) -> None:
    tl.define_tool("shared", description="x", execute=noop, registry=registry)
    with pytest.raises(tl.DefinitionError, match="already defined as a tool"):
        tl.define_prompt("shared", prompt="x", registry=registry)


async def test_an_unknown_target_names_it_and_lists_what_is_defined(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_prompt("helper", prompt="x", registry=registry)
    tl.define_agent("assistant", side_a="helper", registry=registry)
    with pytest.raises(tl.DefinitionError) as info:
        await rt.create_thread("nobody")
    assert str(info.value) == (
        "unknown target 'nobody': it is neither a defined agent nor a prompt"
        " (agents: assistant; prompts: helper)"
    )


async def test_references_to_undefined_names_are_reported_at_create_thread(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_prompt("p", prompt="x", tools=["missing_tool"], registry=registry)
    with pytest.raises(tl.DefinitionError, match="lists tool 'missing_tool', which is not defined"):
        await rt.create_thread("p")
    tl.define_agent("a", side_a="no_prompt", registry=registry)
    with pytest.raises(tl.DefinitionError, match="refers to prompt 'no_prompt'"):
        await rt.create_thread("a")
    tl.define_prompt("m", prompt="x", model="no_model", registry=registry)
    with pytest.raises(tl.DefinitionError, match="model 'no_model', which is not defined"):
        await rt.create_thread("m")


def test_value_types_take_their_first_field_positionally() -> None:
    assert tl.Variable("REGION", scoped=True).scoped
    assert tl.Side("w_a", session_stop="finish").prompt == "w_a"
    assert tl.Subagent("helper").name == "helper"
    assert tl.SubpromptConfig("researcher", include_errors=False).name == "researcher"
    assert tl.ToolConfig("search", env={"K": "v"}).env == {"K": "v"}
    assert tl.Text("hi").content == "hi"
    assert tl.Include("other").prompt == "other"
    assert tl.Env("NAME").name == "NAME"
    assert tl.ToolCall("id1", "echo", {"a": 1}).name == "echo"


def test_prompt_strings_are_split_into_parts(registry: tl.Registry) -> None:
    prompt = tl.define_prompt(
        "p", prompt="Hi {{env:USER}}, see {{ include:other }}.", registry=registry
    )
    assert prompt.prompt == (
        tl.Text("Hi "),
        tl.Env("USER"),
        tl.Text(", see "),
        tl.Include("other"),
        tl.Text("."),
    )


async def test_an_include_cycle_fails_the_run_with_a_clear_error(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_prompt("a", prompt="{{include:b}}", registry=registry)
    tl.define_prompt("b", prompt="{{include:a}}", registry=registry)
    thread = await rt.create_thread("a")
    run = await thread.send("hi")
    assert run.status == "failed"
    assert "prompt includes form a cycle: a -> b -> a" in (run.error or "")


async def test_a_thread_whose_definitions_are_gone_can_be_read_but_not_sent_to(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_prompt("temp", prompt="x", registry=registry)
    thread = await rt.create_thread("temp")
    await thread.send("hello")
    registry.remove("temp")
    reopened = tl.Runtime(registry, rt.store).thread(thread.id)
    assert [m.role for m in reopened.messages] == ["user", "assistant"]
    with pytest.raises(tl.DefinitionError, match="unknown target 'temp'"):
        await reopened.send("again")


def test_tool_choice_is_a_mode_or_one_of_the_prompts_own_tools(registry: tl.Registry) -> None:
    tl.define_tool("search", description="Search.", execute=lambda s, a: "", registry=registry)
    for choice in ("auto", "none", "required", "search"):
        prompt = tl.define_prompt(
            "p", prompt="x", tools=["search"], tool_choice=choice, registry=registry
        )
        assert prompt.tool_choice == choice
    with pytest.raises(tl.DefinitionError, match=r"tool_choice 'serach' .* \(tools: search\)"):
        tl.define_prompt("p", prompt="x", tools=["search"], tool_choice="serach", registry=registry)
    with pytest.raises(tl.DefinitionError, match="tool_choice 'search'"):
        tl.define_prompt("q", prompt="x", tool_choice="search", registry=registry)


async def test_a_required_variable_given_by_a_tool_config_resolves_for_that_tool(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    tl.define_tool(
        "search",
        description="Search.",
        execute=lambda s, a: "",
        variables=[tl.Variable("INDEX", required=True)],
        registry=registry,
    )
    tl.define_tool("other", description="Other.", execute=lambda s, a: "", registry=registry)
    tools: list[tl.ToolConfig | str] = [tl.ToolConfig("search", env={"INDEX": "docs"}), "other"]
    tl.define_prompt("p", prompt="x", tools=tools, registry=registry)
    thread = await rt.create_thread("p")  # the value exists where it is declared: no error
    assert thread.agent == "p"


def test_a_definition_reads_as_what_was_given(registry: tl.Registry) -> None:
    """A notebook shows the value a define_* call returns when it ends a cell."""

    def fan_out(messages: Any, tools: Any) -> Any:
        return tl.models.text("x")

    prompt = tl.define_prompt("dispatch", prompt="Fan out.", registry=registry,
                              model=tl.models.FunctionModel(fan_out))  # fmt: skip
    assert repr(prompt) == (
        "PromptDefinition(name='dispatch', prompt=(Text(content='Fan out.'),),"
        " model=FunctionModel(fan_out))"
    )
    scripted = tl.models.ScriptedModel([tl.models.text("a")])
    assert repr(scripted) == "ScriptedModel(1 step, 1 left)"
    assert "object at 0x" not in repr(tl.define_prompt("s", prompt="x", model=scripted,
                                                       registry=registry))  # fmt: skip
