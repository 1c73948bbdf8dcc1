"""Resources of a registry's own (`tl.define_resource`) and the attachments of a served prompt
(`tl.Attachment`, `define_prompt(messages=)`): what is checked when they are defined, how a
template matches a URI, and what a registry keeps when a definition is refused."""

from __future__ import annotations

import time
from typing import Any

import pytest

import threadlab as tl


def text(params: dict[str, str]) -> str:
    """A note."""
    return "note"


def test_a_fixed_resource_is_registered_by_its_uri_with_its_docstring(
    registry: tl.Registry,
) -> None:
    today = tl.define_resource("notes://today", read=text, registry=registry)
    assert (today.name, today.description, today.parameters) == ("notes://today", "A note.", ())
    assert not today.is_template
    assert registry.resource("notes://today") is today
    assert registry.resources() == [today]
    assert (today.match("notes://today"), today.match("notes://today/x")) == ({}, None)


def test_a_template_matches_one_piece_per_parameter_percent_decoded(
    registry: tl.Registry,
) -> None:
    notes = tl.define_resource("notes://{day}/{topic}.md", read=text, name="notes",
                               description="Notes.", mime_type="text/markdown",
                               registry=registry)  # fmt: skip
    assert (notes.parameters, notes.is_template, notes.name) == (("day", "topic"), True, "notes")
    assert notes.match("notes://mon/green%20tea.md") == {"day": "mon", "topic": "green tea"}
    for other in ("notes://mon/a/b.md", "notes://mon/.md", "notes://mon/tea.txt", "x://m/t.md"):
        assert notes.match(other) is None, other


def test_a_value_that_decodes_to_a_path_step_or_a_control_character_matches_nothing(
    registry: tl.Registry,
) -> None:
    notes = tl.define_resource("notes://{topic}", read=text, registry=registry)
    for hostile in ("..%2F..%2Fetc%2Fpasswd", "%2e%2e", ".", "a%00b", "a%5Cb", "x%3Fy%23z%0A",
                    "%FF%FE"):  # fmt: skip
        assert notes.match(f"notes://{hostile}") is None, hostile
    assert notes.match("notes://x%3Fy%23z") == {"topic": "x?y#z"}  # encoded: one piece


def test_matching_is_linear_in_the_uris_length_and_a_huge_uri_matches_nothing(
    registry: tl.Registry,
) -> None:
    # A backtracking pattern took seconds on a 2,000-character URI a client chose: its time
    # grew with the cube of the length. Ten times the length now takes about ten times as long.
    dated = tl.define_resource("cal://{y}-{m}-{d}", read=text, registry=registry)

    def best(length: int) -> float:
        uri = "cal://" + "-" * length
        times = []
        for _ in range(3):
            started = time.perf_counter()
            for _ in range(200):
                assert dated.match(uri) is None
            times.append(time.perf_counter() - started)
        return min(times)

    assert best(4000) / best(400) < 40  # linear: ~10; quadratic: ~100; cubic: ~1,000
    named = tl.define_resource("docs://{name}.{ext}", read=text, registry=registry)
    assert named.match("docs://" + "a" * 9000 + ".txt") is None  # past MAX_URI_CHARS
    assert dated.match("cal://2026-12-07") == {"y": "2026", "m": "12", "d": "07"}
    assert named.match("docs://a.b.txt") == {"name": "a", "ext": "b.txt"}


def test_redefining_a_uri_replaces_it(registry: tl.Registry) -> None:
    tl.define_resource("notes://{topic}", read=text, registry=registry)
    again = tl.define_resource("notes://{topic}", read=lambda params: "new", registry=registry)
    assert registry.resources() == [again]


@pytest.mark.parametrize(
    ("uri", "says"),
    [
        ("notes", "is not a URI: it needs a scheme"),
        ("no tes://x", "is not a URI"),
        ("{scheme}://x", "is not a URI"),
        ("notes://{topic", "unmatched '{' or '}'"),
        ("notes://topic}", "unmatched '{' or '}'"),
        ("notes://{a}{b}", "two parameters side by side"),
        ("notes://{a}/{a}", "names the parameter 'a' twice"),
        ("notes://{+path}", r"only simple parameters \(RFC 6570 level 1"),
        ("notes://{/path*}", "only simple parameters"),
        ("notes://{?q}", "only simple parameters"),
        ("notes://{a:3}", "only simple parameters"),
        ("notes://{}", "a parameter's name is letters"),
        ("notes://{a-b}", "a parameter's name is letters"),
        ("threadlab://threads/x", "where the served threads' files are"),
    ],
)
def test_a_malformed_uri_is_refused_by_name_and_nothing_is_registered(
    uri: str, says: str, registry: tl.Registry
) -> None:
    with pytest.raises(tl.DefinitionError, match=says):
        tl.define_resource(uri, read=text, registry=registry)
    assert registry.resources() == []


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"read": "note"}, "read must be callable"),
        ({"read": lambda: "x"}, "read must take one argument"),
        ({"read": lambda a, b: "x"}, "read must take one argument"),
        ({"read": text, "name": ""}, "name must be a non-empty string"),
        ({"read": text, "mime_type": "markdown"}, "is not a media type"),
        ({"read": text, "description": 3}, "description must be a string"),
    ],
)
def test_bad_options_are_refused_by_name(
    options: dict[str, Any], says: str, registry: tl.Registry
) -> None:
    with pytest.raises(tl.DefinitionError, match=says):
        tl.define_resource("notes://x", registry=registry, **options)
    assert registry.resources() == []


def test_a_template_for_the_same_uris_as_another_is_refused_and_the_first_kept(
    registry: tl.Registry,
) -> None:
    first = tl.define_resource("notes://{topic}", read=text, registry=registry)
    with pytest.raises(tl.DefinitionError, match=r"'notes://\{topic\}' is defined for the same"):
        tl.define_resource("notes://{name}", read=text, registry=registry)
    fixed = tl.define_resource("notes://today", read=text, registry=registry)
    assert registry.resources() == [first, fixed]  # a fixed URI beside a template is fine
    registry.remove_resource("notes://{topic}")
    renamed = tl.define_resource("notes://{name}", read=text, registry=registry)
    assert registry.resources() == [fixed, renamed]


def test_resources_have_a_namespace_of_their_own(registry: tl.Registry) -> None:
    tl.define_prompt("notes", prompt="x", registry=registry)
    tl.define_resource("notes://notes", read=text, name="notes", registry=registry)
    assert registry.get("notes") is not None
    assert registry.resource("notes://notes") is not None


def test_an_attachment_is_an_image_audio_or_embedded_resource() -> None:
    image = tl.Attachment(data=b"png", mime_type="image/png")
    audio = tl.Attachment(data=b"wav", mime_type="audio/wav")
    note = tl.Attachment(uri="notes://{{env:topic}}", text="Read {{env:topic}}.")
    blob = tl.Attachment(uri="assets://raw", data=b"\0")
    assert [a.kind for a in (image, audio, note, blob)] == ["image", "audio", "resource",
                                                             "resource"]  # fmt: skip
    assert (note.mime_type, blob.mime_type) == ("text/plain", "application/octet-stream")


@pytest.mark.parametrize(
    ("fields", "says"),
    [
        ({"data": b"x"}, "without uri= it is an image or audio clip"),
        ({"data": b"x", "mime_type": "text/plain"}, "'image/...' or 'audio/...'"),
        ({"mime_type": "image/png"}, "give data= \\(bytes\\)"),
        ({"text": "hi"}, "text= is an embedded resource's: give its uri= too"),
        ({"data": "x", "mime_type": "image/png"}, "data must be bytes, got str"),
        ({"uri": "notes://x"}, "text= or data= \\(bytes\\), one of them; neither given"),
        ({"uri": "notes://x", "text": "a", "data": b"b"}, "one of them; both given"),
        ({"uri": "notes", "text": "a"}, "'notes' is not a URI"),
        ({"uri": "notes://x", "text": "a", "mime_type": "plain"}, "is not a media type"),
    ],
)
def test_an_attachment_that_is_neither_is_refused_by_name(
    fields: dict[str, Any], says: str
) -> None:
    with pytest.raises(tl.DefinitionError, match=says):
        tl.Attachment(**fields)


def test_a_prompts_messages_are_attachments_kept_with_it(registry: tl.Registry) -> None:
    image = tl.Attachment(data=b"png", mime_type="image/png")
    prompt = tl.define_prompt("look", prompt="Look.", messages=[image], registry=registry)
    assert prompt.messages == (image,)
    assert tl.define_prompt("plain", prompt="x", registry=registry).messages == ()


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"messages": ["Look at this"]}, "messages must be tl.Attachment parts"),
        ({"messages": tl.Attachment(data=b"p", mime_type="image/png")}, "must be a list"),
        (
            {"messages": [tl.Attachment(data=b"p", mime_type="image/png")], "expose_as_tool": True},
            "a prompt exposed as a tool is served as a tool",
        ),
    ],
)
def test_a_prompts_bad_messages_are_refused_and_nothing_is_registered(
    options: dict[str, Any], says: str, registry: tl.Registry
) -> None:
    with pytest.raises(tl.DefinitionError, match=says):
        tl.define_prompt("look", prompt="Look.", registry=registry, **options)
    assert registry.prompts() == []
