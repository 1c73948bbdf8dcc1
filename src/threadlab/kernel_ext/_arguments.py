"""Parsing the small option languages of the magics."""

from __future__ import annotations

from IPython.core.error import UsageError

from .. import Variable

__all__ = ["parse_assignments", "parse_variable", "split_names", "unquote"]


def parse_variable(spec: str) -> Variable:
    """`NAME[:secret][:required][:scoped]` -> tl.Variable."""
    name, *flags = spec.split(":")
    unknown = set(flags) - {"secret", "required", "scoped", "text"}
    if not name or unknown:
        raise UsageError(
            f"--variable {spec!r}: use NAME[:secret][:required][:scoped]"
            + (f" (unknown: {', '.join(sorted(unknown))})" if unknown else "")
        )
    return Variable(
        name,
        type="secret" if "secret" in flags else "text",
        required="required" in flags,
        scoped="scoped" in flags,
    )


def parse_assignments(items: list[str] | None, option: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items or []:
        name, sep, value = item.partition("=")
        if not sep or not name:
            raise UsageError(f"{option} {item!r}: use {option} NAME=VALUE")
        out[name] = value
    return out


def split_names(value: str | None) -> list[str]:
    return [n.strip() for n in (value or "").split(",") if n.strip()]


def unquote(value: str | None) -> str:
    """IPython's argument splitting keeps quotes around a quoted value: drop them."""
    text = (value or "").strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "'\"":
        return text[1:-1]
    return text
