"""A thread exported as a notebook: nothing a model, a tool or a user wrote becomes markdown or
HTML that renders — checked through nbconvert's HTML export."""

from __future__ import annotations

from typing import Any

import nbformat
from nbconvert import HTMLExporter

import threadlab as tl
from threadlab.kernel_ext._notebooks import thread_notebook
from threadlab.models import call, step, text

from ..helpers import scripted_prompt

SCRIPT = "<script>alert('pwned')</script>"
IMAGE = "![tracker](http://threadlab.invalid/pixel.png)"
HTML_IMAGE = "<img src=x onerror=alert(2)>"
FENCE_BREAK = "```\n</code></pre><script>alert(3)</script>\n```"


async def test_untrusted_text_in_an_export_renders_as_text(
    rt: tl.Runtime, registry: tl.Registry
) -> None:
    def echo(state: tl.ThreadState, args: Any) -> str:
        return FENCE_BREAK + "\n" + SCRIPT

    tl.define_tool("echo", description="Echo.", execute=echo, registry=registry)
    scripted_prompt(
        registry,
        [
            step(call("echo"), call(f"{HTML_IMAGE}", {"x": SCRIPT})),  # an unknown, hostile name
            text(f"{IMAGE} and {SCRIPT} and {HTML_IMAGE} and $x^2$"),
        ],
        tools=["echo"],
    )
    thread = await rt.create_thread("p")
    await thread.send(f"user says {SCRIPT} {IMAGE}")
    notebook = thread_notebook(thread)
    html, _ = HTMLExporter().from_notebook_node(nbformat.from_dict(notebook))
    assert "alert(" in html  # the text is there...
    assert "<script>alert" not in html  # ...but never as a tag
    assert "<img src=x" not in html
    assert 'src="http://threadlab.invalid' not in html
    assert "onerror=alert(2)" not in html or "&lt;img" in html
