"""What a registry and a runtime answer about definitions without running anything."""

from __future__ import annotations

from pathlib import Path

import pytest

import threadlab as tl


def registry() -> tl.Registry:
    reg = tl.Registry()

    @tl.tool(registry=reg)
    def delete(state: tl.ThreadState, path: str) -> str:
        """Delete a file."""
        return path

    tl.define_prompt(
        "p",
        prompt="x",
        tools=["delete"],
        variables=[tl.Variable("TOKEN", type="secret"), tl.Variable("REGION")],
        registry=reg,
    )
    tl.define_prompt("broken", prompt="x", tools=["missing"], registry=reg)
    return reg


def test_check_arguments_names_what_the_schema_refuses() -> None:
    reg = registry()
    assert reg.check_arguments("delete", {"path": "a.txt"}) == []
    assert reg.check_arguments("delete", {"path": 3})
    assert reg.check_arguments("delete", ["a.txt"]) == ["the arguments must be a JSON object"]
    assert reg.check_arguments("p", {}) == ["tool 'p' is not a function tool defined here"]


def test_check_names_what_a_target_lacks(tmp_path: Path) -> None:
    rt = tl.Runtime(registry(), store=tmp_path)
    rt.check("p")
    with pytest.raises(tl.DefinitionError, match="missing"):
        rt.check("broken")
    with pytest.raises(tl.DefinitionError):
        rt.check("nowhere")
    rt.close()


def test_variable_type_reads_the_declarations(tmp_path: Path) -> None:
    rt = tl.Runtime(registry(), store=tmp_path)
    assert rt.variable_type("p", "TOKEN") == "secret"
    assert rt.variable_type("p", "REGION") == "text"
    assert rt.variable_type("p", "OTHER") is None
    rt.close()


def test_a_models_base_url_is_shown_without_its_password() -> None:
    reg = tl.Registry()
    model = tl.define_model(
        "m", provider="openai", model="x", base_url="http://me:hunter22@h/v1", registry=reg
    )
    assert model.shown_base_url == "http://h/v1"
    server = tl.define_mcp_server("s", url="http://me:hunter22@h/mcp", registry=reg)
    assert "hunter22" not in server.where
