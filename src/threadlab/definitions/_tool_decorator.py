"""`@tool`: a function tool from a plain function, its type hints and its docstring."""

from __future__ import annotations

import inspect
import typing
from collections.abc import Callable
from typing import Any, overload

from pydantic import BaseModel, Field, create_model

from .._errors import DefinitionError
from ._callables import is_async_callable
from ._define import define_tool
from ._docstrings import parse_docstring
from ._types import ToolDefinition

__all__ = ["tool"]

# Annotations that mean an argument, never the thread state.
_VALUE_TYPES = (int, float, str, bool, bytes, list, dict, tuple)


@overload
def tool(fn: Callable[..., Any], /) -> ToolDefinition: ...


@overload
def tool(**options: Any) -> Callable[[Callable[..., Any]], ToolDefinition]: ...


def tool(
    fn: Callable[..., Any] | None = None, /, **options: Any
) -> ToolDefinition | Callable[[Callable[..., Any]], ToolDefinition]:
    """Define a tool from a function whose first parameter receives the thread state.

    Examples:
        >>> import threadlab as tl
        >>> @tl.tool(registry=tl.Registry())
        ... def add(state, a: int, b: int = 1) -> int:
        ...     '''Add two numbers.
        ...
        ...     Args:
        ...         a: the first number
        ...         b: the second number
        ...     '''
        ...     return a + b
        >>> add.args.json_schema["properties"]["a"]["description"]
        'the first number'
    """
    if fn is None:
        # Each decorated function gets its own copy: one decorator object may be reused.
        return lambda f: _tool_from_function(f, dict(options))
    return _tool_from_function(fn, dict(options))


def _tool_from_function(fn: Callable[..., Any], options: dict[str, Any]) -> ToolDefinition:
    name = options.pop("name", getattr(fn, "__name__", None))
    what = f"tool {name!r}"
    params = list(inspect.signature(fn).parameters.values())
    if not params:
        raise DefinitionError(
            f"{what}: the function needs a first parameter for the thread state,"
            f" e.g. def {name}(state, ...)"
        )
    try:
        hints = typing.get_type_hints(fn, include_extras=True)
    except Exception as exc:  # a hint that names something undefined
        raise DefinitionError(f"{what}: cannot resolve the type hints: {exc}") from None
    first = params[0].name
    if hints.get(first) in _VALUE_TYPES:
        others = ", ".join(str(p) for p in params)
        raise DefinitionError(
            f"{what}: the first parameter receives the thread state, but {first!r} is"
            f" annotated {hints[first].__name__}; add one: def {name}(state, {others})"
        )
    summary, arg_docs = parse_docstring(fn.__doc__)
    fields: dict[str, Any] = {}
    names: list[str] = []
    for param in params[1:]:
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise DefinitionError(f"{what}: *args and **kwargs cannot be tool arguments")
        annotation = hints.get(param.name, Any)
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (annotation, Field(default, description=arg_docs.get(param.name)))
        names.append(param.name)
    args_model: type[BaseModel] | None = None
    if fields:
        try:
            args_model = create_model(f"{name}_arguments", **fields)
        except Exception as exc:  # pydantic cannot build a schema for a hint
            raise DefinitionError(f"{what}: cannot build an argument schema: {exc}") from None
    options.setdefault("description", summary or f"Run {name}.")
    options.setdefault("returns", hints.get("return"))
    return define_tool(name, execute=_bind(fn, names), args=args_model, **options)


def _bind(fn: Callable[..., Any], names: list[str]) -> Callable[..., Any]:
    """Turn execute(state, args) into fn(state, **arguments), keeping sync or async."""
    if is_async_callable(fn):

        async def run_async(state: Any, args: Any) -> Any:
            return await fn(state, **_arguments(args, names))

        return run_async

    def run_sync(state: Any, args: Any) -> Any:
        return fn(state, **_arguments(args, names))

    return run_sync


def _arguments(args: Any, names: list[str]) -> dict[str, Any]:
    if isinstance(args, BaseModel):
        return {name: getattr(args, name) for name in names}
    return {}
