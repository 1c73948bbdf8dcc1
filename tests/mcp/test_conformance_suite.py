"""The official MCP conformance suite (`@modelcontextprotocol/conformance`, on the Node.js 22
that `.ci/run` installs into `.cache/npm`) against a served registry: the tools, prompts and
content its scenarios ask for, written as a threadlab user writes them
(`conformance_server.py`). Every scenario passes but those that ask for what threadlab does not
have, each listed below with why."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import threadlab as tl

from .conformance_server import conformance_registry
from .conftest import ROOT

pytestmark = pytest.mark.processes  # the suite runs in a Node.js process

NODE = ROOT / ".cache/npm/node_modules/.bin/node"
SUITE = ROOT / ".cache/npm/node_modules/@modelcontextprotocol/conformance/dist/index.js"

# Scenarios that ask for something threadlab's model does not have (none today; a scenario
# the suite adds that threadlab cannot answer is named here, with why).
NOT_APPLICABLE: dict[str, str] = {}


def suite() -> tuple[Path, Path]:
    if not (NODE.exists() and SUITE.exists()):
        message = "@modelcontextprotocol/conformance and node@22: run .ci/run (make npm-packages)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return NODE, SUITE


async def run_suite(url: str, out: Path, *options: str) -> dict[str, list[dict[str, object]]]:
    """The checks of each scenario the suite ran, by scenario."""
    node, script = suite()
    process = await asyncio.create_subprocess_exec(
        str(node), str(script), "server", "--url", url, "-o", str(out), *options,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(process.communicate(), 240)
    results: dict[str, list[dict[str, object]]] = {}
    for checks in out.glob("server-*/checks.json"):
        named = checks.parent.name.removeprefix("server-")  # ...-2026-12-03T16-08-10-124Z
        scenario = re.sub(r"-\d{4}-\d\d-\d\dT[\d-]+Z$", "", named)
        results[scenario] = json.loads(checks.read_text())
    assert results, output.decode()[-3000:]
    return results


def failures(results: dict[str, list[dict[str, object]]]) -> dict[str, list[object]]:
    return {
        scenario: [c.get("errorMessage") or c.get("id") for c in checks
                   if c.get("status") == "FAILURE"]
        for scenario, checks in results.items()
    }  # fmt: skip


async def test_the_conformance_suite_passes_every_applicable_server_scenario(
    store_dir: Path, tmp_path: Path
) -> None:
    rt = tl.Runtime(conformance_registry(), store_dir)
    service = await tl.mcp.serve(runtime=rt, token=None)
    try:
        active = await run_suite(service.url, tmp_path / "active")
        pending = await run_suite(service.url, tmp_path / "pending", "--suite", "pending")
    finally:
        await service.close()
        await rt.aclose()
    failed = {s: f for s, f in failures({**active, **pending}).items() if f}
    assert set(failed) <= set(NOT_APPLICABLE), {
        s: failed[s] for s in set(failed) - set(NOT_APPLICABLE)
    }
    passed = {s for s, checks in active.items() if checks and s not in failed}
    # what the suite covers here, so a scenario that stops running is noticed
    assert passed >= {
        "server-initialize", "ping", "logging-set-level", "completion-complete", "tools-list",
        "tools-call-simple-text", "tools-call-image", "tools-call-audio",
        "tools-call-embedded-resource", "tools-call-mixed-content", "tools-call-with-logging",
        "tools-call-error", "tools-call-with-progress", "server-sse-multiple-streams",
        "resources-list", "resources-read-text", "resources-read-binary",
        "resources-templates-read", "prompts-list", "prompts-get-simple", "prompts-get-with-args",
        "prompts-get-embedded-resource", "prompts-get-with-image", "dns-rebinding-protection",
        # tools that ask their caller: state.sample, state.elicit
        "tools-call-sampling", "tools-call-elicitation", "elicitation-sep1034-defaults",
        "elicitation-sep1330-enums",
    }  # fmt: skip
    assert "json-schema-2020-12" in pending
    assert not failed.get("json-schema-2020-12")


# The client scenarios other than OAuth's.
CLIENT_SCENARIOS = ["initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"]
# OAuth 2.1 sign-in (`define_mcp_server(oauth=...)`): the suite's "auth" suite, every scenario
# of it, and those of the earlier (2025-03-26) and draft specifications that pass.
AUTH_SCENARIOS = [
    "auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
    "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic", "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none", "auth/pre-registration",
    "auth/2025-03-26-oauth-endpoint-fallback",
    "auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
]  # fmt: skip
# Auth scenarios threadlab does not pass, and why.
AUTH_NOT_PASSED = {
    # Its authorization server's metadata, found at the server's root, names the issuer
    # http://host/oauth; RFC 8414 section 3.3 (and the `mcp` SDK, which checks it) requires the
    # issuer to be the one the metadata was looked up for (http://host), so the sign-in stops
    # there, as it must against an authorization server that could be another's.
    "auth/2025-03-26-oauth-metadata-backcompat": "the metadata names another issuer",
    # Extensions of the MCP authorization spec for machine clients (the client-credentials
    # grant with a signed JWT or a secret, and enterprise-managed cross-app access): a server
    # definition signs in as a person, with the authorization-code grant.
    "auth/client-credentials-jwt": "the client-credentials grant is not offered",
    "auth/client-credentials-basic": "the client-credentials grant is not offered",
    "auth/cross-app-access-complete-flow": "enterprise-managed authorization is not offered",
}


def test_every_auth_scenario_of_the_suite_is_passed_or_says_why_not() -> None:
    node, script = suite()
    listed = subprocess.run([str(node), str(script), "list"], capture_output=True, text=True,
                            check=True, timeout=60).stdout  # fmt: skip
    scenarios = set(re.findall(r"^\s*- (auth/\S+)", listed, re.MULTILINE))
    assert scenarios == set(AUTH_SCENARIOS) | set(AUTH_NOT_PASSED)


@pytest.mark.parametrize("scenario", CLIENT_SCENARIOS + AUTH_SCENARIOS)
async def test_threadlab_as_a_client_passes_the_suites_client_scenarios(
    scenario: str, tmp_path: Path
) -> None:
    node, script = suite()
    client = f"{sys.executable} {Path(__file__).with_name('conformance_client.py')}"
    process = await asyncio.create_subprocess_exec(
        str(node), str(script), "client", "--command", client, "--scenario", scenario,
        "-o", str(tmp_path), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    output, _ = await asyncio.wait_for(process.communicate(), 240)
    (checks,) = tmp_path.glob("**/checks.json")
    results = json.loads(checks.read_text())
    # An auth scenario's warning is a SHOULD of the spec not met (a scope not asked for, a
    # URL-based client ID not used); sse-retry's, a reconnection late on a busy machine.
    bad = ("FAILURE", "WARNING") if scenario.startswith("auth/") else ("FAILURE",)
    failed = [c for c in results if c.get("status") in bad]
    assert results, output.decode()[-3000:]
    assert failed == [], output.decode()[-3000:]
    assert process.returncode == 0
