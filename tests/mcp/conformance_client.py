"""threadlab as the client the official MCP conformance suite tests: a thread whose model
calls a tool of the suite's server, defined with `tl.define_mcp_server`, with an elicitor that
accepts every form as it comes (so the fields' defaults are what is sent).
`python conformance_client.py URL`; the suite names the scenario in MCP_CONFORMANCE_SCENARIO,
and gives what a scenario needs beside it (a pre-registered client) in MCP_CONFORMANCE_CONTEXT.

Its authorization servers approve every sign-in at once, redirecting to the redirect URI with a
code: the sign-in reads where the authorization URL redirects to, as a browser would go."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from typing import Any

import httpx2

import threadlab as tl
from threadlab.models import FunctionModel, Step, call, text

ARGUMENTS = {"add_numbers": {"a": 5, "b": 3}}
# The URL-based client ID the suite's auth/basic-cimd scenario expects (its authorization
# server accepts it without fetching it); others register dynamically.
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"


async def approve(authorization_url: str) -> str:
    """The redirect the authorization server answers the authorization URL with."""
    async with httpx2.AsyncClient(follow_redirects=False, timeout=10) as http:
        answer = await http.get(authorization_url)
    return answer.headers["location"]


def oauth() -> tl.OAuth:
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    return tl.OAuth(
        sign_in=approve,
        client_id=context.get("client_id"),
        client_secret=context.get("client_secret"),
        client_metadata_url=CLIENT_METADATA_URL,
    )


def first_tool(messages: list[Any], tools: list[Any]) -> Step:
    """Call the server's first tool once, then answer with what it returned."""
    if messages[-1].role == "tool":
        return text(messages[-1].content or "")
    if not tools:
        return text("the server lists no tools")
    name = tools[0].name
    return call(name, ARGUMENTS.get(name, {}))


async def main(url: str) -> int:
    registry = tl.Registry()
    tl.define_mcp_server("peer", url=url, timeout=20, oauth=oauth(), registry=registry)
    tl.define_prompt("client", prompt="Use the server.", tools=["mcp:peer"],
                     model=FunctionModel(first_tool), registry=registry)  # fmt: skip
    with tempfile.TemporaryDirectory() as store:
        rt = tl.Runtime(registry, store, elicitor=lambda asked: {})
        try:
            thread = await rt.create_thread("client")
            run = await thread.send("go")
            print(run.status, run.text)
        finally:
            await rt.aclose()
    return 0 if run.status == "completed" else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[-1])))
