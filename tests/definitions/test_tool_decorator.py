from __future__ import annotations

from typing import Literal

import pytest

import threadlab as tl
from threadlab.models import call, text

from ..helpers import scripted_prompt


def test_schema_descriptions_and_defaults_come_from_hints_and_a_google_docstring(
    registry: tl.Registry,
) -> None:
    @tl.tool(registry=registry, progress_argument="description")
    async def write_file(
        state: tl.ThreadState, description: str, path: str, mode: Literal["w", "a"] = "w"
    ) -> str:
        """Write a file to the workspace.

        More detail that is not the description.

        Args:
            description: what the call does, e.g. "writing index.html"
            path (str): where to write,
                across two lines
            mode: write or append

        Returns:
            a message
        """
        return "ok"

    assert isinstance(write_file, tl.ToolDefinition)
    assert write_file.name == "write_file"
    assert write_file.description == "Write a file to the workspace."
    props = write_file.args.json_schema["properties"]
    assert props["description"]["description"] == 'what the call does, e.g. "writing index.html"'
    assert props["path"]["description"] == "where to write, across two lines"
    assert props["mode"]["enum"] == ["w", "a"]
    assert props["mode"]["default"] == "w"
    assert write_file.args.json_schema["required"] == ["description", "path"]
    assert "state" not in props
    assert registry.tool("write_file") is write_file


def test_numpy_docstrings_are_understood(registry: tl.Registry) -> None:
    @tl.tool(registry=registry)
    def scale(ctx: object, value: float, factor: int = 2) -> float:
        """Scale a value.

        Parameters
        ----------
        value : float
            The number to scale.
        factor : int
            How much.

        Returns
        -------
        float
        """
        return value * factor

    props = scale.args.json_schema["properties"]
    assert props["value"]["description"] == "The number to scale."
    assert props["factor"]["description"] == "How much."
    assert scale.description == "Scale a value."


def test_plain_decorator_and_no_arguments(registry: tl.Registry) -> None:
    @tl.tool(name="now", registry=registry)
    def current_time(state: tl.ThreadState) -> str:
        return "noon"

    assert current_time.name == "now"
    assert current_time.args.json_schema["properties"] == {}
    assert current_time.description == "Run now."


def test_a_function_without_a_state_parameter_is_a_definition_error(
    registry: tl.Registry,
) -> None:
    with pytest.raises(tl.DefinitionError, match="first parameter for the thread state"):
        tl.tool(registry=registry)(lambda: None)


def test_varargs_are_rejected(registry: tl.Registry) -> None:
    def many(state: object, *items: str) -> None:
        return None

    with pytest.raises(tl.DefinitionError, match=r"\*args and \*\*kwargs"):
        tl.tool(registry=registry)(many)


async def test_the_decorated_function_runs_with_keyword_arguments(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    @tl.tool(registry=registry)
    def add(state: tl.ThreadState, a: int, b: int = 10) -> int:
        """Add."""
        return a + b

    scripted_prompt(registry, [call("add", {"a": 5}), text("ok")], tools=["add"])
    thread = await rt.create_thread("p")
    await thread.send("go")
    assert thread.messages[2].content == "15"


def test_one_decorator_object_can_define_several_tools(registry: tl.Registry) -> None:
    decorate = tl.tool(registry=registry)

    @decorate
    def first(state: tl.ThreadState) -> str:
        """The first tool."""
        return "1"

    @decorate
    def second(state: tl.ThreadState) -> str:
        """The second tool."""
        return "2"

    assert (first.name, first.description) == ("first", "The first tool.")
    assert (second.name, second.description) == ("second", "The second tool.")
