"""The Threads panel's routes on a real Jupyter server: behind its authentication, a page of
threads at a time, filtered and searched, a thread's steps, what its player is drawn from, and
every answer JSON — an unknown thread's, a hostile query's, a store's that cannot be opened."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

import threadlab as tl
from threadlab.store import RunRecord, ThreadRecord

from ..helpers import scripted_prompt
from ..store.test_browsing import HOSTILE
from .conftest import Server, jupyter_server

pytestmark = pytest.mark.processes

TEXT = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}

SECRET = "hunter2-zq81"
BARE = 230
"""Threads stored without a run, older than the others: more than the largest page."""


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A store in the server's default place, `.threadlab` of its root: bare threads, one
    that failed, one from an MCP client, and one that ran, with a secret, a tool call and a
    subagent's words (the ids by name)."""
    root = tmp_path_factory.mktemp("lab-server") / "root"
    root.mkdir()
    registry = tl.Registry()
    scripted_prompt(
        registry,
        [tl.models.call("echo", {"text": f"invoice 42 with {SECRET}"}), "paid in full"],
        tools=["echo"],
    )
    tl.define_tool(
        "echo", description="Echo.", execute=lambda s, a: a["text"], args=TEXT, registry=registry
    )

    async def fill() -> dict[str, str]:
        rt = tl.Runtime(registry, root / ".threadlab", secret_key="test-key")
        store = rt.store
        with store.transaction():
            for n in range(BARE):
                store.add_thread(ThreadRecord(f"thr_bare{n:04d}", None, "p", 1000.0 + n))
        failed = await rt.create_thread("p")
        store.start_run(RunRecord("run_f", failed.id, "running", 1, "h", 1.0, 1.0))
        store.finish_run("run_f", "failed", None, "boom", 2.0)
        served = await rt.create_thread("p", origin="mcp")
        ran = await rt.create_thread("p", secrets={"API_KEY": SECRET})
        await ran.send(f"pay the invoice, my key is {SECRET}")
        child = ThreadRecord("thr_child", ran.id, "p", 5000.0)
        store.add_thread(child)
        rt.close()
        return {"root": str(root), "failed": failed.id, "served": served.id, "ran": ran.id}

    return asyncio.run(fill())


@pytest.fixture(scope="module")
def server(made: dict[str, str]) -> Iterator[Server]:
    with jupyter_server(Path(made["root"])) as running:
        yield running


def threads(server: Server, **params: object) -> list[dict[str, object]]:
    answer = server.get("/threadlab/api/threads", **params)
    assert answer.status_code == 200, answer.text
    listed: list[dict[str, object]] = answer.json()["threads"]
    return listed


def test_the_routes_need_jupyters_authentication(server: Server, made: dict[str, str]) -> None:
    for path in (
        "/threadlab/api/threads",
        f"/threadlab/api/threads/{made['ran']}/steps",
        f"/threadlab/api/threads/{made['ran']}/view",
    ):
        assert httpx.get(f"{server.url}{path}").status_code in (401, 403)
        wrong = httpx.get(f"{server.url}{path}", headers={"Authorization": "token wrong"})
        assert wrong.status_code in (401, 403)
        assert SECRET not in wrong.text


def test_a_page_lists_root_threads_newest_first_with_what_they_did(
    server: Server, made: dict[str, str]
) -> None:
    answer = server.get("/threadlab/api/threads", limit=3)
    assert answer.headers["Content-Type"].startswith("application/json")
    page = answer.json()
    assert [t["id"] for t in page["threads"]] == [made["ran"], made["served"], made["failed"]]
    ran = page["threads"][0]
    assert set(ran) >= {"id", "target", "status", "origin", "created_at", "updated_at",
                        "usage", "cost_usd", "duration_s"}  # fmt: skip
    assert (ran["target"], ran["status"], ran["origin"]) == ("p", "completed", "script")
    assert ran["updated_at"] >= ran["created_at"]
    assert isinstance(page["next"], str)


def test_the_cursor_walks_every_root_thread_once(server: Server, made: dict[str, str]) -> None:
    seen: list[str] = []
    cursor = ""
    while True:
        page = server.get("/threadlab/api/threads", limit=70, cursor=cursor).json()
        seen += [t["id"] for t in page["threads"]]
        if page["next"] is None:
            break
        cursor = page["next"]
    assert len(seen) == len(set(seen)) == BARE + 3
    assert "thr_child" not in seen
    assert seen[-1] == "thr_bare0000"


def test_a_huge_limit_is_capped(server: Server) -> None:
    page = server.get("/threadlab/api/threads", limit=10**9).json()
    assert len(page["threads"]) == 200
    assert page["next"] is not None


def test_filters_by_status_and_origin(server: Server, made: dict[str, str]) -> None:
    assert [t["id"] for t in threads(server, status="failed")] == [made["failed"]]
    assert [t["id"] for t in threads(server, origin="mcp")] == [made["served"]]
    assert len(threads(server, status="never run", limit=200)) == 200


def test_children_are_listed_from_their_parent(server: Server, made: dict[str, str]) -> None:
    assert [t["id"] for t in threads(server, parent=made["ran"])] == ["thr_child"]


def test_a_search_finds_messages_tool_calls_and_arguments(
    server: Server, made: dict[str, str]
) -> None:
    for words in ("invoice", "paid full", "echo", "42"):
        assert [t["id"] for t in threads(server, q=words)] == [made["ran"]], words
    assert threads(server, q="invoice", status="failed") == []


def test_a_secret_is_never_matched_nor_returned(server: Server, made: dict[str, str]) -> None:
    for words in (SECRET, "zq81", "hunter2"):
        assert threads(server, q=words) == []
    steps = server.get(f"/threadlab/api/threads/{made['ran']}/steps")
    listed = server.get("/threadlab/api/threads", q="invoice")
    for answer in (steps, listed):
        assert answer.status_code == 200
        assert SECRET not in answer.text
    assert "[secret:API_KEY]" in steps.text


@pytest.mark.parametrize("text", [*HOSTILE[:-3], "x" * 5000])
def test_a_hostile_query_is_data(server: Server, text: str) -> None:
    answer = server.get("/threadlab/api/threads", q=text)
    assert answer.status_code == 200, answer.text
    assert isinstance(answer.json()["threads"], list)


def test_a_thread_s_steps_are_its_step_records(server: Server, made: dict[str, str]) -> None:
    answer = server.get(f"/threadlab/api/threads/{made['ran']}/steps")
    steps = answer.json()["steps"]
    assert [(s["kind"], s["name"]) for s in steps] == [
        ("model", None),
        ("tool_call", "echo"),
        ("model", None),
    ]
    call = steps[1]
    assert (call["arguments"], call["tool_status"]) == (
        {"text": "invoice 42 with [secret:API_KEY]"},
        "success",
    )
    assert call["duration_s"] >= 0


def test_a_thread_s_view_is_what_its_shared_page_draws_from(
    server: Server, made: dict[str, str]
) -> None:
    answer = server.get(f"/threadlab/api/threads/{made['ran']}/view")
    assert answer.status_code == 200, answer.text
    assert answer.headers["Content-Type"].startswith("application/json")
    view = answer.json()
    state = view["state"]
    assert (state["view"], state["shared"]) == ("player", True)
    assert len(state["points"]) >= 4
    assert any("explain" in point for point in state["points"])  # narrated
    assert (view["files"], view["left_out"]) == ({}, [])
    assert SECRET not in answer.text
    assert "[secret:API_KEY]" in answer.text


@pytest.mark.parametrize("route", ["steps", "view"])
def test_an_unknown_thread_is_a_json_404(server: Server, route: str) -> None:
    answer = server.get(f"/threadlab/api/threads/thr_nope/{route}")
    assert answer.status_code == 404
    assert "thr_nope" in answer.json()["error"]


def _forged(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    ("params", "named"),
    [
        ({"cursor": "not-ours"}, "cursor"),
        # Forged cursors: a number no float holds, a row past 64 bits, booleans.
        ({"cursor": _forged("[0, 1e400]")}, "cursor"),
        ({"cursor": _forged("[0, 99999999999999999999999999]")}, "cursor"),
        ({"cursor": _forged("[true, false]")}, "cursor"),
        ({"limit": "many"}, "limit"),
        ({"origin": "x"}, "origin"),
    ],
)
def test_a_bad_parameter_is_a_json_400_naming_it(
    server: Server, params: dict[str, str], named: str
) -> None:
    answer = server.get("/threadlab/api/threads", **params)
    assert answer.status_code == 400
    assert named in answer.json()["error"]


def test_a_store_that_cannot_open_is_a_503_naming_it(tmp_path: Path) -> None:
    root, broken = tmp_path / "root", tmp_path / "broken"
    root.mkdir()
    broken.mkdir()
    (broken / "threads.sqlite3").write_bytes(b"this is no database" * 100)
    with jupyter_server(root, f"--ThreadlabServer.store={broken}") as server:
        for path in (
            "/threadlab/api/threads",
            "/threadlab/api/threads/thr_x/steps",
            "/threadlab/api/threads/thr_x/view",
        ):
            answer = server.get(path)
            assert answer.status_code == 503
            said = answer.json()
            assert said["store"] == str(broken)
            assert "not a threadlab store" in said["reason"]
        assert server.get("/api/status").status_code == 200  # the server goes on


def test_a_store_not_made_yet_lists_nothing_and_is_not_made(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    with jupyter_server(root) as server:
        assert server.get("/threadlab/api/threads").json() == {"threads": [], "next": None}
        assert server.get("/threadlab/api/threads/thr_x/steps").status_code == 404
        assert server.get("/threadlab/api/threads/thr_x/view").status_code == 404
    assert not (root / ".threadlab").exists()


def test_a_postgresql_store_is_listed_and_searched(tmp_path: Path, postgres_url: str) -> None:
    store = tl.PostgresStore(postgres_url)
    store.add_thread(ThreadRecord("thr_pg", None, "p", 1.0, json.dumps({"origin": "eval:x"})))
    store.close()
    root = tmp_path / "root"
    root.mkdir()
    with jupyter_server(root, f"--ThreadlabServer.store={postgres_url}") as server:
        (listed,) = threads(server)
        assert (listed["id"], listed["origin"]) == ("thr_pg", "evaluation")
        assert threads(server, q='" OR 1=1 --') == []
