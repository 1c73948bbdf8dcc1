"""Read a tool's description and per-argument descriptions from its docstring.

Google style (``Args:`` with ``name (type): text`` lines) and NumPy style (a ``Parameters``
heading underlined with dashes) are both understood.
"""

from __future__ import annotations

import inspect
import re

__all__ = ["parse_docstring"]

_GOOGLE_SECTION = re.compile(r"^(Args|Arguments|Parameters|Params)\s*:\s*$")
_ANY_GOOGLE_SECTION = re.compile(r"^[A-Z][A-Za-z ]*:\s*$")
_GOOGLE_ARG = re.compile(r"^(\*{0,2}\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")
_NUMPY_ARG = re.compile(r"^(\*{0,2}\w+)\s*(:.*)?$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Return (description, {argument: description})."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    description: list[str] = []
    for line in lines:
        stripped = line.strip()
        if not stripped or _GOOGLE_SECTION.match(stripped) or _is_numpy_heading(lines, line):
            break
        description.append(stripped)
    args = _google_args(lines) or _numpy_args(lines)
    return " ".join(description), args


def _is_numpy_heading(lines: list[str], line: str) -> bool:
    index = lines.index(line)
    return index + 1 < len(lines) and set(lines[index + 1].strip()) == {"-"}


def _google_args(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    in_section = False
    section_indent = 0
    current: str | None = None
    arg_indent = 0
    for line in lines:
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if _GOOGLE_SECTION.match(stripped):
            in_section, section_indent, current = True, indent, None
            continue
        if not in_section:
            continue
        if stripped and indent <= section_indent and _ANY_GOOGLE_SECTION.match(stripped):
            break
        if not stripped:
            continue
        match = _GOOGLE_ARG.match(stripped)
        if match and (current is None or indent <= arg_indent):
            current = match.group(1).lstrip("*")
            arg_indent = indent
            out[current] = match.group(3).strip()
        elif current is not None:
            out[current] = f"{out[current]} {stripped}".strip()
    return out


def _numpy_args(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    start = None
    for i, line in enumerate(lines[:-1]):
        if line.strip() in ("Parameters", "Arguments") and set(lines[i + 1].strip()) == {"-"}:
            start = i + 2
            break
    if start is None:
        return out
    current: str | None = None
    base_indent: int | None = None
    for i in range(start, len(lines)):
        line = lines[i]
        stripped = line.strip()
        if i + 1 < len(lines) and stripped and set(lines[i + 1].strip()) == {"-"}:
            break  # the next section's heading
        if not stripped:
            continue
        indent = len(line) - len(line.lstrip())
        if base_indent is None:
            base_indent = indent
        if indent == base_indent:
            match = _NUMPY_ARG.match(stripped)
            if match:
                current = match.group(1).lstrip("*")
                out[current] = ""
                continue
        if current is not None:
            out[current] = f"{out[current]} {stripped}".strip()
    return out
