"""A registry's prompts that are not tools, served as MCP prompts: a client lists them and
gets one rendered, the prompt's text variables given as its arguments, as user messages to
put into its own conversation — each of the prompt's attachments (`messages=`: images, audio,
embedded resources) and then its text. Secret variables are never arguments and render as
`[secret:NAME]`, as they do in any system prompt. A prompt too large for one server-sent event
is refused as a large resource is (`_large_files`)."""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any

from ..definitions import Attachment, Env, Include, PromptDefinition, Registry, Variable
from ..execution import render_system
from ._large_files import fits, too_large, wire_size

__all__ = ["ServedPrompts"]

_INVALID_PARAMS = -32602
_INVALID_PARAMS = -32602
_SAFE_URI = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:[^\s]+$")
_REFUSED_SCHEMES = frozenset({"javascript", "data", "vbscript"})
# The placeholder an attachment's uri and text may hold (as `prompt=` text does).
_ENV = re.compile(r"\{\{\s*env\s*:\s*([^}\s]+)\s*\}\}")


class ServedPrompts:
    def __init__(self, registry: Registry, wanted: set[str] | None) -> None:
        self._registry = registry
        self._wanted = wanted

    def prompts(self) -> list[PromptDefinition]:
        return [
            p for p in self._registry.prompts()
            if not p.expose_as_tool and not p.name.startswith("_")
            and (self._wanted is None or p.name in self._wanted)
        ]  # fmt: skip

    def _prompt(self, name: str) -> PromptDefinition:
        from mcp.shared.exceptions import MCPError

        for prompt in self.prompts():
            if prompt.name == name:
                return prompt
        raise MCPError(_INVALID_PARAMS, f"Unknown prompt: {name}")

    def _arguments(self, prompt: PromptDefinition) -> dict[str, tuple[str, bool]]:
        """name -> (description, required) of the prompt's text variables: those it (or a
        prompt it includes) declares, and those its text reads."""
        declared, read = self._variables(prompt, ())
        read += [  # what its attachments read (an included prompt's are not served)
            m.group(1) for part in prompt.messages
            for m in _ENV.finditer(f"{part.uri or ''} {part.text or ''}")
        ]  # fmt: skip
        out: dict[str, tuple[str, bool]] = {}
        for name in [*declared, *read]:
            variable = declared.get(name)
            if name in out or (variable is not None and variable.type == "secret"):
                continue
            out[name] = (variable.description, variable.required) if variable else ("", False)
        return out

    def _variables(
        self, prompt: PromptDefinition, seen: tuple[str, ...]
    ) -> tuple[dict[str, Variable], list[str]]:
        """The variables `prompt` and what it includes declare, and the names their text reads."""
        declared = {v.name: v for v in prompt.variables}
        read: list[str] = []
        for part in prompt.prompt:
            if isinstance(part, Env):
                read.append(part.name)
            elif isinstance(part, Include) and part.prompt not in seen:
                included = self._registry.prompt(part.prompt)
                if included is not None:
                    more, also = self._variables(included, (*seen, prompt.name))
                    declared = {**more, **declared}
                    read += also
        return declared, read

    def listing(self) -> list[Any]:
        from mcp import types

        return [types.Prompt(
            name=p.name,
            description=p.tool_description or f"The threadlab prompt {p.name}.",
            arguments=[
                types.PromptArgument(name=n, description=d or None, required=r)
                for n, (d, r) in self._arguments(p).items()
            ],
        ) for p in self.prompts()]  # fmt: skip

    def get(self, name: str, given: dict[str, str], as_event: bool = False) -> Any:
        """The prompt `name` rendered with the `given` arguments; `as_event`: the answer
        travels as one server-sent event, so a prompt too large for one is refused."""
        from mcp import types
        from mcp.shared.exceptions import MCPError

        prompt = self._prompt(name)
        arguments = self._arguments(prompt)
        missing = [n for n, (_, required) in arguments.items() if required and not given.get(n)]
        if missing:
            raise MCPError(_INVALID_PARAMS, f"missing required arguments: {', '.join(missing)}")

        # Only the arguments are text here: anything else the text reads stays a placeholder.
        def value(n: str) -> str | None:
            return given.get(n) if n in arguments else None

        def kind(n: str) -> str:
            return "text" if n in arguments else "secret"

        text = render_system(prompt, self._registry, value, kind)
        contents = [_content(part, value, kind) for part in prompt.messages]
        if text or not contents:
            contents.append(types.TextContent(type="text", text=text))
        result = types.GetPromptResult(
            description=prompt.tool_description or None,
            messages=[types.PromptMessage(role="user", content=c) for c in contents],
        )
        if as_event and not fits(result):
            raise too_large("Prompt", name, wire_size(result))
        return result

    def complete(self, name: str, argument: str, value: str) -> list[str]:
        """A prompt's variables have no fixed set of values: nothing to suggest (completion
        is declared for the resource template's parameters), once the prompt is known."""
        self._prompt(name)
        return []


def _content(
    part: Attachment, value: Callable[[str], str | None], kind: Callable[[str], str]
) -> Any:
    """An attachment as a content block, its placeholders filled as the prompt's text is."""
    from mcp import types

    def filled(text: str) -> str:
        return _ENV.sub(
            lambda m: f"[secret:{m[1]}]" if kind(m[1]) == "secret" else value(m[1]) or "", text
        )

    encoded = base64.b64encode(part.data).decode() if part.data is not None else ""
    if part.kind == "image":
        return types.ImageContent(type="image", data=encoded, mime_type=part.mime_type)
    if part.kind == "audio":
        return types.AudioContent(type="audio", data=encoded, mime_type=part.mime_type)
    uri = filled(part.uri or "")
    chosen = uri != (part.uri or "")
    if chosen and (not _SAFE_URI.match(uri) or uri.split(":", 1)[0].lower() in _REFUSED_SCHEMES):
        from mcp.shared.exceptions import MCPError

        # A client's argument filled in: the URI it makes must still be a URI to show.
        raise MCPError(
            _INVALID_PARAMS,
            f"an attachment's uri is not a URI once the prompt's arguments fill it: {uri[:80]!r}"
            " (a scheme, then no spaces; javascript:, data: and vbscript: are refused)",
        )
    resource: Any = (
        types.TextResourceContents(uri=uri, mime_type=part.mime_type, text=filled(part.text))
        if part.text is not None
        else types.BlobResourceContents(uri=uri, mime_type=part.mime_type, blob=encoded)
    )
    return types.EmbeddedResource(type="resource", resource=resource)
