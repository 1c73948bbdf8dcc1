"""A class on one PostgreSQL store (`python -m threadlab class init`): a role per student and the
instructor's, and row-level security on every table. Tried with real roles on a real server:
through the API and below it (a student's own connection, as psql would be), a student reaches
none of another's rows and cannot write into another's thread; the instructor reads them all."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

import threadlab as tl
from threadlab.models import call, text
from threadlab.store import init_class
from threadlab.widgets._class_rows import class_rows

from ..execution.test_subagents import create_then, helper

pytestmark = pytest.mark.processes  # a PostgreSQL server


def roles(postgres_url: str) -> tuple[str, str, str]:
    """Role names of this test's own (roles are the server's, shared by every database)."""
    suffix = urlsplit(postgres_url).path.rsplit("_", 2)[-2:]
    tag = "_".join(suffix)
    return f"teacher_{tag}", f"ann_{tag}", f"bob_{tag}"


def as_role(url: str, role: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{role}@{parts.hostname}:{parts.port}{parts.path}"


def site(registry: tl.Registry) -> None:
    async def write(state: tl.ThreadState, args: dict[str, Any]) -> str:
        await state.write_file("/index.html", f"<h1>{args['title']}</h1>")
        return "written"

    title = {"type": "object", "properties": {"title": {"type": "string"}}}
    tl.define_tool("write", description="Write.", execute=write, args=title, registry=registry)
    model = tl.models.ScriptedModel([call("write", {"title": "Tea"}), text("done")] * 4)
    tl.define_prompt("site", prompt="Pages.", tools=["write"], model=model, registry=registry)


async def a_run(url: str, registry: tl.Registry) -> tuple[tl.Runtime, tl.Thread]:
    rt = tl.Runtime(registry, url)
    thread = await rt.create_thread("site")
    run = await thread.send("a page")
    assert run.status == "completed", run.error
    return rt, thread


async def test_each_student_reaches_only_their_own_threads_and_the_instructor_all(
    postgres_url: str, registry: tl.Registry
) -> None:
    import psycopg

    teacher, ann, bob = roles(postgres_url)
    members = init_class(postgres_url, instructor=teacher, students=[ann, bob])
    assert [(m.role, m.instructor) for m in members] == [(teacher, True), (ann, False),
                                                         (bob, False)]  # fmt: skip
    site(registry)
    ann_rt, ann_thread = await a_run(as_role(postgres_url, ann), registry)
    bob_rt, bob_thread = await a_run(as_role(postgres_url, bob), registry)
    assert (ann_rt.user, ann_thread.user, bob_thread.user) == (ann, ann, bob)

    assert [t.id for t in ann_rt.threads()] == [ann_thread.id]
    with pytest.raises(tl.ThreadNotFoundError):
        ann_rt.thread(bob_thread.id)

    # Below the API: Ann's own connection sees no row of Bob's thread, in any table.
    with psycopg.connect(as_role(postgres_url, ann), autocommit=True) as db:
        for table in ("messages", "events", "files", "runs", "env", "env_log", "leases"):
            found = db.execute(
                f"SELECT COUNT(*) FROM {table} WHERE thread_id = %s", (bob_thread.id,)
            ).fetchone()
            assert found == (0,), table
        assert db.execute("SELECT COUNT(*) FROM threads").fetchone() == (1,)
        assert db.execute("SELECT COUNT(*) FROM blobs").fetchone() == (1,)  # her page's only
        with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
            db.execute(
                "INSERT INTO messages (id, thread_id, depth, data) VALUES ('m_x', %s, 0, '{}')",
                (bob_thread.id,),
            )
        updated = db.execute(
            "UPDATE threads SET metadata = '{}' WHERE id = %s", (bob_thread.id,)
        ).rowcount
        assert updated == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            db.execute("UPDATE meta SET value = '' WHERE key = 'class_tokens_per_day'")
    assert [m.content for m in bob_rt.thread(bob_thread.id).messages][-1] == "done"

    teacher_rt = tl.Runtime(registry, as_role(postgres_url, teacher))
    assert {t.id for t in teacher_rt.threads()} == {ann_thread.id, bob_thread.id}
    seen = teacher_rt.thread(ann_thread.id)
    assert seen.user == ann
    assert seen.messages[-1].content == "done"
    assert seen.files.read_sync("/index.html") == b"<h1>Tea</h1>"
    refused = pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security")
    with psycopg.connect(as_role(postgres_url, teacher), autocommit=True) as db, refused:
        db.execute(
            "INSERT INTO events (thread_id, type, data) VALUES (%s, 'custom', '{}')",
            (ann_thread.id,),
        )
    for rt in (ann_rt, bob_rt, teacher_rt):
        rt.close()


async def test_a_student_cannot_make_a_thread_in_another_members_name(
    postgres_url: str, registry: tl.Registry
) -> None:
    teacher, ann, bob = roles(postgres_url)
    init_class(postgres_url, instructor=teacher, students=[ann, bob])
    site(registry)
    posing = tl.Runtime(registry, as_role(postgres_url, ann), user=bob)
    with pytest.raises(tl.StoreError, match="row-level security"):
        await posing.create_thread("site")
    posing.close()
    bob_rt = tl.Runtime(registry, as_role(postgres_url, bob))
    assert bob_rt.threads() == []  # nothing was written in Bob's name
    bob_rt.close()


async def test_a_child_belongs_to_its_parents_member(
    postgres_url: str, registry: tl.Registry
) -> None:
    teacher, ann, _ = roles(postgres_url)
    init_class(postgres_url, instructor=teacher, students=[ann])
    helper(registry)
    lead = create_then(lambda ref: text("all done"))
    tl.define_prompt("lead", prompt="Lead.", model=lead, registry=registry)
    tl.define_agent("boss", side_a=tl.Side("lead", subagents=[tl.Subagent("helper")]),
                    registry=registry)  # fmt: skip
    rt = tl.Runtime(registry, as_role(postgres_url, ann))
    thread = await rt.create_thread("boss")
    run = await thread.send("go")
    assert run.status == "completed", run.error
    (child,) = thread.children
    assert child.user == ann
    assert child.files.read_sync("/attachments/out.txt")
    rt.close()


def test_the_command_makes_the_class_and_refuses_bad_names(postgres_url: str) -> None:
    teacher, ann, bob = roles(postgres_url)
    command = [sys.executable, "-m", "threadlab", "class", "init", postgres_url, "--instructor",
               teacher, "--students", f"{ann},{bob}", "--tokens-per-day", "5000"]  # fmt: skip
    made = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert made.returncode == 0, made.stderr
    lines = [line.split("\t") for line in made.stdout.splitlines()]
    assert [line[:2] for line in lines] == [["instructor", teacher], ["student", ann],
                                            ["student", bob]]  # fmt: skip
    assert [urlsplit(line[2]).username for line in lines] == [teacher, ann, bob]
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr  # a second run keeps what is there

    bad = [*command[:7], teacher, "--students", "ann; DROP TABLE threads"]
    refused = subprocess.run(bad, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 1
    assert "is not a role name" in refused.stderr
    assert "Traceback" not in refused.stderr


STUDENT = '''
import asyncio, sys, time
import threadlab as tl

@tl.tool
def write(state: tl.ThreadState, title: str) -> str:
    """Write a page.

    Args:
        title: its title
    """
    time.sleep(0.2)  # slow enough for the instructor to watch it run
    return f"wrote {title}"

model = tl.models.ScriptedModel([tl.models.call("write", {"title": str(i)}) for i in range(5)]
                                + [tl.models.text("done")])
tl.define_prompt("site", prompt="Pages.", tools=["write"], model=model)

async def main() -> None:
    rt = tl.Runtime(store=sys.argv[1])
    thread = await rt.create_thread("site")
    print(thread.id, flush=True)
    run = await thread.send("pages")
    mine = [t.id for t in rt.threads()]
    print(run.status, rt.user, len(mine), flush=True)
    rt.close()

asyncio.run(main())
'''


async def test_two_students_run_at_once_while_the_instructor_watches(
    postgres_url: str, registry: tl.Registry, tmp_path: Path
) -> None:
    teacher, ann, bob = roles(postgres_url)
    init_class(postgres_url, instructor=teacher, students=[ann, bob])
    script = tmp_path / "student.py"
    script.write_text(STUDENT)
    students = [
        subprocess.Popen(
            [sys.executable, str(script), as_role(postgres_url, who)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for who in (ann, bob)
    ]
    instructor = tl.Runtime(registry, as_role(postgres_url, teacher))
    seen_running: set[str] = set()
    try:
        for _ in range(300):
            rows = class_rows(instructor)
            seen_running |= {r["member"] for r in rows if r["status"] == "running"}
            if all(p.poll() is not None for p in students):
                break
            await asyncio.sleep(0.05)
        outputs = [p.communicate(timeout=60) for p in students]
    finally:
        for p in students:
            p.kill()
    for (out, err), who in zip(outputs, (ann, bob), strict=True):
        lines = out.split("\n")
        assert lines[1] == f"completed {who} 1", err  # each sees their own thread only
    assert seen_running == {ann, bob}  # the instructor watched both at work
    ended = {r["member"]: r for r in class_rows(instructor)}
    assert {m: (r["status"], r["calls"]) for m, r in ended.items()} == {
        ann: ("completed", 5), bob: ("completed", 5)
    }  # fmt: skip
    instructor.close()


ORPHAN = '''
import asyncio, os, sys
import threadlab as tl

@tl.tool
def crash(state: tl.ThreadState) -> str:
    """Crash the process mid-call."""
    os._exit(3)

tl.define_prompt("site", prompt="x", tools=["crash"],
                 model=tl.models.ScriptedModel([tl.models.call("crash", {})]))

async def main() -> None:
    rt = tl.Runtime(store=sys.argv[1])
    await (await rt.create_thread("site")).send("go")

asyncio.run(main())
'''


async def test_what_a_student_tries_against_the_others_is_refused(
    postgres_url: str, registry: tl.Registry, tmp_path: Path
) -> None:
    """Found by trying: another's file contents poisoned or probed by digest, a thread hung
    under another's (to count in their grade), the day's spending refunded, history deleted,
    a thread's lock held forever, a function planted in `public`."""
    import hashlib

    import psycopg

    with psycopg.connect(postgres_url, autocommit=True) as admin:  # PostgreSQL 14's default
        admin.execute("GRANT CREATE ON SCHEMA public TO PUBLIC")
    teacher, ann, bob = roles(postgres_url)
    init_class(postgres_url, instructor=teacher, students=[ann, bob], tokens_per_day=1000)
    site(registry)
    bob_rt, bob_thread = await a_run(as_role(postgres_url, bob), registry)
    ann_rt, ann_thread = await a_run(as_role(postgres_url, ann), registry)
    page = b"<h1>Tea</h1>"  # what both wrote
    digest = hashlib.sha256(page).hexdigest()
    with psycopg.connect(as_role(postgres_url, ann), autocommit=True) as db:
        with pytest.raises(psycopg.errors.CheckViolation):  # a content under another's digest
            db.execute("INSERT INTO blobs (digest, data) VALUES (%s, %s)",
                       (hashlib.sha256(b"bob's answer").hexdigest(), b"ann was here"))  # fmt: skip
        probe = db.execute(  # her own copy: says nothing of whether Bob stored the same
            "INSERT INTO blobs (digest, data) VALUES (%s, %s) ON CONFLICT DO NOTHING",
            (hashlib.sha256(b"a guess").hexdigest(), b"a guess"),
        )
        assert probe.rowcount == 1
        assert db.execute("SELECT COUNT(*) FROM blobs WHERE digest = %s", (digest,)).fetchone() == (
            1,
        )
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # under Bob's thread
            db.execute("UPDATE threads SET parent_id = %s WHERE id = %s",
                       (bob_thread.id, ann_thread.id))  # fmt: skip
        with pytest.raises(psycopg.errors.CheckViolation):  # a refund
            db.execute("INSERT INTO usage (member, at, tokens) VALUES (current_user, 0, -1000)")
        for statement in ("DELETE FROM events", "UPDATE events SET data = '{}'",
                          "DELETE FROM messages", "DELETE FROM usage"):  # fmt: skip
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                db.execute(statement)
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # planted where calls look
            db.execute("CREATE FUNCTION public.hashtextextended(text, integer) RETURNS bigint"
                       " LANGUAGE sql AS 'SELECT 1::bigint'")  # fmt: skip
        db.execute("BEGIN")
        held = db.execute("SELECT thread_id FROM leases FOR UPDATE").fetchall()
        assert {row[0] for row in held} == {ann_thread.id}  # her own lease rows only
        # ... held while Bob runs again: his thread's lock is his.
        again = await asyncio.wait_for(bob_thread.send("another page"), timeout=30)
        assert again.status == "completed"
        db.execute("ROLLBACK")
    assert bob_rt.thread(bob_thread.id).files.read_sync("/index.html") == page
    for rt in (ann_rt, bob_rt):
        rt.close()

    # A student's kernel that died mid-call: the instructor's view still reads the class.
    script = tmp_path / "orphan.py"
    script.write_text(ORPHAN)
    died = subprocess.run([sys.executable, str(script), as_role(postgres_url, ann)],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert died.returncode == 3, died.stderr
    instructor = tl.Runtime(registry, as_role(postgres_url, teacher))
    rows = {r["member"]: r for r in class_rows(instructor)}
    assert rows[ann]["status"] in ("running", "interrupted")
    assert rows[bob]["status"] == "completed"
    instructor.close()


def test_class_init_refuses_privileged_roles_and_hands_out_no_admin_credentials(
    postgres_url: str,
) -> None:
    import psycopg

    teacher, ann, bob = roles(postgres_url)
    with pytest.raises(tl.ThreadlabError, match="may see every student's rows"):
        init_class(postgres_url, instructor=teacher, students=[ann, "postgres"])
    with psycopg.connect(postgres_url, autocommit=True) as admin:
        admin.execute(f"CREATE ROLE {bob} BYPASSRLS")
    with pytest.raises(tl.ThreadlabError, match=bob):
        init_class(postgres_url, instructor=teacher, students=[ann, bob])
    parts = urlsplit(postgres_url)
    with_credentials = (f"postgresql://{parts.hostname}:{parts.port}{parts.path}"
                        "?user=postgres&password=AdminS3cret&sslmode=disable")  # fmt: skip
    members = init_class(with_credentials, instructor=teacher, students=[ann],
                         tokens_per_day=500, passwords=True)  # fmt: skip
    for member in members:
        assert "AdminS3cret" not in member.url
        assert "user=" not in member.url
        assert "sslmode=disable" in member.url
        assert urlsplit(member.url).username == member.role
    again = init_class(postgres_url, instructor=teacher, students=[ann])  # no --tokens-per-day
    assert [m.role for m in again] == [teacher, ann]
    kept = tl.store.PostgresStore(as_role(postgres_url, ann))
    assert kept.class_allowance() == 500  # the allowance a second run did not name is kept
    kept.close()
